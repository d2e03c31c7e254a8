// A recorded I/O stream for a job to replay (fio's read_iolog, btreplay): what the model
// receives from the trace readers in tools/replay, which parse blktrace binaries and fio
// iologs. The model never sees a file; it sees one compact entry per I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blksim::workload {

struct ReplayEntry {
    int64_t time_ns = 0;   // when it was issued, relative to the first entry
    uint64_t offset = 0;   // bytes
    uint32_t bytes = 0;
    uint8_t ddir = 0;      // 0 read, 1 write
};

// How a replaying job paces its I/Os.
enum class ReplayTiming : uint8_t {
    // btreplay (blktrace input), and fio's v2 iolog `wait`: entry i is issued no earlier than
    // the job's start + time_ns. A replay that falls behind catches up as fast as it can.
    ABSOLUTE,
    // fio's v3 iolog (iolog_delay()): entry i is issued no earlier than the issue of entry
    // i-1 + the recorded gap between them. Lateness is never caught up.
    GAP,
    // fio's replay_no_stall=1: as fast as the job can, in order.
    NONE,
};

struct ReplayLog {
    std::string source;             // the file(s) it came from, for messages
    std::string format;             // "blktrace", "fio iolog v2", "fio iolog v3"
    ReplayTiming timing = ReplayTiming::ABSOLUTE;
    std::vector<ReplayEntry> entries;
};

}  // namespace blksim::workload
