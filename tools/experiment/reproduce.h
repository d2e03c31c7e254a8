// `blksim reproduce`: the seed experiments (docs/references.md §8) against
// their published figures. A data file (scenarios/seeds/published.json) lists one row per
// published figure: the scenario that sets it up, how the figure is read from the run, the
// published value, the tolerance the experiment gives and whether blksim is expected to
// reproduce it. Each row is simulated over N seeds; the table gives the mean, its 95 %
// confidence interval, the error and the verdict (docs/reproduce.md).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/result/run_result.h"
#include "tools/experiment/simulate.h"

namespace blksim::experiment {

// Bad data file or option: the message names the file, the JSON path and what is allowed.
class ReproduceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One simulation setup: a scenario file (absolute, or relative to the working directory once
// loaded) and --set overrides.
struct RunSpec {
    std::string scenario;
    std::vector<std::string> sets;
    bool operator==(const RunSpec&) const = default;
};

struct Tolerance {
    enum class Kind { RELATIVE, ABSOLUTE, DIRECTION };
    Kind kind = Kind::RELATIVE;
    double value = 0.0;   // RELATIVE: percent of the published value; ABSOLUTE: in the row's unit
};

// One published figure.
struct PublishedRow {
    std::string experiment;        // "E1".."E4"
    std::string cell;              // e.g. "jobs10-4k mq-deadline / none"
    std::string section;           // the heading of the experiment the figure comes from
    RunSpec run;
    std::optional<RunSpec> ratio_to;   // the figure is run's metric / ratio_to's (same seed)
    std::string metric;            // "<dir>.<name>" or "<group>/<dir>.<name>" (reproduce_metrics)
    std::string unit;              // display unit; the metric is divided by unit_scale
    double unit_scale = 1.0;
    double published = 0.0;
    Tolerance tolerance;
    bool known_miss = false;       // blksim does not reproduce it today (why says why)
    // One of several hypotheses about a setup the source does not state (why names it): run
    // and shown, never a failure; without a published figure (held back) only predicted.
    bool hypothesis = false;
    bool held_back = false;
    std::string why;
    std::string where;             // "FILE: rows[i]" for messages
};

struct PublishedData {
    std::string file;
    std::string source;            // the document the figures come from
    std::vector<PublishedRow> rows;
    // --reduced: per experiment, overrides that shorten its runs, and the default seed count.
    std::vector<std::pair<std::string, std::vector<std::string>>> reduced_sets;
    unsigned reduced_seeds = 2;
};

// Reads and checks the data file: every key, type, unit and tolerance, and that each
// scenario file exists. Scenario paths are resolved relative to the data file.
PublishedData load_published(const std::string& path);

// The figures of a run reproduce rows can name: run_metrics()' (per group and direction iops,
// bw_bytes, clat mean and percentiles) plus clat_max_ns and, for jobs with per-priority
// statistics, "<group>/<dir>.prio<class>_<level>.clat_mean_ns" (fio's "clat prio 1/0").
std::vector<Metric> reproduce_metrics(const result::RunResult& r);

// The value of `metric` in `ms`: a full key, or a suffix "<dir>.<name>" when exactly one
// group has it. nullopt when absent or ambiguous.
std::optional<double> find_metric(const std::vector<Metric>& ms, const std::string& metric);

enum class RowStatus { OK, FAIL, KNOWN_MISS, KNOWN_MISS_NOW_WITHIN, HYPOTHESIS_WITHIN, HYPOTHESIS_OUTSIDE, PREDICTED };
// "ok", "FAIL", "known miss", "known miss, now within", "hypothesis, within",
// "hypothesis, outside", "predicted"
const char* row_status_name(RowStatus s);

struct RowResult {
    const PublishedRow* row = nullptr;
    std::vector<double> values;    // per seed, in the row's unit (a ratio for ratio rows)
    double mean = 0.0;
    double half_width = 0.0;       // of the 95 % CI of the mean (Student t, n - 1 dof)
    double error_pct = 0.0;        // (mean - published) / published
    bool within = false;
    RowStatus status = RowStatus::OK;
};

// The verdict of one row from its per-seed values (n >= 2).
RowResult evaluate_row(const PublishedRow& row, std::vector<double> values);

struct ReproduceInfo {
    std::string data_file, source;
    std::vector<uint64_t> seeds;
    bool reduced = false;
};

std::string format_reproduce_normal(const ReproduceInfo& info, const std::vector<RowResult>& rows);
std::string format_reproduce_json(const ReproduceInfo& info, const std::vector<RowResult>& rows);

}  // namespace blksim::experiment
