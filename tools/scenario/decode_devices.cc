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

// A device profile (<base_dir>/devices/<name>.json, or a path ending in .json relative to
// the scenario), read, checked against the schema and its params decoded alone (so that
// their errors name the profile file) the first time a device names it; a machine of a
// thousand drives of one profile reads it once. Its model must be the device's.
const DeviceProfile& device_profile(DecodeState& st, const std::string& name, const std::string& model,
                                    const std::string& ptr) {
    const fs::path path = profile_path(st.ctx, name, "devices");
    auto it = st.device_profiles.find(path.string());
    if (it == st.device_profiles.end()) {
        std::error_code ec;
        if (!fs::is_regular_file(path, ec)) {
            const std::vector<std::string> names = profile_names(fs::path(st.ctx.base_dir) / "devices");
            st.rep.fail(ptr, "device profile " + squote(name) + " not found (no file " + path.string() + ")" +
                             (names.empty() ? "" : "; available: " + join(names)));
        }
        const Reporter prep(path.string());
        json profile = parse_json(read_text_file(path, prep, "device profile"), prep);
        SchemaChecker(definition_schema(st.schema, "device_profile_file"), path.string()).check(profile, prep);
        DeviceProfile p;
        p.model = profile.at("model").get<std::string>();
        p.params = std::move(profile.at("params"));
        if (p.model == model) {  // else refused below, before anything is decoded
            p.alone = dev::find_device_kind(model)->defaults();
            decode_device_params(p.params, "/params", prep, st.nr_cpus, p.alone);
        }
        it = st.device_profiles.emplace(path.string(), std::move(p)).first;
    }
    if (it->second.model != model)
        st.rep.fail(ptr, "profile " + squote(name) + " describes a " + it->second.model + " device, not " + model);
    return it->second;
}

// An entry's params (from its profile, overridden key by key by its own), decoded into p.
void decode_entry_params(DecodeState& st, const json& entry, const std::string& at, const std::string& model,
                         dev::ModelParams& p) {
    json params = entry.value("params", json::object());
    if (entry.contains("profile")) {
        const DeviceProfile& prof = device_profile(st, entry["profile"].get<std::string>(), model, child(at, "profile"));
        if (params.empty()) {  // the profile's params as they are, decoded already
            p = prof.alone;
            return;
        }
        json merged = prof.params;
        for (const auto& [key, value] : params.items()) merged[key] = value;
        params = std::move(merged);
    }
    decode_device_params(params, child(at, "params"), st.rep, st.nr_cpus, p);
}

// One device's model and params (from its profile and/or inline); for a composite (a RAID
// volume), its members, each decoded the same way.
dev::ModelParams decode_model(DecodeState& st, const json& d, const std::string& at, const std::string& name) {
    const std::string model = d.at("model").get<std::string>();
    const dev::DeviceKind* kind = dev::find_device_kind(model);
    if (kind == nullptr) st.rep.fail(child(at, "model"), "unknown device model " + squote(model));
    dev::ModelParams p = kind->defaults();
    decode_entry_params(st, d, at, model, p);
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
