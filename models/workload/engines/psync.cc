#include "models/workload/engines/psync.h"

namespace blksim::workload::engines {

// One io_u; no reap syscall and no slat (the I/O is done when pread returns). Without
// cpu::HostConfig::submit_bio_plug (kernels before 6.11) the task holds no plug in pread.
Psync::Psync(const cpu::HostConfig& host) : Engine(1, 1, host.submit_bio_plug, false, sim::Duration()) {}

// pread has returned with its I/O: it is reaped at once (all of them when draining).
Engine::Reap Psync::getevents(uint32_t nr_done, uint32_t, bool, bool draining) const {
    if (nr_done == 0)
        return {};
    return {draining ? nr_done : 1, 0};
}

// The thread slept inside pread, whose syscall the submission already paid.
sim::Duration Psync::wake_cost(bool) const { return {}; }

// fio's td_io_queue() stamps issue_time before ->queue() for an engine without ->commit.
void Psync::queued(IoU& first, sim::Time t) const { first.issue_time = t; }

// pread blocks until its I/O completes.
bool Psync::committed(std::span<const uint32_t>, std::span<IoU>, sim::Time, bool io_pending) const {
    return io_pending;
}

}  // namespace blksim::workload::engines
