// /devices: each entry's model, its params (from a device profile and/or inline, read by
// device_params.cc through the model's table) and, for a composite (a RAID volume), its
// member disks.
#include <filesystem>

#include "models/device/device_kinds.h"
#include "tools/scenario/decode.h"
#include "tools/scenario/device_params.h"
#include "tools/scenario/schema_check.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

// Loads a device profile (<base_dir>/devices/<name>.json, or a path ending in .json
// relative to the scenario), checks it against the schema and its model against the
// device's, decodes its params alone (so that its errors name the profile file), and
// returns them overridden by the entry's own params.
json with_device_profile(const DecodeState& st, const std::string& name, const std::string& model,
                         const std::string& ptr, const json& params) {
    const fs::path path = profile_path(st.ctx, name, "devices");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
        const std::vector<std::string> names = profile_names(fs::path(st.ctx.base_dir) / "devices");
        st.rep.fail(ptr, "device profile " + squote(name) + " not found (no file " + path.string() + ")" +
                         (names.empty() ? "" : "; available: " + join(names)));
    }
    const Reporter prep(path.string());
    const json profile = parse_json(read_text_file(path, prep, "device profile"), prep);
    SchemaChecker(definition_schema(st.schema, "device_profile_file"), path.string()).check(profile, prep);
    const std::string pmodel = profile.at("model").get<std::string>();
    if (pmodel != model)
        st.rep.fail(ptr, "profile " + squote(name) + " describes a " + pmodel + " device, not " + model);
    const json& pp = profile.at("params");
    dev::ModelParams alone = dev::find_device_kind(model)->defaults();
    decode_device_params(pp, "/params", prep, st.nr_cpus, alone);
    json merged = pp;
    for (const auto& [key, value] : params.items()) merged[key] = value;
    return merged;
}

// An entry's params: its profile's, overridden by its own.
json entry_params(const DecodeState& st, const json& entry, const std::string& at, const std::string& model) {
    json params = entry.value("params", json::object());
    // A named profile (scenarios/devices/<name>.json) gives the model's parameters;
    // the entry's own params override it key by key.
    if (entry.contains("profile"))
        params = with_device_profile(st, entry["profile"].get<std::string>(), model, child(at, "profile"), params);
    return params;
}

// One device's model and params (from its profile and/or inline); for a composite (a RAID
// volume), its members, each decoded the same way.
dev::ModelParams decode_model(const DecodeState& st, const json& d, const std::string& at, const std::string& name) {
    const std::string model = d.at("model").get<std::string>();
    const dev::DeviceKind* kind = dev::find_device_kind(model);
    if (kind == nullptr) st.rep.fail(child(at, "model"), "unknown device model " + squote(model));
    dev::ModelParams p = kind->defaults();
    decode_device_params(entry_params(st, d, at, model), child(at, "params"), st.rep, st.nr_cpus, p);
    if (!kind->has_members()) return p;
    const json& list = d.at("members");
    for (size_t i = 0; i < list.size(); ++i) {
        const json& m = list[i];
        const std::string mat = child(child(at, "members"), i);
        kind->add_member(p, m.value("name", name + "-m" + std::to_string(i)), decode_model(st, m, mat, name));
    }
    if (const std::string err = kind->check_complete(p); !err.empty()) st.rep.fail(child(at, "params"), err);
    return p;
}

}  // namespace

std::vector<dev::DeviceConfig> decode_devices(DecodeState& st, const json& list, const std::string& ptr) {
    std::vector<dev::DeviceConfig> devices;
    st.device_by_name.clear();
    for (size_t i = 0; i < list.size(); ++i) {
        const json& d = list[i];
        const std::string at = child(ptr, i);
        dev::DeviceConfig cfg;
        cfg.name = d.at("name").get<std::string>();
        cfg.controller = d.value("controller", std::string());
        if (const auto [it, fresh] = st.device_by_name.emplace(cfg.name, i); !fresh)
            st.rep.fail(child(at, "name"), "duplicate device name " + squote(cfg.name) + " (also " + child(ptr, it->second) + ")");
        cfg.model = decode_model(st, d, at, cfg.name);
        devices.push_back(std::move(cfg));
        // Queue defaults for every device; decode_queues() overrides them.
        st.queues.push_back({blkmq::QueueConfig{}, std::string()});
        st.queues.back().config.device = devices.back().name;
    }
    st.devices = devices;
    return devices;
}

uint64_t capacity_bytes(const dev::DeviceConfig& d) { return d.kind().geometry(d.model).capacity_bytes; }

uint64_t logical_block_size(const dev::DeviceConfig& d) { return d.kind().geometry(d.model).logical_block_size; }

}  // namespace blksim::scenario
