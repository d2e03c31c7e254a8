// The scenario loader: a JSON scenario file (scenarios/schema.json describes it) becomes the
// typed config structs the models are built from. This is the one place that reads JSON.
//
// Steps: parse the JSON, apply the --set overrides, validate against the JSON Schema, then
// decode (fio value syntax, defaults, references between sections, cross-field checks).
// Every error is a ScenarioError whose message starts with the file and the JSON path of
// the offending value: "scen.json: /jobs/0/bs: ...".
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/topology/machine_config.h"

namespace blksim::scenario {

struct OutputConfig {
    enum class Format { NORMAL, JSON } format = Format::NORMAL;
    bool group_reporting = false;
};

struct Scenario {
    std::string path;
    std::string description;
    topology::MachineConfig machine;
    OutputConfig output;
};

class ScenarioError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;  // message already names file + JSON path
};

// Where the schema (schema.json) and the CPU cost profiles (cpu/<name>.json) live by
// default: BLKSIM_SCENARIO_DIR as the loader library was compiled with, else "scenarios".
std::string default_scenario_dir();

// sets: CLI overrides "path=value", the path dotted with array indexes
// ("jobs.0.iodepth=16", "host.cpus=4"); the value is JSON if it parses as JSON, else a
// string. A key that does not exist is created when its parent object exists.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets = {},
                       const std::string& base_dir = default_scenario_dir());

// As load_scenario, from text. path_for_messages names the text in errors, and its
// directory is where relative cost-profile paths ("my-cpu.json") are looked up.
Scenario load_scenario_text(std::string_view text, const std::string& path_for_messages,
                            const std::vector<std::string>& sets = {},
                            const std::string& base_dir = default_scenario_dir());

// The names the loader accepts, for `blksim list` and for tests that keep the schema's
// enums in step with the decoder.
std::vector<std::string> supported_fio_options();
std::vector<std::string> supported_schedulers();

}  // namespace blksim::scenario
