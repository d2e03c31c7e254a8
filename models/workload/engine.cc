#include "models/workload/engine.h"

#include "models/workload/engines/io_uring.h"
#include "models/workload/engines/libaio.h"
#include "models/workload/engines/psync.h"

namespace blksim::workload {

std::unique_ptr<Engine> make_engine(const JobConfig& cfg, const cpu::HostConfig& host) {
    switch (cfg.ioengine) {
    case IoEngine::PSYNC: return std::make_unique<engines::Psync>(host);
    case IoEngine::LIBAIO: return std::make_unique<engines::Libaio>(cfg, host);
    case IoEngine::IO_URING: return std::make_unique<engines::IoUring>(cfg, host);
    }
    return std::make_unique<engines::Psync>(host);
}

}  // namespace blksim::workload
