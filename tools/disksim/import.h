// DiskSim drive descriptions -> a blksim HDD profile (scenarios/devices/<drive>.json).
//
// NAME.diskspecs (disksim_disk: controller, cache, overheads) names its NAME.model
// (dm_disk: geometry, zones, mechanics), which names its seek table (NAME.seek). What each
// parameter becomes, and what is approximated or ignored: docs/disksim.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "models/device/hdd_config.h"

namespace blksim::disksim {

// The profile JSON for the drive described by `diskspecs_path` (its .model and .seek are
// found beside it). DisksimError (file:line: what) on anything it cannot represent.
nlohmann::json import_diskspecs(const std::string& diskspecs_path);

// A profile's params (as import_diskspecs writes them, "measured" included) -> the HDD
// model's config. `file` names the profile in messages; DisksimError with the JSON path of
// the offending value.
dev::HddConfig hdd_config_from_profile(const nlohmann::json& profile, const std::string& file);

// The "measured" object of an HDD profile's params (a measured drive: layout, seek table,
// cache and overheads) applied to `c`; `ptr` is its JSON path for messages. Used by the
// profile reader below and by the scenario loader (tools/scenario/device_params.cc).
void apply_measured(const nlohmann::json& measured, const std::string& file, const std::string& ptr, dev::HddConfig& c);

// Reads a profile file (or scenarios/devices/NAME.json for a bare NAME, looked up in
// `devices_dir`) and decodes it.
struct LoadedProfile {
    std::string name, path;
    dev::HddConfig cfg;
};
LoadedProfile load_hdd_profile(const std::string& name_or_path, const std::string& devices_dir);

}  // namespace blksim::disksim
