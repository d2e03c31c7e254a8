// ioengine=libaio (fio's engines/libaio.c).
#pragma once

#include "models/workload/engines/aio.h"

namespace blksim::workload::engines {

class Libaio final : public Aio {
public:
    Libaio(const JobConfig& cfg, const cpu::HostConfig& host);
};

extern const EngineKind kLibaioKind;

}  // namespace blksim::workload::engines
