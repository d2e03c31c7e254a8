#include "models/workload/engines/io_uring.h"

#include <iterator>

namespace blksim::workload::engines {

// hipri: fio sets up the ring with IORING_SETUP_IOPOLL; io_uring_enter(GETEVENTS) then spins
// in the driver's poll until enough completions are found.
// sqthread_poll: fio 3.34 on sets disable_slat for an SQPOLL ring (its "submission" is only
// storing SQEs; fio 3.33 recorded no issue time at all, commit c011bf12).
IoUring::IoUring(const JobConfig& cfg, const cpu::HostConfig& host)
    : Aio(cfg, host, !cfg.sqthread_poll), sqpoll_(cfg.sqthread_poll) {
    polls_ = cfg.hipri;
}

// On an SQPOLL ring fio reaps the CQ ring in user space, spinning: nothing returns from the
// kernel (the job thread's spin and its preemption are JobThread's).
sim::Duration IoUring::wake_cost(bool submitting) const {
    return sqpoll_ ? sim::Duration() : Aio::wake_cost(submitting);
}

namespace {
constexpr EngineOption kIoUringOptions[] = {
    kAioOptions[0], kAioOptions[1], kAioOptions[2], kAioOptions[3],
    {"hipri", "0", "polled completion: reap by spinning on the CPU (needs a device with poll queues)"},
    {"sqthread_poll", "0", "a kernel SQ thread spinning on the ring submits the I/O on its own CPU"},
    {"sqthread_poll_cpu", "(least loaded CPU)", "the CPU the SQ thread is bound to"},
};
static_assert(std::size(kAioOptions) == 4);
std::unique_ptr<Engine> make(const JobConfig& cfg, const cpu::HostConfig& host) {
    return std::make_unique<IoUring>(cfg, host);
}
}  // namespace

const EngineKind kIoUringKind = {
    IoEngine::IO_URING, "io_uring", {}, "io_uring: SQ/CQ rings, io_uring_enter to submit and to wait", kIoUringOptions, make,
};

}  // namespace blksim::workload::engines
