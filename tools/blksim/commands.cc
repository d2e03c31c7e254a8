#include "tools/blksim/commands.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "models/registry.h"
#include "models/sched/mq_deadline.h"
#include "models/report/blkparse_writer.h"
#include "models/report/job_result.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

static scenario::Scenario load(const std::string& path, std::vector<std::string> sets,
                               std::optional<uint64_t> seed) {
    if (seed)
        sets.push_back(fmt::format("seed={}", *seed));
    return scenario::load_scenario(path, sets);
}

int cmd_run(const RunOptions& o) {
    scenario::Scenario s;
    try {
        s = load(o.scenario, o.sets, o.seed);
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return 2;
    }
    bool json = s.output.format == scenario::OutputConfig::Format::JSON;
    if (o.output_format == "json")
        json = true;
    else if (o.output_format == "normal")
        json = false;

    // The trace goes out as the run goes: nothing is kept in memory.
    std::ofstream trace_file;
    std::unique_ptr<report::BlkparseWriter> trace;
    if (!o.trace_file.empty()) {
        std::ostream* out = &std::cout;
        if (o.trace_file != "-") {
            trace_file.open(o.trace_file);
            if (!trace_file) {
                fmt::print(stderr, "blksim: --trace {}: cannot open for writing\n", o.trace_file);
                return 2;
            }
            out = &trace_file;
        }
        std::vector<std::string> names;
        for (const auto& q : s.machine.queues)
            names.push_back(q.device);
        trace = std::make_unique<report::BlkparseWriter>(*out, report::sim_trace_devices(names));
    }

    const auto wall0 = std::chrono::steady_clock::now();
    report::RunResult result;
    uint64_t events = 0, ios = 0;
    try {
        topology::Machine machine(s.machine);
        machine.set_trace(trace.get());
        result = machine.run();
        if (trace)
            trace->flush();
        events = machine.events_processed();
        ios = machine.ios_completed();
    } catch (const std::invalid_argument& e) {
        // A machine that cannot be built from a scenario that decoded: still bad input.
        fmt::print(stderr, "blksim: {}: {}\n", o.scenario, e.what());
        return 2;
    } catch (const std::logic_error& e) {
        fmt::print(stderr, "blksim: {}: {}\n", o.scenario, e.what());
        return 1;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    const std::string out = json ? report::format_json(result, s.output.group_reporting)
                                 : report::format_normal(result, s.output.group_reporting) +
                                       report::format_blksim_extras(result);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
    if (!o.quiet)
        fmt::print(stderr,
                   "blksim: simulated {:.3f} s in {:.3f} s wall: {} events, {} I/Os, "
                   "{:.2f} M simulated I/Os per wall-second\n",
                   result.sim_time.seconds(), wall, events, ios,
                   wall > 0 ? static_cast<double>(ios) / wall / 1e6 : 0.0);
    return 0;
}

int cmd_validate(const std::string& path, const std::vector<std::string>& sets) {
    try {
        const auto s = load(path, sets, std::nullopt);
        uint64_t threads = 0;
        for (const auto& j : s.machine.jobs)
            threads += j.numjobs;
        fmt::print("{}: ok: {} CPU(s), {} device(s), {} job(s), {} thread(s)\n", path,
                   s.machine.host.nr_cpus, s.machine.devices.size(), s.machine.jobs.size(), threads);
        return 0;
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return 2;
    }
}

static void print_table(const char* title, std::span<const registry::Entry> entries) {
    fmt::print("{}:\n", title);
    for (const auto& e : entries) {
        fmt::print("  {:<12} {}\n", e.name, e.help);
        for (const auto& p : e.params)
            fmt::print("      {:<28} default {:<10} {}\n", p.name, p.default_value, p.help);
    }
}

int cmd_list(const std::string& what) {
    if (what.empty() || what == "devices")
        print_table("devices", registry::device_models());
    if (what.empty() || what == "engines")
        print_table("engines", registry::io_engines());
    if (what.empty() || what == "schedulers") {
        print_table("schedulers", registry::schedulers());
        fmt::print("  mq-deadline iosched tunables (sysfs name, default, range):\n");
        const sched::MqDeadlineTunables defaults;
        for (const auto& t : sched::mq_deadline_tunables())
            fmt::print("      {:<34} default {:<8} {}..{}  {}\n", t.name, t.get(defaults), t.min, t.max, t.help);
    }
    if (!what.empty() && what != "devices" && what != "engines" && what != "schedulers") {
        fmt::print(stderr, "blksim: list: unknown kind '{}' (allowed: devices, engines, schedulers)\n", what);
        return 2;
    }
    return 0;
}

}  // namespace blksim::cli
