#include "models/workload/engines/libaio.h"

namespace blksim::workload::engines {

Libaio::Libaio(const JobConfig& cfg, const cpu::HostConfig& host) : Aio(cfg, host) {}

}  // namespace blksim::workload::engines
