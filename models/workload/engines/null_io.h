// ioengine=null (fio's engines/null.c): no file, no syscall, no block layer, no device.
#pragma once

#include "models/workload/engine.h"
#include "models/workload/engine_kinds.h"

namespace blksim::workload::engines {

// Each io_u completes in ->queue. With iodepth=1 fio runs the engine as a sync one
// (FIO_SYNCIO: no slat, no submit/complete calls counted); deeper, ->queue holds up to a
// batch (iodepth_batch_submit), ->commit turns them into events and the next pass reaps them
// all. The CPU time is fio's alone: io_prep per
// io_u queued and io_complete per io_u reaped (cpu::CpuCosts), no syscall, no reap call cost.
class NullIo final : public Engine {
public:
    explicit NullIo(const JobConfig& cfg);
    Reap getevents(uint32_t nr_done, uint32_t in_kernel, bool full, bool draining) const override;
    sim::Duration wake_cost(bool submitting) const override;
    void queued(IoU& first, sim::Time t) const override;
};

extern const EngineKind kNullKind;

}  // namespace blksim::workload::engines
