#include "tools/scenario/decode_state.h"

#include <algorithm>

namespace blksim::scenario {

namespace fs = std::filesystem;

size_t DecodeState::device_index(const std::string& name, const std::string& ptr) const {
    if (const auto it = device_by_name.find(name); it != device_by_name.end()) return it->second;
    rep.fail(ptr, "unknown device " + squote(name) + " (devices: " + device_names() + ")");
}

std::string DecodeState::device_names() const {
    std::vector<std::string> names;
    for (const auto& d : devices) names.push_back(d.name);
    return join(names);
}

sim::Duration parse_time_at(const json& value, const std::string& ptr, units::TimeUnit unit, const Reporter& rep) {
    try {
        return units::parse_time(value.is_string() ? value.get<std::string>() : value.dump(), unit);
    } catch (const units::ValueError& e) {
        rep.fail(ptr, e.what());
    }
}

fs::path profile_path(const LoadContext& ctx, const std::string& name, std::string_view folder) {
    if (name.ends_with(".json")) {
        const fs::path p(name);
        return p.is_absolute() ? p : ctx.scenario_dir / p;
    }
    return fs::path(ctx.base_dir) / folder / (name + ".json");
}

std::vector<std::string> profile_names(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace blksim::scenario
