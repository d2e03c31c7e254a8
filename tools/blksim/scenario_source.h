// What compare and sweep simulate: a scenario file, or a fio command line or job file on a
// machine, converted exactly as `blksim fio` converts it (scenario::load_fio_command).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}
namespace blksim::scenario {
struct Scenario;
struct FioPolicy;
}

namespace blksim::cli {

struct ScenarioSource {
    std::string scenario;               // a scenario file
    std::string device;                 // or blksim fio's --device: the machine
    std::vector<std::string> fio_args;  // with fio's arguments, from after "--"
    bool strict = false;                // fio options blksim does not support are an error

    bool is_fio() const { return !device.empty(); }
    // Exactly one of the two forms, complete; false after printing what is wrong.
    bool check(const std::string& command) const;
    // What reports and messages call it: the scenario file, or "--device D -- <fio args>";
    // with " --scheduler S" when one is given.
    std::string describe(const std::string& scheduler = {}) const;
    // With `sets` and every queue on `scheduler` (empty: as written); the loader's warnings
    // go to policy.warnings. Throws scenario::ScenarioError.
    scenario::Scenario load(const std::vector<std::string>& sets, const std::string& scheduler,
                            const scenario::FioPolicy& policy) const;
};

// Registers the positional scenario and --device / --strict on `cmd`.
void add_source_options(CLI::App* cmd, ScenarioSource& src, const std::string& scenario_help);

// `blksim compare|sweep ... -- <fio args>`: everything after the first "--" is fio's (CLI11
// would hand it to the first positional, the scenario); argc is cut before it.
void take_fio_args(int& argc, char** argv, std::vector<std::string>& fio_args);

}  // namespace blksim::cli
