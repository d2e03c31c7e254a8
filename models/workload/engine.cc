#include "models/workload/engine.h"

#include "models/workload/engine_kinds.h"

namespace blksim::workload {

std::unique_ptr<Engine> make_engine(const JobConfig& cfg, const cpu::HostConfig& host) {
    return engine_kind(cfg.ioengine).make(cfg, host);
}

}  // namespace blksim::workload
