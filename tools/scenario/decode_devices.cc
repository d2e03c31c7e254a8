// /devices: each entry's model, its params (from a device profile and/or inline, read by
// device_params.cc) and, for a RAID volume, its member disks.
#include <filesystem>

#include "models/device/raid_controller.h"
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
    const ParamReader r{pp, "/params", prep, st.nr_cpus};
    if (model == "hdd") (void)decode_hdd(r);
    if (model == "sata_ssd") (void)decode_sata_ssd(r);
    if (model == "raid") (void)decode_raid(r);
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

// The disks behind a RAID controller: hdd or sata_ssd entries with profile and params.
std::vector<dev::RaidMember> decode_raid_members(const DecodeState& st, const json& list, const std::string& ptr,
                                                 const std::string& volume) {
    std::vector<dev::RaidMember> members;
    for (size_t i = 0; i < list.size(); ++i) {
        const json& m = list[i];
        const std::string at = child(ptr, i);
        dev::RaidMember mc;
        mc.name = m.value("name", volume + "-m" + std::to_string(i));
        const std::string model = m.at("model").get<std::string>();
        const json params = entry_params(st, m, at, model);
        const ParamReader r{params, child(at, "params"), st.rep, st.nr_cpus};
        if (model == "hdd") {
            mc.model = dev::DeviceModel::HDD;
            mc.hdd = decode_hdd(r);
        } else {
            mc.model = dev::DeviceModel::SATA_SSD;
            mc.sata_ssd = decode_sata_ssd(r);
        }
        members.push_back(std::move(mc));
    }
    return members;
}

// One branch per device model; each reads its own parameter struct.
void decode_model(const DecodeState& st, const json& d, const std::string& at, const std::string& model,
                  dev::DeviceConfig& cfg) {
    const json params = entry_params(st, d, at, model);
    const ParamReader r{params, child(at, "params"), st.rep, st.nr_cpus};
    if (model == "null_blk") {
        cfg.model = dev::DeviceModel::NULL_BLK;
        cfg.null_blk = decode_null_blk(r);
    } else if (model == "nvme") {
        cfg.model = dev::DeviceModel::NVME;
        cfg.nvme = decode_nvme(r);
    } else if (model == "hdd") {
        cfg.model = dev::DeviceModel::HDD;
        cfg.hdd = decode_hdd(r);
    } else if (model == "sata_ssd") {
        cfg.model = dev::DeviceModel::SATA_SSD;
        cfg.sata_ssd = decode_sata_ssd(r);
    } else if (model == "raid") {
        cfg.model = dev::DeviceModel::RAID;
        cfg.raid = decode_raid(r);
        cfg.raid.members = decode_raid_members(st, d.at("members"), child(at, "members"), cfg.name);
        if (const std::string err = dev::RaidController::check_config(cfg.raid); !err.empty())
            st.rep.fail(child(at, "params"), err);
    } else {
        st.rep.fail(child(at, "model"), "unknown device model " + squote(model));
    }
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
        decode_model(st, d, at, d.at("model").get<std::string>(), cfg);
        devices.push_back(std::move(cfg));
        // Queue defaults for every device; decode_queues() overrides them.
        st.queues.push_back({blkmq::QueueConfig{}, std::string()});
        st.queues.back().config.device = devices.back().name;
    }
    st.devices = devices;
    return devices;
}

uint64_t capacity_bytes(const dev::DeviceConfig& d) {
    switch (d.model) {
        case dev::DeviceModel::NULL_BLK: return d.null_blk.size_bytes;
        case dev::DeviceModel::NVME: return d.nvme.size_bytes;
        case dev::DeviceModel::HDD: return d.hdd.size_bytes / 512 * 512;
        case dev::DeviceModel::SATA_SSD: return d.sata_ssd.size_bytes / 512 * 512;
        case dev::DeviceModel::RAID: return dev::raid_capacity_sectors(d.raid) * 512;
    }
    return 0;
}

uint64_t logical_block_size(const dev::DeviceConfig& d) {
    switch (d.model) {
        case dev::DeviceModel::NULL_BLK: return d.null_blk.blocksize;
        case dev::DeviceModel::NVME: return d.nvme.blocksize;
        case dev::DeviceModel::HDD: return d.hdd.blocksize;
        case dev::DeviceModel::SATA_SSD: return d.sata_ssd.blocksize;
        case dev::DeviceModel::RAID: return d.raid.blocksize;
    }
    return 512;
}

}  // namespace blksim::scenario
