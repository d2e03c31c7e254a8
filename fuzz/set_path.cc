// libFuzzer target: the CLI's --set overrides ("path=value", the path dotted with array
// indexes) as `blksim run|validate --set ...` applies them: one --set per input line, applied
// to a small fixed scenario that is then loaded (schema, decoding, topology).
// Bad input = scenario::ScenarioError (exit status 2 in the CLI).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "tools/scenario/scenario.h"

namespace {

// Two devices, a queue and two jobs: enough arrays and objects for paths to index into.
constexpr std::string_view kScenario = R"({
  "seed": 1,
  "host": { "cpus": 2, "cost_profile": "desktop-8t" },
  "devices": [
    { "name": "nullb0", "model": "null_blk", "params": { "irqmode": 2, "completion_nsec": 10000 } },
    { "name": "nullb1", "model": "null_blk" }
  ],
  "queues": [ { "device": "nullb0", "scheduler": "mq-deadline" } ],
  "jobs": [
    { "name": "a", "ioengine": "psync", "rw": "randread", "bs": "4k", "runtime": "1s", "time_based": 1 },
    { "name": "b", "ioengine": "libaio", "iodepth": 4, "rw": "write", "bs": "64k", "size": "1m",
      "device": "nullb1" }
  ]
})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static const std::string dir = scenario::default_scenario_dir();
    const std::string_view text = fuzz::as_text(data, size);
    // A value may name a file (read_iolog=, cost_profile=, fio=): the fuzzer must not make the
    // loader open the host's device or kernel files (/dev/stdin blocks). Not a parser finding.
    for (const char* host : {"dev/", "proc/", "sys/"})
        if (text.find(host) != std::string_view::npos)
            return 0;
    const std::vector<std::string> sets = fuzz::split_lines(text);
    try {
        scenario::load_scenario_text(kScenario, dir + "/fuzz.json", sets, dir);
    } catch (const scenario::ScenarioError&) {
    }
    return 0;
}
