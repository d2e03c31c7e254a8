// libFuzzer target: a DiskSim validation trace through what `blksim validate-disk` does with
// it (tools/blksim/cmd_disksim.cc): read the trace file, replay it one request at a time on
// the HDD model of a measured drive (scenarios/devices/atlas10k.json), then the summary
// statistics, the demerit figure and the CDF table of measured against simulated times.
// Only the first kMaxReplayed requests are replayed, so a case stays short; the whole input
// is still parsed.
// Bad input = disksim::DisksimError (exit status 2 in the CLI).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "tools/disksim/demerit.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/disksim/replay.h"
#include "tools/disksim/validation_trace.h"
#include "tools/scenario/scenario.h"

namespace {
constexpr size_t kMaxReplayed = 256;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static fuzz::InputFile file(".trace");
    static const disksim::LoadedProfile drive =
        disksim::load_hdd_profile("atlas10k", scenario::default_scenario_dir() + "/devices");
    try {
        std::vector<disksim::TraceRecord> trace = disksim::read_validation_trace(file.write(data, size));
        if (trace.size() > kMaxReplayed)
            trace.resize(kMaxReplayed);
        const disksim::ReplayResult res = disksim::replay_trace(drive.cfg, trace, file.path());
        std::vector<double> measured;
        for (const disksim::TraceRecord& r : trace)
            measured.push_back(r.service_us / 1000.0);
        disksim::summarize(measured);
        disksim::summarize(res.simulated_ms);
        disksim::demerit(measured, res.simulated_ms);
        disksim::cdf_csv(measured, res.simulated_ms);
    } catch (const disksim::DisksimError&) {
    }
    return 0;
}
