// `blksim list`: the device models, I/O engines, schedulers, output formats, CPU cost profiles
// and shipped scenarios a scenario can name, with their parameters, from the kinds' own
// descriptors and the files under scenarios/ (nothing here names a kind). Each section is
// gathered once as JSON; --format json prints that, normal prints it as text.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/device/device_kinds.h"
#include "models/kind/param.h"
#include "models/report/output_format.h"
#include "models/sched/scheduler_kinds.h"
#include "models/workload/engine_kinds.h"
#include "tools/blksim/commands.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/schema_check.h"

namespace blksim::cli {

using json = nlohmann::json;

namespace {

// The scenario folders `list scenarios` shows, in this order.
constexpr const char* kScenarioFolders[] = {"examples", "teaching", "seeds", "bench"};

json files_json(const std::vector<scenario::DeviceProfileInfo>& files, bool with_model) {
    json out = json::array();
    for (const auto& f : files) {
        json e{{"name", f.name}, {"description", f.description}};
        if (with_model)
            e["model"] = f.model;
        out.push_back(std::move(e));
    }
    return out;
}

json devices_json() {
    json models = json::array();
    for (const dev::DeviceKind* k : dev::device_kinds()) {
        json params = json::array();
        for (std::size_t i = 0; i < k->nr_params(); ++i) {
            const kind::ParamInfo& p = k->param(i);
            const std::string def = k->default_text(i);
            params.push_back({{"name", p.name}, {"default", def}, {"help", kind::first_sentence(kind::help_text(p, def))}});
        }
        models.push_back({{"name", k->name()}, {"help", k->help()}, {"params", params}, {"members", k->has_members()}});
    }
    return {{"models", models}, {"profiles", files_json(scenario::device_profiles(), true)}};
}

json engines_json() {
    json out = json::array();
    for (const workload::EngineKind* e : workload::engine_kinds()) {
        json options = json::array();
        for (const auto& o : e->options)
            options.push_back({{"name", o.name}, {"default", o.default_value}, {"help", o.help}});
        out.push_back({{"name", e->name}, {"help", e->help}, {"options", options}});
    }
    return out;
}

json schedulers_json() {
    json out = json::array();
    for (const sched::SchedulerKind* k : sched::scheduler_kinds()) {
        json tunables = json::array();
        for (std::size_t i = 0; i < k->nr_tunables(); ++i) {
            const sched::TunableInfo t = k->tunable(i);
            tunables.push_back({{"name", t.name}, {"default", k->default_value(i)}, {"min", t.min}, {"max", t.max},
                                {"help", t.help}});
        }
        out.push_back({{"name", k->name()}, {"help", k->help()}, {"tunables", tunables}});
    }
    return out;
}

json scenarios_json() {
    json out = json::object();
    for (const char* folder : kScenarioFolders)
        out[folder] = files_json(scenario::shipped_files(folder, "description"), false);
    return out;
}

std::string text(const json& j, const char* key) { return j.at(key).get<std::string>(); }

void print_devices(const json& d) {
    fmt::print("devices:\n");
    for (const json& k : d["models"]) {
        fmt::print("  {:<12} {}\n", text(k, "name"), text(k, "help"));
        for (const json& p : k["params"])
            fmt::print("      {:<28} default {:<10} {}\n", text(p, "name"), text(p, "default"), text(p, "help"));
        if (k["members"].get<bool>())
            fmt::print("      {:<28} {:<18} {}\n", "members", "",
                       "the disks behind it, a key of the device entry beside params");
    }
    fmt::print("  device profiles (scenarios/devices/, a device entry's \"profile\"):\n");
    for (const json& p : d["profiles"])
        fmt::print("      {:<28} {:<10} {}\n", text(p, "name"), text(p, "model"), text(p, "description"));
}

void print_engines(const json& engines) {
    fmt::print("engines:\n");
    for (const json& e : engines) {
        fmt::print("  {:<12} {}\n", text(e, "name"), text(e, "help"));
        for (const json& o : e["options"])
            fmt::print("      {:<28} default {:<10} {}\n", text(o, "name"), text(o, "default"), text(o, "help"));
    }
}

void print_schedulers(const json& schedulers) {
    fmt::print("schedulers:\n");
    for (const json& k : schedulers)
        fmt::print("  {:<12} {}\n", text(k, "name"), text(k, "help"));
    for (const json& k : schedulers) {
        if (k["tunables"].empty())
            continue;
        fmt::print("  {} iosched tunables (sysfs name, default, range):\n", text(k, "name"));
        for (const json& t : k["tunables"])
            fmt::print("      {:<34} default {:<8} {}..{}  {}\n", text(t, "name"), t["default"].get<int64_t>(),
                       t["min"].get<int64_t>(), t["max"].get<int64_t>(), text(t, "help"));
    }
}

void print_cpu_profiles(const json& profiles) {
    fmt::print("cpu profiles (scenarios/cpu/, host.cost_profile):\n");
    for (const json& p : profiles)
        fmt::print("  {:<26} {}\n", text(p, "name"), kind::first_sentence(text(p, "description")));
}

void print_scenarios(const json& folders) {
    fmt::print("scenarios (blksim run scenarios/<folder>/<name>.json):\n");
    for (const char* folder : kScenarioFolders) {
        fmt::print("  {}/:\n", folder);
        for (const json& s : folders[folder])
            fmt::print("      {:<40} {}\n", text(s, "name"), kind::first_sentence(text(s, "description")));
    }
}

json formats_json() {
    json out = json::array();
    for (const report::OutputFormat* f : report::output_formats())
        out.push_back({{"name", f->name}, {"help", f->help}});
    return out;
}

void print_formats(const json& formats) {
    fmt::print("output formats (--output-format, a scenario's output.format; a comma-separated list prints each):\n");
    for (const json& f : formats)
        fmt::print("  {:<12} {}\n", text(f, "name"), text(f, "help"));
}

json cpu_profiles_json() { return files_json(scenario::shipped_files("cpu", "source"), false); }

// The sections of `blksim list`, in the order they print: the kind a user names, the section's
// key in --format json, how it is gathered and how it prints as text.
struct ListSection {
    const char* kind;
    const char* key;
    json (*gather)();
    void (*print)(const json&);
};
const ListSection kSections[] = {
    {"devices", "devices", devices_json, print_devices},
    {"engines", "engines", engines_json, print_engines},
    {"schedulers", "schedulers", schedulers_json, print_schedulers},
    {"formats", "formats", formats_json, print_formats},
    {"cpu", "cpu_profiles", cpu_profiles_json, print_cpu_profiles},
    {"scenarios", "scenarios", scenarios_json, print_scenarios},
};

}  // namespace

int cmd_list(const std::string& what, const std::string& format) {
    if (what == "schema") {
        // The schema the loader checks scenarios against: scenarios/schema.json with the
        // per-kind parts generated from the descriptors (fuzz/gen_dicts.py reads it).
        fmt::print("{}\n", scenario::load_schema_document(scenario::default_scenario_dir()).dump(2));
        return 0;
    }
    if (!what.empty() && std::none_of(std::begin(kSections), std::end(kSections),
                                      [&](const ListSection& sec) { return what == sec.kind; })) {
        std::string allowed;
        for (const ListSection& sec : kSections)
            allowed += std::string(sec.kind) + ", ";
        fmt::print(stderr, "blksim: list: unknown kind '{}' (allowed: {}schema)\n", what, allowed);
        return 2;
    }
    json all = json::object();
    for (const ListSection& sec : kSections)
        if (what.empty() || what == sec.kind)
            all[sec.key] = sec.gather();
    if (format == "json") {
        fmt::print("{}\n", all.dump(2));
        return 0;
    }
    for (const ListSection& sec : kSections)
        if (all.contains(sec.key))
            sec.print(all[sec.key]);
    return 0;
}

}  // namespace blksim::cli
