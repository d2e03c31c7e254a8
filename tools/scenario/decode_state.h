// Decoding: validated JSON -> typed configs. The schema has checked types, enums and the
// ranges of JSON numbers; what is left to the decoders (one per section, decode.h) is fio's
// value syntax, defaults, references between sections and checks that involve more than one
// value. This is what they share.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/topology/machine_config.h"
#include "sim/time.h"
#include "tools/scenario/json_util.h"
#include "tools/scenario/units.h"

namespace blksim::scenario {

struct LoadContext {
    std::filesystem::path scenario_dir;  // for cost-profile paths relative to the scenario
    std::string base_dir;                // holds schema.json and cpu/
    bool fio_jobs = false;  // jobs from fio input: their ioscheduler= switches the machine's scheduler, as fio does
};

// The queue of each device, plus where its scheduler was chosen (for conflict messages).
struct QueueState {
    blkmq::QueueConfig config;
    std::string scheduler_ptr;  // /queues/i/scheduler or a job's ioscheduler; "" = default
};

// A device profile as devices use it: its model, its params as written and decoded alone.
struct DeviceProfile {
    std::string model;
    json params;
    dev::ModelParams alone;
};

// The document being decoded, where messages go, and what the sections decoded so far
// decided that later ones depend on (the host's CPUs, the devices and their queues).
struct DecodeState {
    DecodeState(const json& doc_, const Reporter& rep_, const LoadContext& ctx_, const json& schema_)
        : doc(doc_), rep(rep_), ctx(ctx_), schema(schema_) {}

    const json& doc;
    const Reporter& rep;
    const LoadContext& ctx;
    const json& schema;  // the scenario schema: profiles are checked against its definitions
    uint32_t nr_cpus = 1;
    std::vector<dev::DeviceConfig> devices;
    std::unordered_map<std::string, size_t> device_by_name;  // name -> index in devices
    std::vector<QueueState> queues;                           // one per device, in its order
    std::unordered_map<std::string, DeviceProfile> device_profiles;  // by path, read so far

    // The index of the device called name; refused at ptr when there is none.
    size_t device_index(const std::string& name, const std::string& ptr) const;
    // "nvme0n1, sda": for messages that list the devices.
    std::string device_names() const;
};

// A time in fio's value syntax ("10ms"; a bare number is in `unit`), refused at ptr if malformed.
sim::Duration parse_time_at(const json& value, const std::string& ptr, units::TimeUnit unit, const Reporter& rep);

// Where a named profile lives: "desktop-8t" -> <base_dir>/<folder>/desktop-8t.json; a name
// ending in .json is a path, relative to the scenario.
std::filesystem::path profile_path(const LoadContext& ctx, const std::string& name, std::string_view folder);

// The profiles in dir (the names of its .json files without extension), sorted.
std::vector<std::string> profile_names(const std::filesystem::path& dir);

}  // namespace blksim::scenario
