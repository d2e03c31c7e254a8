// Trace files in, replay logs out: what fio's read_iolog= accepts, turned into the compact
// entry array a replaying job runs (models/workload/replay.h).
//
//   - a blktrace binary: one per-CPU file as blktrace writes it (<disk>.blktrace.<cpu>), the
//     merged dump of `blkparse -d`, or the base name of a set of per-CPU files
//     (<path>.blktrace.0, .1, ... as `blkparse -i <path>` takes it). Every Q (queue) event
//     with data becomes one I/O: its sector, size and direction, at its recorded time
//     relative to the first Q, as btreplay replays them (ReplayTiming::ABSOLUTE). Other
//     events, notify records, flushes and discards are skipped.
//   - a fio iolog, version 2 ("fio version 2 iolog": read/write lines, and `wait N` lines
//     that hold the I/Os after them until N milliseconds after the job started, as fio 3.33's
//     code does (its HOWTO says microseconds since the previous wait): ABSOLUTE) or version 3 ("fio version 3 iolog": a microsecond timestamp on each line,
//     replayed with fio's iolog_delay() gaps: GAP). add/open/close lines are checked; sync,
//     datasync and trim are skipped (blksim models no flush or discard).
//
// Bad input never crashes or hangs the reader: a truncated or corrupted file gives one
// TraceError naming the file and the record (number and byte offset) or the line.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "models/report/blktrace_format.h"
#include "models/workload/replay.h"

namespace blksim::replay {

class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;  // the message names the file and the record/line
};

// Reads `path` (or the per-CPU set it names) whatever its format.
workload::ReplayLog load_replay_log(const std::string& path);

// The file(s) load_replay_log(path) would read: `path` itself, or the per-CPU set
// <path>.blktrace.0.. when `path` does not exist but <path>.blktrace.0 does. Empty when
// neither exists.
std::vector<std::string> replay_files(const std::string& path);

// Every record of one blktrace binary file, in file order. `index` counts records from 1,
// `offset` is the record's first byte. Throws TraceError on a bad magic, an unsupported
// version or a truncated record.
using RecordFn = std::function<void(const report::blktrace::Record& r, const unsigned char* pdu,
                                    uint64_t index, uint64_t offset)>;
void read_blktrace_records(const std::string& path, const RecordFn& fn);

}  // namespace blksim::replay
