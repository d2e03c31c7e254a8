// The scenario loader: a JSON scenario file (scenarios/schema.json describes it) becomes the
// typed config structs the models are built from. This is the one place that reads JSON.
//
// Steps: parse the JSON, apply the --set overrides, validate against the JSON Schema, then
// decode (fio value syntax, defaults, references between sections, cross-field checks).
// Every error is a ScenarioError whose message starts with the file and the JSON path of
// the offending value: "scen.json: /jobs/0/bs: ...".
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/topology/machine_config.h"

namespace blksim::scenario {

struct OutputConfig {
    // fio's --output-format as given: one format or a comma-separated list ("normal,terse");
    // report::parse_output_formats() reads it.
    std::string formats = "normal";
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
// default: scenarios/ in blksim's data folder (data_dir.h).
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

// --- fio input (tools/scenario/fio_job.h reads it; the jobs it gives go through the same
// decoder as a JSON scenario's jobs, and errors name the job file and line instead of a
// JSON path: "job.fio:12: bs=1000: block size 1000 is not a multiple of 512").
//
// Each fio option is modelled (the job config takes it), ignored (it cannot change what a
// simulation shows: filename, thread, lockmem, ...), or not supported: those are listed in
// one message, a warning (the job runs without them) or, with strict, an error. An
// unsupported value of ioengine, rw or ioscheduler is always an error, and so is an option
// fio does not know (a misspelling, with "did you mean").

struct FioPolicy {
    bool strict = false;                              // unsupported options are an error
    std::vector<std::string>* warnings = nullptr;     // receives warnings and notes, if given
    // ${VAR} in job files; default: the process environment.
    std::function<std::optional<std::string>(const std::string&)> getenv;
};

// `blksim fio`: a fio command line (job options and/or job files, as after "fio") run on the
// machine of `device`: a scenario file (its jobs are replaced) or a device name (see
// fio_devices()). scheduler, when not empty, is every queue's scheduler and overrides the
// jobs' ioscheduler=. sets apply to the machine, and to the jobs as "jobs.N.option".
struct FioCommand {
    std::string device;
    std::string scheduler;
    std::vector<std::string> fio_args;
    std::vector<std::string> sets;
    FioPolicy policy;
};
struct FioRun {
    Scenario scenario;              // output.format from fio's --output-format / --minimal
    bool parse_only = false;        // fio --parse-only: check, do not run
    std::string output_file;        // fio --output=FILE ("" = stdout)
};
FioRun load_fio_command(const FioCommand& cmd, const std::string& base_dir = default_scenario_dir());

// As load_scenario, with the policy for a scenario whose jobs come from a fio job file
// ("fio": "path/job.fio", relative to the scenario).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const FioPolicy& policy,
                       const std::string& base_dir = default_scenario_dir());
// As above, every device's queue given `scheduler` as blksim fio --scheduler does, before
// the "queues..." overrides (blksim run --scheduler; empty: the scenario's schedulers).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const FioPolicy& policy,
                       const std::string& scheduler, const std::string& base_dir);

// The device names `blksim fio --device` accepts besides scenario files: the built-in
// machines and the device profiles in <base_dir>/devices/.
std::vector<std::string> fio_devices(const std::string& base_dir = default_scenario_dir());

// The names the loader accepts, for `blksim list` and for tests that keep the schema's
// enums in step with the decoder.
std::vector<std::string> supported_fio_options();
std::vector<std::string> supported_schedulers();

// The named device profiles in <base_dir>/devices/, sorted by name: name, model, description.
struct DeviceProfileInfo {
    std::string name, model, description;
};
std::vector<DeviceProfileInfo> device_profiles(const std::string& base_dir = default_scenario_dir());
// The same of any folder of <base_dir> (cpu, examples, teaching, ...), the description from
// `text_key` (a CPU profile's is "source").
std::vector<DeviceProfileInfo> shipped_files(const std::string& folder, const std::string& text_key,
                                             const std::string& base_dir = default_scenario_dir());

}  // namespace blksim::scenario
