// libFuzzer target: DiskSim's parameter-file syntax (tools/disksim/param_file.h), then, when
// it parses, the .diskspecs import (tools/disksim/import.h) on it. The import looks for the
// .model and .seek files beside the .diskspecs, so the input is written as a .diskspecs in a
// tmpfs directory: a "Model = source X.model" naming a missing file must be a clean error.
// Bad input = disksim::DisksimError (exit status 2 in the CLI).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static fuzz::InputFile file(".diskspecs");
    const std::string text(fuzz::as_text(data, size));
    try {
        disksim::parse_param_text(text, "fuzz.diskspecs");
        disksim::import_diskspecs(file.write(data, size));
    } catch (const disksim::DisksimError&) {
    }
    return 0;
}
