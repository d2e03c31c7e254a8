#include "models/workload/engine_kinds.h"

namespace blksim::workload {

namespace {

constexpr EngineOption kAsyncOptions[] = {
    {"iodepth", "1", "io_us in flight"},
    {"iodepth_batch_submit", "1", "io_us per submit call"},
    {"iodepth_batch_complete_min", "1", "completions to wait for when the queue is full"},
    {"iodepth_batch_complete_max", "= iodepth_batch_complete_min", "completions reaped per call"},
};

constexpr EngineKind kEngines[] = {
    {"psync", "pread/pwrite: one I/O in flight, the thread sleeps until it completes (aliases sync, pvsync)", {}},
    {"libaio", "Linux native AIO: io_submit / io_getevents with a user-space completion ring", kAsyncOptions},
    {"io_uring", "io_uring: SQ/CQ rings, io_uring_enter to submit and to wait", kAsyncOptions},
};

}  // namespace

std::span<const EngineKind> engine_kinds() { return kEngines; }

}  // namespace blksim::workload
