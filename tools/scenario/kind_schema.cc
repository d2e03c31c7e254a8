#include "tools/scenario/kind_schema.h"

#include "models/device/device_kinds.h"
#include "models/kind/param.h"
#include "models/report/output_format.h"
#include "models/sched/scheduler_kinds.h"
#include "models/workload/engine_kinds.h"

namespace blksim::scenario {

using json = nlohmann::json;

std::string join_words(const std::vector<std::string>& names, std::string_view last) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? last : ", ";
        out += names[i];
    }
    return out;
}

namespace {

json param_schema(const kind::ParamInfo& p, const std::string& default_text) {
    json s = {{"description", kind::help_text(p, default_text)}};
    const auto range = [&] {
        if (p.min != kind::kNoMin) s["minimum"] = p.min;
        if (p.max != kind::kNoMax) s["maximum"] = p.max;
    };
    switch (p.type) {
    case kind::ParamType::INT:
    case kind::ParamType::CHOICE:
        if (!p.names.empty()) {
            s["enum"] = json::array();
            for (const auto n : p.names) s["enum"].push_back(n);
            break;
        }
        s["type"] = "integer";
        if (!p.values.empty()) s["enum"] = json(std::vector<int64_t>(p.values.begin(), p.values.end()));
        else range();
        break;
    case kind::ParamType::FLAG:
        s["type"] = {"integer", "boolean"};
        s["enum"] = {0, 1, true, false};
        break;
    case kind::ParamType::TIME:
        s["type"] = {"integer", "string"};
        if (p.min != kind::kNoMin) s["minimum"] = p.min;
        break;
    case kind::ParamType::NUMBER:
        s["type"] = "number";
        range();
        break;
    case kind::ParamType::OBJECT:
        s["type"] = "object";
        break;
    }
    return s;
}

json params_ref(std::string_view model) {
    return {{"properties", {{"params", {{"$ref", "#/definitions/" + std::string(model) + "_params"}}}}}};
}

json model_is(std::string_view model) { return {{"properties", {{"model", {{"const", model}}}}}}; }

}  // namespace

json device_params_schema(const dev::DeviceKind& kind) {
    json props = json::object();
    for (std::size_t i = 0; i < kind.nr_params(); ++i)
        props[std::string(kind.param(i).name)] = param_schema(kind.param(i), kind.default_text(i));
    return {{"description", kind.params_help()},
            {"type", "object"},
            {"additionalProperties", false},
            {"properties", props}};
}

void merge_kind_schemas(json& schema) {
    json& defs = schema["definitions"];
    std::vector<std::string> models, members;
    json device_rules = json::array(), member_rules = json::array();
    for (const dev::DeviceKind* k : dev::device_kinds()) {
        const std::string name(k->name());
        models.push_back(name);
        defs[name + "_params"] = device_params_schema(*k);
        if (k->has_members()) {
            // A composite needs its members; no other device may have any.
            json rule = {{"if", model_is(name)}, {"then", params_ref(name)}};
            rule["if"]["required"] = {"model"};
            rule["then"]["required"] = {"members"};
            rule["else"] = {{"not", {{"required", {"members"}}}}};
            device_rules.push_back(rule);
        } else {
            device_rules.push_back({{"if", model_is(name)}, {"then", params_ref(name)}});
        }
        if (k->may_be_member()) {
            members.push_back(name);
            member_rules.push_back({{"if", model_is(name)}, {"then", params_ref(name)}});
        }
    }
    json& device = defs["device"];
    device["properties"]["model"] = {{"description", "Device model: " + join_words(models, " or ") + "."}, {"enum", models}};
    device["allOf"] = device_rules;
    json& member = defs["raid_member"];
    member["properties"]["model"] = {{"description", join_words(members, " or ") + "."}, {"enum", members}};
    member["allOf"] = member_rules;

    std::vector<std::string> schedulers;
    for (const sched::SchedulerKind* k : sched::scheduler_kinds()) schedulers.emplace_back(k->name());
    defs["queue"]["properties"]["scheduler"] = {
        {"description", "I/O scheduler (elevator): " + join_words(schedulers, " or ") + ". Default none."}, {"enum", schedulers}};
    defs["fio_options"]["properties"]["ioscheduler"]["enum"] = schedulers;
    std::vector<std::string> engines;
    for (const workload::EngineName& n : workload::engine_names()) engines.emplace_back(n.name);
    defs["fio_options"]["properties"]["ioengine"]["enum"] = engines;
    std::vector<std::string> formats;
    for (const report::OutputFormat* f : report::output_formats())
        formats.push_back(std::string(f->name) + " (" + std::string(f->help) + ")");
    defs["output"]["properties"]["format"]["description"] =
        "fio output format: " + join_words(formats, ", ") + ", or a comma-separated list of them as fio takes it (normal,terse).";
}

}  // namespace blksim::scenario
