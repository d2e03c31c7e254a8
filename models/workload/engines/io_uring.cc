#include "models/workload/engines/io_uring.h"

namespace blksim::workload::engines {

IoUring::IoUring(const JobConfig& cfg, const cpu::HostConfig& host) : Aio(cfg, host) {}

namespace {
std::unique_ptr<Engine> make(const JobConfig& cfg, const cpu::HostConfig& host) {
    return std::make_unique<IoUring>(cfg, host);
}
}  // namespace

const EngineKind kIoUringKind = {
    IoEngine::IO_URING, "io_uring", {}, "io_uring: SQ/CQ rings, io_uring_enter to submit and to wait", kAioOptions, make,
};

}  // namespace blksim::workload::engines
