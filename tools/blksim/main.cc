// blksim: a discrete-event simulator of the Linux block layer.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tools/blksim/commands.h"

int main(int argc, char** argv) {
    using namespace blksim::cli;
    CLI::App app{"blksim: simulate the Linux block layer (blk-mq, schedulers, devices) and "
                 "report what fio would have reported"};
    app.require_subcommand(1);

    RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "run a scenario and print fio's report");
    run_cmd->add_option("scenario", run.scenario, "scenario JSON file")->required();
    run_cmd->add_option("--set", run.sets, "override a scenario value: path=value, e.g. jobs.0.iodepth=16");
    run_cmd->add_option("--output-format", run.output_format, "normal or json (default: the scenario's)")
        ->check(CLI::IsMember({"normal", "json"}));
    run_cmd->add_option("--seed", run.seed, "scenario seed (overrides the file's)");
    run_cmd->add_flag("--quiet,-q", run.quiet, "no run summary on stderr");
    run_cmd->add_option("--trace", run.trace_file, "write a blkparse-style text trace of every request to FILE ('-' = stdout)");

    std::string vscenario;
    std::vector<std::string> vsets;
    auto* val_cmd = app.add_subcommand("validate", "check a scenario without running it");
    val_cmd->add_option("scenario", vscenario, "scenario JSON file")->required();
    val_cmd->add_option("--set", vsets, "override a scenario value: path=value");

    std::string what;
    auto* list_cmd = app.add_subcommand("list", "list device models, engines and schedulers with their parameters");
    list_cmd->add_option("kind", what, "devices, engines or schedulers (default: all)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        fmt::print(stderr, "blksim: {}\nRun 'blksim --help' for usage.\n", e.what());
        return 2;
    }
    if (*run_cmd)
        return cmd_run(run);
    if (*val_cmd)
        return cmd_validate(vscenario, vsets);
    if (*list_cmd)
        return cmd_list(what);
    return 2;
}
