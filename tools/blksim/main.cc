// blksim: a discrete-event simulator of the Linux block layer.
#include <algorithm>
#include <cstdio>
#include <system_error>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/report/fio_output.h"
#include "tools/blksim/commands.h"
#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/output_file.h"
#include "tools/blksim/seed_option.h"
#include "tools/experiment/mem_limit.h"
#include "tools/scenario/nearest.h"

// --output-format: fio's formats or a comma-separated list of them; a bad value names them all.
static CLI::Validator output_format_check() {
    return CLI::Validator(
        [](std::string& v) -> std::string {
            if (blksim::report::parse_output_formats(v))
                return {};
            return fmt::format("'{}' is not a fio output format (allowed: {})", v,
                               blksim::report::output_formats_allowed());
        },
        "FORMAT");
}

// The first word is not a subcommand (CLI11 would only say that one is required): name the
// commands, and the nearest one when it looks like a typo. False when it is one.
static bool unknown_command(const CLI::App& app, const std::string& word) {
    std::vector<std::string> names;
    for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; }))
        names.push_back(c->get_name());
    if (std::find(names.begin(), names.end(), word) != names.end())
        return false;
    const std::string nearest = blksim::scenario::nearest_word(word, names, std::max<std::size_t>(2, word.size() / 3));
    fmt::print(stderr, "blksim: '{}' is not a blksim command{} (allowed: {})\nRun 'blksim --help' for usage.\n", word,
               nearest.empty() ? "" : fmt::format("; did you mean '{}'?", nearest), fmt::join(names, ", "));
    return true;
}

static int run_command(int argc, char** argv);

int main(int argc, char** argv) {
    int rc = 2;
    int err = 0;
    try {
        rc = run_command(argc, argv);
    } catch (const blksim::cli::OutputError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
    } catch (const std::system_error& e) {
        // fmt::print(...) on stdout throws when the write fails.
        if (!std::ferror(stdout))
            throw;
        err = e.code().value();
    }
    // Whatever a command printed on stdout must have got there.
    if (const std::string msg = blksim::cli::close_stdout(err); !msg.empty()) {
        fmt::print(stderr, "blksim: {}\n", msg);
        return rc != 0 ? rc : 2;
    }
    return rc;
}

// What a run writes besides fio's report, the same for run and fio.
template <class Options>
static void add_run_output_options(CLI::App* cmd, Options& o) {
    cmd->add_flag("--quiet,-q", o.quiet, "no progress line and no run summary on stderr (fio's report still goes to stdout)");
    cmd->add_option("--trace", o.trace_file, "write a blkparse-style text trace of every request to FILE ('-' = stdout)");
    cmd->add_option("--blktrace", o.blktrace_dir,
                    "write blktrace binary per-CPU files DIR/<disk>.blktrace.<cpu> (read them with blkparse/btt)");
    cmd->add_flag("--explain", o.explain,
                  "add the schedulers', the block layer's and the devices' decisions to --trace and --blktrace as "
                  "blkparse message lines (m N ...; docs/usage.md, Explained decisions)");
    cmd->add_option("--timeseries", o.timeseries_file,
                    "write queue depth, tag occupancy and completions per interval as CSV to FILE (docs/plots.md)");
    cmd->add_option("--timeseries-interval", o.timeseries_interval,
                    "simulated time between two --timeseries samples, e.g. 1ms (default 10ms)");
    blksim::cli::add_perfetto_options(cmd, o.perfetto, true);
    cmd->add_option("--mem-limit", o.mem_limit, blksim::experiment::MEM_LIMIT_HELP);
    cmd->add_option("--kernel-tree", o.kernel_tree, blksim::cli::KERNEL_TREE_HELP);
}

static CLI::App* add_run_command(CLI::App& app, blksim::cli::RunOptions& run) {
    using namespace blksim::cli;
    auto* run_cmd = app.add_subcommand("run", "run a scenario and print fio's report");
    run_cmd->add_option("scenario", run.scenario, "scenario JSON file")->required();
    run_cmd->add_option("--set", run.sets, "override a scenario value: path=value, e.g. jobs.0.iodepth=16 (repeatable)")
        ->allow_extra_args(false);
    run_cmd->add_option("--scheduler", run.scheduler, "I/O scheduler of every device, as blksim fio --scheduler");
    run_cmd->add_option("--output-format", run.output_format,
                        blksim::report::output_formats_allowed() + " (default: the scenario's)")
        ->check(output_format_check());
    run_cmd->add_option("--seed", run.seed, "scenario seed (overrides the file's)")->check(seed_check());
    add_run_output_options(run_cmd, run);
    return run_cmd;
}

static CLI::App* add_fio_command(CLI::App& app, blksim::cli::FioOptions& fio) {
    using namespace blksim::cli;
    auto* fio_cmd = app.add_subcommand(
        "fio", "run a fio command line or job file as written, on a simulated machine: "
               "blksim fio --device nvme -- --name=r --rw=randread --bs=4k --runtime=1s --time_based");
    fio_cmd->add_option("--device", fio.device,
                        "the machine: a scenario file (its jobs are replaced), a device profile "
                        "(scenarios/devices/<name>.json) or a built-in machine: nullb, nvme; not needed when every "
                        "job uses ioengine=null");
    fio_cmd->add_option("--scheduler", fio.scheduler,
                        "I/O scheduler of every device (overrides the jobs' ioscheduler=)");
    fio_cmd->add_option("--set", fio.sets,
                        "override a machine value (host.cpus=4) or a job's (jobs.0.runtime=1s) (repeatable)")
        ->allow_extra_args(false);
    fio_cmd->add_option("--output-format", fio.output_format,
                        blksim::report::output_formats_allowed() + " (default: fio's --output-format, else normal)")
        ->check(output_format_check());
    fio_cmd->add_flag("--strict", fio.strict, "refuse fio options blksim does not support (default: warn and run without them)");
    fio_cmd->add_option("--seed", fio.seed, "scenario seed")->check(seed_check());
    add_run_output_options(fio_cmd, fio);
    fio_cmd->add_option("fio_args", fio.fio_args, "after '--': fio's arguments as on fio's command line (job options, job files)");
    return fio_cmd;
}

static int run_command(int argc, char** argv) {
    using namespace blksim::cli;
    CLI::App app{"blksim: simulate the Linux block layer (blk-mq, schedulers, devices) and "
                 "report what fio would have reported", "blksim"};  // "Usage: blksim", not argv[0]
    app.require_subcommand(1);
    app.set_version_flag("--version", "blksim " BLKSIM_VERSION);

    RunOptions run;
    auto* run_cmd = add_run_command(app, run);
    FioOptions fio;
    auto* fio_cmd = add_fio_command(app, fio);

    std::string vscenario;
    std::vector<std::string> vsets;
    auto* val_cmd = app.add_subcommand("validate", "check a scenario without running it");
    val_cmd->add_option("scenario", vscenario, "scenario JSON file")->required();
    val_cmd->add_option("--set", vsets, "override a scenario value: path=value (repeatable)")->allow_extra_args(false);
    bool vgraph = false;
    val_cmd->add_flag("--graph", vgraph, "print the topology (host, controllers, devices, queues, tag sets) as Graphviz DOT");

    std::string what;
    auto* list_cmd = app.add_subcommand("list", "list device models, engines, schedulers and output formats with their parameters");
    list_cmd->add_option("kind", what,
                         "devices, engines, schedulers, formats, cpu (CPU cost profiles) or scenarios (the shipped ones) "
                         "(default: all), or schema (the scenario schema as the loader checks it)");
    std::string list_format = "normal";
    list_cmd->add_option("--format,--output-format", list_format, "normal or json")->check(CLI::IsMember({"normal", "json"}));

    DisksimCommands disksim;  // import-disksim, validate-disk
    add_disksim_commands(app, disksim);
    ReportCommand report;
    add_report_command(app, report);

    ExperimentCommands experiments;  // compare, sweep, sweep-merge, reproduce, regress
    add_experiment_commands(app, experiments);
    take_experiment_fio_args(argc, argv, experiments);

    if (argc > 1 && argv[1][0] != '-' && unknown_command(app, argv[1]))
        return 2;
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "blksim: {}\nRun 'blksim --help' for usage.\n", e.what());
        return 2;
    }
    if (const auto status = run_experiment_commands(experiments))
        return *status;
    if (*run_cmd)
        return cmd_run(run);
    if (*fio_cmd)
        return cmd_fio(fio);
    if (*val_cmd)
        return cmd_validate(vscenario, vsets, vgraph);
    if (*list_cmd)
        return cmd_list(what, list_format);
    if (const int rc = run_disksim_command(disksim); rc >= 0)
        return rc;
    if (const int rc = run_report_command(report); rc >= 0)
        return rc;
    return 2;
}
