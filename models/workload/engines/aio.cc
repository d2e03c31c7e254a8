#include "models/workload/engines/aio.h"

#include <algorithm>

namespace blksim::workload::engines {

Aio::Aio(const JobConfig& cfg, const cpu::HostConfig& host, bool slat)
    : Engine(std::max(1u, cfg.iodepth), std::max(1u, cfg.iodepth_batch_submit), true, slat, false, host.costs.reap),
      complete_min_(cfg.iodepth_batch_complete_min),
      complete_max_(cfg.iodepth_batch_complete_max ? cfg.iodepth_batch_complete_max
                                                   : std::max(1u, cfg.iodepth_batch_complete_min)),
      syscall_(host.costs.syscall) {}

// fio's wait_for_completions(): reap only when the queue is full or the job winds down;
// with nothing completed yet, io_getevents blocks for iodepth_batch_complete_min of them.
Engine::Reap Aio::getevents(uint32_t nr_done, uint32_t in_kernel, bool full, bool draining) const {
    if (!full && !draining)
        return {};
    if (nr_done > 0)
        return {draining ? nr_done : complete_max_, 0};
    if (in_kernel == 0)
        return {};
    return {0, draining ? 1 : std::clamp(complete_min_, 1u, in_kernel)};
}

// io_getevents / io_uring_enter returns; a thread that slept for a tag is still inside
// its io_submit, whose syscall is paid once.
sim::Duration Aio::wake_cost(bool submitting) const { return submitting ? sim::Duration() : syscall_; }

void Aio::queued(IoU&, sim::Time) const {}

}  // namespace blksim::workload::engines
