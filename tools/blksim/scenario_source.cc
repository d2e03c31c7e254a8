#include "tools/blksim/scenario_source.h"

#include <cstring>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "tools/scenario/scenario.h"

namespace blksim::cli {

bool ScenarioSource::check(const std::string& command) const {
    const char* why = nullptr;
    if (!device.empty() && !scenario.empty())
        why = "give a scenario file or --device with fio's arguments after '--', not both";
    else if (device.empty() && scenario.empty())
        why = "nothing to run: give a scenario file, or --device DEVICE -- <fio arguments or job file>";
    else if (device.empty() && !fio_args.empty())
        why = "fio's arguments after '--' run on a machine: give --device (a device profile, nvme, nullb or a "
              "scenario file) instead of the scenario";
    else if (!device.empty() && fio_args.empty())
        why = "--device needs fio's arguments or a job file after '--', e.g. -- --name=r --rw=randread --bs=4k "
              "--runtime=1s --time_based";
    if (why)
        fmt::print(stderr, "blksim: {}: {}\n", command, why);
    return why == nullptr;
}

std::string ScenarioSource::describe(const std::string& scheduler) const {
    std::string s = is_fio() ? "--device " + device : scenario;
    if (!scheduler.empty())
        s += " --scheduler " + scheduler;
    if (is_fio()) {
        s += " --";
        for (const std::string& a : fio_args)
            s += " " + a;
    }
    return s;
}

scenario::Scenario ScenarioSource::load(const std::vector<std::string>& sets, const std::string& scheduler,
                                        const scenario::FioPolicy& policy) const {
    if (!is_fio())
        return scenario::load_scenario(scenario, sets, policy, scheduler, scenario::default_scenario_dir());
    scenario::FioCommand cmd;
    cmd.device = device;
    cmd.scheduler = scheduler;
    cmd.fio_args = fio_args;
    cmd.sets = sets;
    cmd.policy = policy;
    cmd.policy.strict = strict;
    scenario::FioRun run = scenario::load_fio_command(cmd);
    // Each simulation's report is a row of the experiment's, not a file of its own.
    if (run.parse_only || !run.output_file.empty())
        throw scenario::ScenarioError(describe() + ": fio's --parse-only and --output= have no meaning here "
                                                   "(the command writes its own report): drop them");
    return std::move(run.scenario);
}

void add_source_options(CLI::App* cmd, ScenarioSource& src, const std::string& scenario_help) {
    cmd->add_option("scenario", src.scenario, scenario_help + "; or --device with fio's arguments after '--'");
    cmd->add_option("--device", src.device,
                    "run fio's arguments or job file given after '--' on this machine, as blksim fio does: a scenario "
                    "file (its jobs are replaced), a device profile or a built-in machine: nullb, nvme");
    cmd->add_flag("--strict", src.strict, "with --device: refuse fio options blksim does not support");
}

void take_fio_args(int& argc, char** argv, std::vector<std::string>& fio_args) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--") == 0) {
            fio_args.assign(argv + i + 1, argv + argc);
            argc = i;
            return;
        }
}

}  // namespace blksim::cli
