#include "models/workload/engines/libaio.h"

namespace blksim::workload::engines {

Libaio::Libaio(const JobConfig& cfg, const cpu::HostConfig& host) : Aio(cfg, host) {}

namespace {
std::unique_ptr<Engine> make(const JobConfig& cfg, const cpu::HostConfig& host) {
    return std::make_unique<Libaio>(cfg, host);
}
}  // namespace

const EngineKind kLibaioKind = {
    IoEngine::LIBAIO, "libaio", {}, "Linux native AIO: io_submit / io_getevents with a user-space completion ring", kAioOptions, make,
};

}  // namespace blksim::workload::engines
