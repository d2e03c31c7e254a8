// libFuzzer target: the scenario loader from text, as `blksim validate` / `run` use it
// (JSON parse, --set overrides, schema validation, decoding, topology checks).
// Bad input = scenario::ScenarioError (exit status 2 in the CLI).
//
// The text is named scenarios/fuzz.json, so a relative cost-profile, device-profile, job-file
// or trace name resolves against the repository's scenarios/ directory as it would for a
// scenario kept there.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "tools/scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static const std::string dir = scenario::default_scenario_dir();
    try {
        scenario::load_scenario_text(fuzz::as_text(data, size), dir + "/fuzz.json", {}, dir);
    } catch (const scenario::ScenarioError&) {
    }
    return 0;
}
