// The blksim subcommands. Each returns the process exit status: 0 success, 2 bad input
// (scenario, option), 1 a failed run (an invariant violation).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/blksim/perfetto_output.h"

namespace CLI {
class App;
}
namespace blksim::scenario {
struct Scenario;
}
namespace blksim::topology {
class Machine;
struct MachineConfig;
}
namespace blksim::result {
struct RunResult;
struct FioLog;
struct FioLogFile;
}

namespace blksim::cli {

struct RunOptions {
    std::string scenario;
    std::vector<std::string> sets;
    std::string scheduler;          // every queue's, as blksim fio --scheduler (empty: the scenario's)
    std::string output_format;      // empty = the scenario's
    std::optional<uint64_t> seed;
    bool quiet = false;             // no summary on stderr
    std::string trace_file;         // blkparse-style text trace ("-" = stdout)
    std::string blktrace_dir;       // blktrace binary per-CPU files go here
    bool explain = false;           // decisions as messages in both traces (models/blkmq/explain.h)
    std::string timeseries_file;    // queue depth / tag occupancy CSV (models/report/timeseries.h)
    std::string timeseries_interval = "10ms";
    std::string mem_limit;          // empty = experiment::default_mem_limit()
    std::string kernel_tree;        // the scenario's kernel.tree, for kernel:<name> schedulers
    PerfettoOptions perfetto;       // --perfetto trace-event JSON (docs/timeline.md)
};

// `blksim fio --device PROFILE|SCENARIO [...] -- <fio arguments or job file>`
struct FioOptions {
    std::string device;                 // a scenario file, a device profile or a built-in machine
    std::string scheduler;              // every queue's scheduler; overrides the jobs' ioscheduler=
    std::vector<std::string> sets;
    std::string output_format;          // empty = fio's --output-format, else normal
    bool strict = false;                // unsupported fio options are an error, not a warning
    std::optional<uint64_t> seed;
    bool quiet = false;
    std::string trace_file;
    std::string blktrace_dir;
    bool explain = false;
    std::string timeseries_file;
    std::string timeseries_interval = "10ms";
    std::string mem_limit;
    std::string kernel_tree;
    PerfettoOptions perfetto;
    std::vector<std::string> fio_args;  // what follows "--"
};

// A scenario file with --set overrides and --seed into `out`, its loader warnings printed to
// stderr; false after printing why it could not be loaded.
// `scheduler`: every queue's, as blksim fio --scheduler (empty: the scenario's).
bool load_or_say_why(const std::string& path, const std::vector<std::string>& sets, std::optional<uint64_t> seed,
                     scenario::Scenario& out, const std::string& scheduler = {});

// Builds the machine, calls `before` (attach outputs), runs it, calls `after` (read it).
// Returns 0, or prints why and returns 2 when the machine cannot be built (bad input) or 1
// when the run broke an invariant; `name` (the scenario) starts the message.
using MachineHook = std::function<void(topology::Machine&)>;
int run_machine(const topology::MachineConfig& cfg, const std::string& name, const MachineHook& before,
                const MachineHook& after, result::RunResult& result);

// fio's log files of a run (write_lat_log, ...): opened before it runs, filled after.
class OutputFile;
struct FioLogFiles {
    std::vector<std::unique_ptr<OutputFile>> files;
    FioLogFiles();
    ~FioLogFiles();
    // Relative paths under `dir` when given. Throws OutputError naming the job's option
    // (jobs.N.write_lat_log) and the path.
    void open(const std::vector<result::FioLogFile>& logs, const std::string& dir = {});
    // The run's logs, in the order of open()'s; throws OutputError.
    void write(const std::vector<result::FioLog>& logs);
};

inline constexpr const char* KERNEL_TREE_HELP =
    "kernel source for the kernel:<name> schedulers: a kernel tree, its block/ folder or one scheduler .c file "
    "(sets kernel.tree; docs/kernel-schedulers.md)";
// --kernel-tree DIR as the --set it stands for (the path made absolute: kernel.tree is
// relative to the scenario).
void add_kernel_tree_set(const std::string& kernel_tree, std::vector<std::string>& sets);

int cmd_run(const RunOptions& o);
int cmd_fio(const FioOptions& o);
// --mem-limit's bytes (the default when empty); nullopt after printing what is wrong.
std::optional<uint64_t> mem_limit_bytes(const std::string& text);

// `graph`: print the machine's topology as Graphviz DOT instead of the summary line.
int cmd_validate(const std::string& scenario, const std::vector<std::string>& sets, bool graph = false);
// format: normal or json.
int cmd_list(const std::string& what, const std::string& format = "normal");

// `blksim report` (cmd_report.cc): add_report_command registers it (CLI11 fills `r`);
// run_report_command runs it when it was given, -1 otherwise.
struct ReportOptions {
    std::string scenario;
    std::vector<std::string> sets;
    std::optional<uint64_t> seed;
    std::string out = "report.html";
    std::string sweep;     // a `blksim sweep --json` file instead of a scenario
    std::string interval;  // "" = about 200 points over the longest job
    std::string workdir;   // keep the run's files here ("" = a temporary directory, removed)
    bool timeline = false; // the request timeline page instead of the plots (docs/timeline.md)
    PerfettoOptions perfetto;  // its bounds
};
struct ReportCommand {
    CLI::App* cmd = nullptr;
    ReportOptions o;
};
void add_report_command(CLI::App& app, ReportCommand& r);
int run_report_command(const ReportCommand& r);
// --timeseries-interval: a time such as 10ms or 500us (a bare number is milliseconds), at
// least TimeSeriesWriter::MIN_INTERVAL; nullopt after printing what is wrong.
std::optional<int64_t> timeseries_interval_ns(const std::string& text, const char* option = "--timeseries-interval");

// `import-disksim` and `validate-disk` (cmd_disksim.cc): add_disksim_commands registers
// them (CLI11 fills `d`); run_disksim_command runs the one given, -1 if neither was.
struct ImportOptions {
    std::string diskspecs;
    std::string out;  // empty: <drive>.json in the current directory; "-": stdout
};
struct ValidateDiskOptions {
    std::vector<std::string> traces;
    std::string device;  // profile name or path; empty: the trace's file name
    std::string format = "normal";
    uint64_t limit = 0;
    std::string cdf;
    std::string requests;  // per-request CSV: measured beside simulated
};
struct DisksimCommands {
    CLI::App* import_cmd = nullptr;
    CLI::App* validate_cmd = nullptr;
    ImportOptions import_opt;
    ValidateDiskOptions validate_opt;
};
void add_disksim_commands(CLI::App& app, DisksimCommands& d);
int run_disksim_command(const DisksimCommands& d);

}  // namespace blksim::cli
