// `blksim list`: the device models, I/O engines, schedulers and output formats a scenario can name, with
// their parameters, printed from the kinds' own descriptors (nothing here names a kind).
#include <fmt/format.h>

#include "models/device/device_kinds.h"
#include "models/kind/param.h"
#include "models/report/output_format.h"
#include "models/sched/scheduler_kinds.h"
#include "models/workload/engine_kinds.h"
#include "tools/blksim/commands.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/schema_check.h"

namespace blksim::cli {

static void list_devices() {
    fmt::print("devices:\n");
    for (const dev::DeviceKind* k : dev::device_kinds()) {
        fmt::print("  {:<12} {}\n", k->name(), k->help());
        for (std::size_t i = 0; i < k->nr_params(); ++i) {
            const kind::ParamInfo& p = k->param(i);
            const std::string def = k->default_text(i);
            fmt::print("      {:<28} default {:<10} {}\n", p.name, def, kind::first_sentence(kind::help_text(p, def)));
        }
        if (k->has_members())
            fmt::print("      {:<28} {:<18} {}\n", "members", "",
                       "the disks behind it, a key of the device entry beside params");
    }
    fmt::print("  device profiles (scenarios/devices/, a device entry's \"profile\"):\n");
    for (const auto& p : scenario::device_profiles())
        fmt::print("      {:<28} {:<10} {}\n", p.name, p.model, p.description);
}

static void list_engines() {
    fmt::print("engines:\n");
    for (const workload::EngineKind* e : workload::engine_kinds()) {
        fmt::print("  {:<12} {}\n", e->name, e->help);
        for (const auto& o : e->options)
            fmt::print("      {:<28} default {:<10} {}\n", o.name, o.default_value, o.help);
    }
}

static void list_schedulers() {
    fmt::print("schedulers:\n");
    for (const sched::SchedulerKind* k : sched::scheduler_kinds())
        fmt::print("  {:<12} {}\n", k->name(), k->help());
    for (const sched::SchedulerKind* k : sched::scheduler_kinds()) {
        if (k->nr_tunables() == 0)
            continue;
        fmt::print("  {} iosched tunables (sysfs name, default, range):\n", k->name());
        for (std::size_t i = 0; i < k->nr_tunables(); ++i) {
            const sched::TunableInfo t = k->tunable(i);
            fmt::print("      {:<34} default {:<8} {}..{}  {}\n", t.name, k->default_value(i), t.min, t.max, t.help);
        }
    }
}

static void list_formats() {
    fmt::print("output formats (--output-format, a scenario's output.format; a comma-separated list prints each):\n");
    for (const report::OutputFormat* f : report::output_formats())
        fmt::print("  {:<12} {}\n", f->name, f->help);
}

int cmd_list(const std::string& what) {
    if (what == "schema") {
        // The schema the loader checks scenarios against: scenarios/schema.json with the
        // per-kind parts generated from the descriptors (fuzz/gen_dicts.py reads it).
        fmt::print("{}\n", scenario::load_schema_document(scenario::default_scenario_dir()).dump(2));
        return 0;
    }
    if (!what.empty() && what != "devices" && what != "engines" && what != "schedulers" && what != "formats") {
        fmt::print(stderr, "blksim: list: unknown kind '{}' (allowed: devices, engines, schedulers, formats, schema)\n",
                   what);
        return 2;
    }
    if (what.empty() || what == "devices") list_devices();
    if (what.empty() || what == "engines") list_engines();
    if (what.empty() || what == "schedulers") list_schedulers();
    if (what.empty() || what == "formats") list_formats();
    return 0;
}

}  // namespace blksim::cli
