// `blksim regress`: the standard regression suite a scheduler patch is run against
// (docs/regress.md). A suite (scenarios/regress/suite.json) is a fixed, versioned list of
// cases (a scenario and its overrides) crossed with every scheduler's variants (its default
// tunables and tunables at their extremes); each cell runs over the suite's seeds. One build's
// results are compared with a baseline's (the stored results, or another build's) cell by
// cell: exactly (every report identical: "no functional change"), and statistically (paired
// seeds, per-metric confidence intervals, a gate per metric).
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/topology/machine_config.h"
#include "tools/experiment/compare.h"
#include "tools/experiment/simulate.h"

namespace blksim::experiment {

// A suite file that cannot be used; the message names the file and the JSON path.
class SuiteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct RegressCell {
    std::string name;                   // "<case>/<scheduler>/<variant>"
    std::string scheduler;
    topology::MachineConfig machine;    // the seed is set per run
    std::string scenario;               // the case's file and every override of the cell, so
    std::vector<std::string> sets;      // that `blksim run` can run it alone
};

struct RegressSuite {
    std::string path;
    uint32_t version = 0;
    unsigned runs = 0;                  // seeds per cell
    uint64_t seed = 1;                  // run i uses seed + i
    std::map<std::string, double> gates_pct;  // metric name ("clat_p99_ns") -> worse by more fails
    double default_gate_pct = 5.0;
    std::vector<RegressCell> cells;
};

// Loads the suite and every case's scenario (relative to the suite's folder), each crossed
// with the variants of the schedulers in `only` (all of the suite's when empty). A name
// "kernel:<scheduler>" in `only` runs the kernel's own source of <scheduler> from
// `kernel_tree` (a tree, its block/ folder or one .c file) with <scheduler>'s variants, whose
// tunables are the file's sysfs attributes. Throws SuiteError.
RegressSuite load_regress_suite(const std::string& path, const std::vector<std::string>& only = {},
                                const std::string& kernel_tree = {});

// One cell's runs: per seed the digest of the whole report and the figures.
struct CellResult {
    std::string cell;
    std::vector<uint64_t> digests;
    std::vector<std::vector<Metric>> metrics;
};
struct RegressResults {
    uint32_t version = 0;
    std::vector<uint64_t> seeds;
    std::vector<CellResult> cells;
};

// The figures regress compares: compare's per group and direction, the largest clat, slat
// and per-priority clat (mean, p99), and the groups' CPU time (usr, sys).
std::vector<Metric> regress_metrics(const result::RunResult& r);
// FNV-1a of the run's fio JSON+ report, blksim's extras and the schedulers' own figures
// (ElevatorFigures): equal digests, equal outputs and scheduler state.
uint64_t report_digest(const result::RunResult& r);

// Runs every cell over the suite's seeds on `jobs` threads; `progress(done, total)`. A run
// that fails throws std::runtime_error naming the cell and the seed.
RegressResults run_regress_suite(const RegressSuite& s, unsigned jobs,
                                 const std::function<void(std::size_t, std::size_t)>& progress);

std::string results_to_json(const RegressResults& r);
// Throws SuiteError naming `path_for_messages`.
RegressResults results_from_json(const std::string& text, const std::string& path_for_messages);

// One figure that moved significantly between the baseline (A) and this build (B).
struct RegressChange {
    std::string cell;
    CompareRow row;
    double gate_pct = 0.0;
    bool regression = false;            // worse, beyond the gate
};
struct RegressVerdict {
    std::size_t cells = 0, runs = 0;
    std::vector<std::string> differing_cells;   // some report differs (exact mode)
    std::vector<std::string> first_difference;  // per differing cell: the first figure, or why
    std::vector<std::size_t> first_differing_run;  // per differing cell: the seed's index
    std::vector<std::string> missing_cells;     // in this build's suite, not in the baseline
    std::vector<RegressChange> changes;         // significant, in cell and report order
    std::size_t regressions = 0;
};
// Throws SuiteError when the two were not run on the same suite version and seeds.
RegressVerdict judge_regress(const RegressSuite& s, const RegressResults& baseline, const RegressResults& build,
                             double confidence = 0.95);

std::string format_regress_normal(const RegressVerdict& v, bool exact, const std::string& baseline_name);
std::string format_regress_json(const RegressVerdict& v, bool exact, const std::string& baseline_name);

}  // namespace blksim::experiment
