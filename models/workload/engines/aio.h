// What libaio and io_uring share in blksim: queue io_us, commit them in one syscall
// (io_submit / io_uring_enter), reap completions from a ring (fio's engines/libaio.c,
// engines/io_uring.c). They differ only in their cost profile entries.
#pragma once

#include "models/workload/engine.h"
#include "models/workload/engine_kinds.h"

namespace blksim::workload::engines {

// The fio options both engines take.
inline constexpr EngineOption kAioOptions[] = {
    {"iodepth", "1", "io_us in flight"},
    {"iodepth_batch_submit", "1", "io_us per submit call"},
    {"iodepth_batch_complete_min", "1", "completions to wait for when the queue is full"},
    {"iodepth_batch_complete_max", "= iodepth_batch_complete_min", "completions reaped per call"},
};

class Aio : public Engine {
public:
    Reap getevents(uint32_t nr_done, uint32_t in_kernel, bool full, bool draining) const override;
    sim::Duration wake_cost(bool submitting) const override;
    void queued(IoU& first, sim::Time t) const override;

protected:
    // `slat`: fio keeps the submission latency (not on an SQPOLL ring).
    Aio(const JobConfig& cfg, const cpu::HostConfig& host, bool slat = true);

private:
    uint32_t complete_min_;   // iodepth_batch_complete_min
    uint32_t complete_max_;   // iodepth_batch_complete_max, 0 resolved
    sim::Duration syscall_;
};

}  // namespace blksim::workload::engines
