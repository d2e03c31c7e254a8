#include "models/workload/engines/io_uring.h"

#include <iterator>

namespace blksim::workload::engines {

// hipri: fio sets up the ring with IORING_SETUP_IOPOLL; io_uring_enter(GETEVENTS) then spins
// in the driver's poll until enough completions are found.
IoUring::IoUring(const JobConfig& cfg, const cpu::HostConfig& host) : Aio(cfg, host) { polls_ = cfg.hipri; }

namespace {
constexpr EngineOption kIoUringOptions[] = {
    kAioOptions[0], kAioOptions[1], kAioOptions[2], kAioOptions[3],
    {"hipri", "0", "polled completion: reap by spinning on the CPU (needs a device with poll queues)"},
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
