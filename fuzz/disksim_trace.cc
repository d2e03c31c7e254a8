// libFuzzer target: DiskSim validation traces (tools/disksim/validation_trace.h).
// Bad input = disksim::DisksimError (exit status 2 in the CLI).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "tools/disksim/param_file.h"
#include "tools/disksim/validation_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    try {
        disksim::parse_validation_trace(std::string(fuzz::as_text(data, size)), "fuzz.trace");
    } catch (const disksim::DisksimError&) {
    }
    return 0;
}
