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

}  // namespace blksim::workload::engines
