#include "tools/scenario/device_params.h"

#include <algorithm>
#include <stdexcept>

#include "models/device/hdd_config.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/scenario/scenario.h"

namespace blksim::scenario {

namespace {

// A parameter of type OBJECT is a description the loader interprets: the HDD's `measured`
// drive (docs/disksim.md), read by tools/disksim.
void apply_object(const kind::ParamInfo& p, const json& v, const std::string& at, const Reporter& rep,
                  dev::ModelParams& out) {
    auto* hdd = out.get<dev::HddConfig>();
    if (hdd == nullptr || p.name != "measured")
        throw std::logic_error("no reader for the object parameter " + std::string(p.name));
    try {
        disksim::apply_measured(v, rep.file(), at, *hdd);
    } catch (const disksim::DisksimError& e) {
        throw ScenarioError(e.what());
    }
}

// The schema has checked the value's JSON type, range and choices.
kind::Value read_value(const kind::ParamInfo& p, const json& v, const std::string& at, const Reporter& rep) {
    switch (p.type) {
    case kind::ParamType::FLAG: return read_flag(v);
    case kind::ParamType::TIME: return parse_time_at(v, at, units::TimeUnit::NSEC, rep);
    case kind::ParamType::NUMBER: return v.get<double>();
    case kind::ParamType::CHOICE:
        if (!p.names.empty()) {
            const auto name = v.get<std::string>();
            return static_cast<int64_t>(std::find(p.names.begin(), p.names.end(), name) - p.names.begin());
        }
        return v.get<int64_t>();
    case kind::ParamType::INT:
    case kind::ParamType::OBJECT: break;
    }
    return v.get<int64_t>();
}

}  // namespace

bool read_flag(const json& v) { return v.is_boolean() ? v.get<bool>() : v.get<int>() != 0; }

void decode_device_params(const json& params, const std::string& ptr, const Reporter& rep, uint32_t nr_cpus,
                          dev::ModelParams& out) {
    const dev::DeviceKind& k = out.kind();
    for (std::size_t i = 0; i < k.nr_params(); ++i) {
        const kind::ParamInfo& p = k.param(i);
        const std::string key(p.name);
        if (!params.contains(key)) continue;
        const std::string at = child(ptr, key);
        if (p.type == kind::ParamType::OBJECT)
            apply_object(p, params[key], at, rep, out);
        else
            k.set(out, i, read_value(p, params[key], at, rep));
    }
    if (const kind::Problem pr = k.validate(out, nr_cpus)) {
        const std::string& key = pr.key_if_absent.empty() || params.contains(pr.key) ? pr.key : pr.key_if_absent;
        rep.fail(key.empty() ? ptr : child(ptr, key), pr.message);
    }
}

}  // namespace blksim::scenario
