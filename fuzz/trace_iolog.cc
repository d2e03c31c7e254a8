// libFuzzer target: the replay reader on fio iologs (version 2 with wait lines, version 3
// with timestamps). Same entry point as trace_blktrace.cc, its own corpus and dictionary.
// Bad input = replay::TraceError (exit status 2 in the CLI).
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "tools/replay/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static fuzz::InputFile file(".log");
    try {
        replay::load_replay_log(file.write(data, size));
    } catch (const replay::TraceError&) {
    }
    return 0;
}
