#include "tools/scenario/fio_machine.h"

#include <algorithm>
#include <filesystem>

#include "tools/scenario/decode_state.h"
#include "tools/scenario/scenario.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

// The machines `blksim fio --device NAME` knows without a scenario file.
struct BuiltinMachine {
    std::string_view name, aliases, help;
    std::string_view device, model;
};
constexpr BuiltinMachine kBuiltinMachines[] = {
    {"nullb", "nullb0,null_blk", "null_blk with the kernel's defaults (modprobe null_blk) on the desktop-8t host",
     "nullb0", "null_blk"},
    {"nvme", "nvme0n1", "blksim's NVMe SSD model with its defaults on the desktop-8t host", "nvme0n1", "nvme"},
};
constexpr std::string_view kFioHost = "desktop-8t";  // the host of a built-in machine or device profile

}  // namespace

// The scenario document for --device: a scenario file, a device profile or a built-in machine.
json fio_machine(const std::string& device, const std::string& base_dir, std::string& path) {
    path = device;
    const bool is_path = device.ends_with(".json") || device.find('/') != std::string::npos;
    if (is_path) {
        const Reporter rep(device);
        return parse_json(read_text_file(device, rep, "scenario"), rep);
    }
    const json host = json{{"cost_profile", kFioHost}};
    for (const BuiltinMachine& m : kBuiltinMachines) {
        bool match = m.name == device;
        for (std::string_view list = m.aliases; !match && !list.empty();) {
            const size_t comma = list.find(',');
            match = list.substr(0, comma) == device;
            list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        }
        if (match)
            return json{{"host", host}, {"devices", json::array({json{{"name", m.device}, {"model", m.model}}})}};
    }
    const fs::path profile = fs::path(base_dir) / "devices" / (device + ".json");
    std::error_code ec;
    if (fs::is_regular_file(profile, ec)) {
        const Reporter rep(profile.string());
        const json p = parse_json(read_text_file(profile, rep, "device profile"), rep);
        if (!p.is_object() || !p.contains("model") || !p["model"].is_string())
            rep.fail_file("a device profile needs a \"model\"");
        // The kernel's name for a disk of that kind.
        const std::string model = p["model"].get<std::string>();
        const std::string name = model == "nvme" ? "nvme0n1" : model == "null_blk" ? "nullb0" : "sda";
        path = profile.string();
        return json{{"host", host},
                    {"devices", json::array({json{{"name", name}, {"model", model}, {"profile", device}}})}};
    }
    throw ScenarioError("--device " + squote(device) + ": not a scenario file (a path ending in .json), a device profile "
                        "(" + (fs::path(base_dir) / "devices").string() + "/<name>.json) or a built-in machine; known: " +
                        join(fio_devices(base_dir)));
}

json diskless_machine(std::string& path) {
    path = "blksim fio (no --device)";
    const BuiltinMachine& m = kBuiltinMachines[0];
    return json{{"host", json{{"cost_profile", kFioHost}}},
                {"devices", json::array({json{{"name", m.device}, {"model", m.model}}})}};
}

std::vector<std::string> fio_devices(const std::string& base_dir) {
    std::vector<std::string> names;
    for (const BuiltinMachine& m : kBuiltinMachines) names.emplace_back(m.name);
    const std::vector<std::string> profiles = profile_names(fs::path(base_dir) / "devices");
    names.insert(names.end(), profiles.begin(), profiles.end());
    return names;
}

std::vector<DeviceProfileInfo> device_profiles(const std::string& base_dir) {
    return shipped_files("devices", "description", base_dir);
}

std::vector<DeviceProfileInfo> shipped_files(const std::string& folder, const std::string& text_key,
                                             const std::string& base_dir) {
    std::vector<DeviceProfileInfo> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(base_dir) / folder, ec)) {
        if (entry.path().extension() != ".json") continue;
        const Reporter rep(entry.path().string());
        const json p = parse_json(read_text_file(entry.path(), rep, "shipped file"), rep);
        out.push_back({entry.path().stem().string(), p.is_object() ? p.value("model", std::string("?")) : "?",
                       p.is_object() ? p.value(text_key, std::string()) : ""});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

}  // namespace blksim::scenario
