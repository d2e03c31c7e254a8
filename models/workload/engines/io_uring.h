// ioengine=io_uring (fio's engines/io_uring.c).
#pragma once

#include "models/workload/engines/aio.h"

namespace blksim::workload::engines {

class IoUring final : public Aio {
public:
    IoUring(const JobConfig& cfg, const cpu::HostConfig& host);
};

extern const EngineKind kIoUringKind;

}  // namespace blksim::workload::engines
