#include "models/workload/engines/io_uring.h"

namespace blksim::workload::engines {

IoUring::IoUring(const JobConfig& cfg, const cpu::HostConfig& host) : Aio(cfg, host) {}

}  // namespace blksim::workload::engines
