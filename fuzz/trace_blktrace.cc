// libFuzzer target: the replay reader on a blktrace binary (one per-CPU file or a merged
// `blkparse -d` dump), as read_iolog= in a scenario reads it. The reader takes a path, so the
// input goes through a tmpfs file. Bad input = replay::TraceError (exit status 2 in the CLI).
// trace_iolog.cc is the same entry point seeded with fio iologs; the reader picks the format
// from the content, so each corpus also explores the other.
#include <cstdint>

#include "fuzz/fuzz_util.h"
#include "tools/replay/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace blksim;
    static fuzz::InputFile file(".blktrace");
    try {
        replay::load_replay_log(file.write(data, size));
    } catch (const replay::TraceError&) {
    }
    return 0;
}
