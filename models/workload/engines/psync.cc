#include "models/workload/engines/psync.h"

namespace blksim::workload::engines {

// One io_u; pread returns once its I/O completed: no reap syscall and no slat. Without
// cpu::HostConfig::submit_bio_plug (kernels before 6.11) the task holds no plug in pread.
Psync::Psync(const cpu::HostConfig& host) : Engine(1, 1, host.submit_bio_plug, false, true, sim::Duration()) {}

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

namespace {
constexpr std::string_view kPsyncAliases[] = {"pvsync", "sync"};
std::unique_ptr<Engine> make_psync(const JobConfig&, const cpu::HostConfig& host) {
    return std::make_unique<Psync>(host);
}
}  // namespace

const EngineKind kPsyncKind = {
    IoEngine::PSYNC, "psync", kPsyncAliases,
    "pread/pwrite: one I/O in flight, the thread sleeps until it completes (aliases sync, pvsync)", {},
    make_psync,
};

// fio's pvsync2 (preadv2/pwritev2). hipri sets RWF_HIPRI, but a synchronous direct I/O on a
// block device ends in submit_bio_wait() (block/fops.c __blkdev_direct_IO_simple): the kernel
// marks only asynchronous bios REQ_POLLED, so the thread sleeps until the interrupt as psync's.
namespace {
constexpr EngineOption kPvsync2Options[] = {
    {"hipri", "0", "RWF_HIPRI: accepted; the kernel does not poll synchronous I/O, so it runs as without"},
};
}  // namespace

const EngineKind kPvsync2Kind = {
    IoEngine::PVSYNC2, "pvsync2", {},
    "preadv2/pwritev2: psync's path; hipri is accepted but sleeps for the interrupt as the kernel does",
    kPvsync2Options, make_psync,
};

}  // namespace blksim::workload::engines
