// The scenario schema's per-kind parts, generated from the kinds' descriptors: each device
// model's params object, the device and RAID member model choices, the schedulers a queue
// or a fio job may name, the I/O engines a fio job may name, the output formats (in
// output.format's description: a comma-separated list is no enum). scenarios/schema.json holds the
// rest (the skeleton); the loader merges these into it, so that the schema cannot drift from
// the models.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace blksim::dev {
class DeviceKind;
}

namespace blksim::scenario {

// Adds the generated parts to `schema` (scenarios/schema.json as read).
void merge_kind_schemas(nlohmann::json& schema);

// One device model's params object ("definitions/<model>_params").
nlohmann::json device_params_schema(const dev::DeviceKind& kind);

// "a, b or c" (last = " or "), "a, b and c".
std::string join_words(const std::vector<std::string>& names, std::string_view last);

}  // namespace blksim::scenario
