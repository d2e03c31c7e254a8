// `blksim compare`: per-metric paired comparison of two variants over N replications, the
// verdicts, --fail-on thresholds and the two report formats (docs/compare.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/experiment/simulate.h"
#include "tools/experiment/stats.h"

namespace blksim::experiment {

enum class Verdict { BETTER, WORSE, NO_DIFFERENCE };
const char* verdict_name(Verdict v);  // "better", "worse", "no significant difference"

struct CompareRow {
    std::string key;
    bool higher_is_better = true;
    PairedCi ci;                 // of B - A
    Verdict verdict = Verdict::NO_DIFFERENCE;
};

// a[i], b[i]: the metrics of replication i of each variant. A metric is compared when every
// replication of both variants has it; rows come in the order of a[0]'s metrics.
std::vector<CompareRow> compare_runs(const std::vector<std::vector<Metric>>& a,
                                     const std::vector<std::vector<Metric>>& b, double confidence);

// --fail-on METRIC:PCT. metric: "<dir>.<name>" (every group's) or a full key.
struct FailOn {
    std::string spec;        // as given
    std::string metric;
    double pct = 0.0;
};
// Throws std::invalid_argument with a message naming the option and what is allowed.
FailOn parse_fail_on(const std::string& spec);
bool matches(const FailOn& f, const std::string& key);
// The row regressed beyond the threshold: significantly worse, and the relative change in
// the bad direction larger than pct (any change, when A's mean is 0).
bool fails(const FailOn& f, const CompareRow& row);

// What the reports print about the experiment itself.
struct CompareInfo {
    std::string scenario_a, scenario_b;
    std::string name_a = "A", name_b = "B";
    std::vector<std::string> sets_a, sets_b;   // all overrides of each variant
    std::vector<uint64_t> seeds_a, seeds_b;
    bool crn = true;
    double confidence = 0.95;
};
struct FailOnResult {
    FailOn rule;
    std::vector<std::string> failed_keys;
};

// The first line of the report: replications, seeds, CRN, confidence.
std::string compare_summary(const CompareInfo& info);
// "A", or "A (name)" when the variant has a name of its own.
std::string variant_label(const char* letter, const std::string& name);
// A variant as the report names it: its scenario or fio command line with its overrides.
std::string variant_text(const std::string& scenario, const std::vector<std::string>& sets);
// The report's table: a header row, then per row metric, means, B - A, CI, change, verdict.
std::vector<std::vector<std::string>> compare_table(const std::vector<CompareRow>& rows);

std::string format_compare_normal(const CompareInfo& info, const std::vector<CompareRow>& rows,
                                  const std::vector<FailOnResult>& fails);
std::string format_compare_json(const CompareInfo& info, const std::vector<CompareRow>& rows,
                                const std::vector<FailOnResult>& fails);

}  // namespace blksim::experiment
