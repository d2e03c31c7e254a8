// `blksim compare`, `blksim sweep`, `blksim sweep-merge`, `blksim reproduce` and `blksim
// regress`: many simulations side by side (cmd_compare.cc, cmd_sweep.cc, cmd_reproduce.cc,
// cmd_regress.cc; the statistics, thread pool and file formats are in tools/experiment/).
// Exit status as every subcommand: 0 success, 2 bad input, 1 a failed run; compare
// --fail-on and regress add 3 (a regression beyond the threshold).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/blksim/scenario_source.h"

namespace CLI {
class App;
}

namespace blksim::cli {

inline constexpr int EXIT_REGRESSION = 3;

// blksim compare SCENARIO [--set P=V]... [--a 'P=V;P=V']... [--b ...] [--b-scenario FILE]
// or blksim compare --device D [--a-scheduler S] [--b-scheduler S] ... -- <fio arguments>
struct CompareOptions {
    ScenarioSource source;                // variant A's (and B's unless --b-scenario / --b-device)
    std::vector<std::string> sets;        // both variants
    std::vector<std::string> a_sets, b_sets;  // each "P=V;P=V;..."
    std::string a_scheduler, b_scheduler; // every queue's, as blksim fio --scheduler
    std::string b_scenario;
    std::string b_device;                 // with --device: B's machine
    std::string a_name = "A", b_name = "B";
    unsigned runs = 10;
    std::optional<uint64_t> seed;         // first replication's seed (default: the scenario's)
    bool no_crn = false;                  // B draws from other seeds than A
    unsigned jobs = 0;                    // threads; 0 = hardware_concurrency
    std::string output_format = "normal";
    std::vector<std::string> fail_on;     // METRIC:PCT
    std::string html;                     // the comparison as an HTML page (compare_page.h)
    bool progress = false;                // progress line even when stderr is not a tty
    std::string mem_limit;                // empty: experiment::default_mem_limit()
    bool exact = false;                   // one run each, traced: the first differing event
    std::string b_binary;                 // with exact: the blksim that runs B
};

// blksim sweep SCENARIO --param P=V1,V2 ... [--shard i/N | --slurm DIR] [--csv F] [--json F]
// or blksim sweep --device D --param P=V1,V2 ... -- <fio arguments>
struct SweepOptions {
    ScenarioSource source;
    std::string scheduler;                // every queue's at every point, as blksim fio --scheduler
    std::vector<std::string> sets;
    std::vector<std::string> params;
    unsigned jobs = 0;
    std::string shard;                    // "i/N"; empty = all points
    unsigned runs = 1;                    // replications per point (seeds seed..seed+runs-1)
    std::string csv, json;                // output files ("-" = stdout); neither: CSV on stdout
    bool progress = false;
    std::string order = "cost";           // cost: dearest point first (a pilot estimates); index
    std::string mem_limit;
    std::string slurm;                    // write Slurm batch jobs to this directory instead of running
    unsigned slurm_shards = 0;            // their array tasks; 0: one per point, at most 1,000
};

// blksim sweep-merge SHARD.json... [--csv F] [--json F]
struct SweepMergeOptions {
    std::vector<std::string> inputs;
    std::string csv, json;
};

// blksim reproduce [--data FILE] [--seeds N] [--reduced] [--only E2,E3] [--check] [--format F]
struct ReproduceOptions {
    std::string data;                     // published figures; default scenarios/seeds/published.json
    std::optional<unsigned> seeds;        // default 5, or the data file's reduced count with --reduced
    uint64_t seed = 1;                    // first seed; seed i is seed + i for every run
    unsigned jobs = 0;
    bool reduced = false;                 // the data file's short runtimes and seed count (CI)
    std::vector<std::string> only;        // experiments to run (default all)
    bool check = false;                   // exit 1 when a row expected to pass is outside tolerance
    std::string format = "normal";
    bool progress = false;
    std::string mem_limit;
};

// blksim regress [--suite FILE] [--baseline FILE | --baseline-binary PATH] [--exact] [--save FILE]
struct RegressOptions {
    std::string suite;                    // default scenarios/regress/suite.json
    std::string baseline;                 // default baseline.json beside the suite
    std::string baseline_binary;          // run this blksim on the suite as the baseline
    std::vector<std::string> schedulers;  // only these schedulers' cells (default all)
    std::string kernel_tree;              // the source of a kernel:<scheduler> in `schedulers`
    std::string baseline_kernel_tree;     // the baseline: the same suite on this source
    bool exact = false;                   // fail on any changed output, not on gated regressions
    std::string save;                     // write this build's results here instead of comparing
    unsigned jobs = 0;
    std::string output_format = "normal";
    bool progress = false;
};

struct ExperimentCommands {
    CompareOptions compare;
    SweepOptions sweep;
    SweepMergeOptions merge;
    ReproduceOptions reproduce;
    RegressOptions regress;
    CLI::App* compare_cmd = nullptr;
    CLI::App* sweep_cmd = nullptr;
    CLI::App* merge_cmd = nullptr;
    CLI::App* reproduce_cmd = nullptr;
    CLI::App* regress_cmd = nullptr;
};

// Adds the five subcommands to `app`, their options bound to `x`.
void add_experiment_commands(CLI::App& app, ExperimentCommands& x);
// compare and sweep: what follows "--" is fio's command line (ScenarioSource::fio_args),
// cut from argv before CLI11 parses it.
void take_experiment_fio_args(int& argc, char** argv, ExperimentCommands& x);
// After parsing: the exit status of the subcommand that was chosen, or nullopt if none of them.
std::optional<int> run_experiment_commands(const ExperimentCommands& x);

int cmd_compare(const CompareOptions& o);
int cmd_sweep(const SweepOptions& o);
int cmd_sweep_merge(const SweepMergeOptions& o);
int cmd_reproduce(const ReproduceOptions& o);
int cmd_regress(const RegressOptions& o);

}  // namespace blksim::cli
