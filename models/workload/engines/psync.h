// ioengine=psync and pvsync2 (fio's engines/sync.c): pread/pwrite or preadv2/pwritev2, one I/O
// per syscall.
#pragma once

#include "models/workload/engine.h"
#include "models/workload/engine_kinds.h"

namespace blksim::workload::engines {

class Psync final : public Engine {
public:
    explicit Psync(const cpu::HostConfig& host);
    Reap getevents(uint32_t nr_done, uint32_t in_kernel, bool full, bool draining) const override;
    sim::Duration wake_cost(bool submitting) const override;
    void queued(IoU& first, sim::Time t) const override;
};

extern const EngineKind kPsyncKind;
extern const EngineKind kPvsync2Kind;  // preadv2/pwritev2: psync's path

}  // namespace blksim::workload::engines
