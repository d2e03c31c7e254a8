// libFuzzer target: a recorded trace replayed through a whole simulation, as
// `blksim run` does with a job's read_iolog=: the trace reader (tools/replay), the loader's
// checks of the log against the device, then the job replaying it on a null_blk with the
// recorded timing (models/workload). The input is the trace (blktrace binary or fio iolog
// v2/v3; the reader picks the format from the content), written to a tmpfs file the fixed
// scenario names. An odd-sized input is replayed by a psync job, an even-sized one by a
// libaio job at iodepth 8, so both submission paths see every kind of trace.
//
// A case stays short because the job stops after number_ios I/Os; the recorded times are the
// trace's own (a trace spanning hours must still be simulated in bounded time: the reader
// and the model have to cope with it, the harness does not clamp it).
//
// Bad input = scenario::ScenarioError from the loader (it wraps the reader's TraceError), or
// std::invalid_argument from building the machine (both exit status 2 in the CLI). A
// std::logic_error from the run is a failed invariant of the model: a finding.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz/fuzz_util.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

namespace {

std::string scenario_text(const std::string& trace, bool psync) {
    const std::string job = psync ? R"("ioengine": "psync")" : R"("ioengine": "libaio", "iodepth": 8)";
    return R"({
  "seed": 1,
  "host": { "cpus": 2, "cost_profile": "desktop-8t" },
  "devices": [ { "name": "nullb0", "model": "null_blk", "params": { "irqmode": 2, "completion_nsec": 10000 } } ],
  "jobs": [ { "name": "replay", )" + job + R"(, "number_ios": 64, "read_iolog": ")" + trace + R"(" } ]
})";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static fuzz::InputFile file(".trace");
    static const std::string dir = scenario::default_scenario_dir();
    static const std::string psync_text = scenario_text(file.path(), true);
    static const std::string libaio_text = scenario_text(file.path(), false);
    file.write(data, size);
    scenario::Scenario s;
    try {
        s = scenario::load_scenario_text(size % 2 ? psync_text : libaio_text, dir + "/fuzz.json", {}, dir);
    } catch (const scenario::ScenarioError&) {
        return 0;
    }
    try {
        topology::Machine machine(s.machine);
        machine.run();
    } catch (const std::invalid_argument&) {
    }
    return 0;
}
