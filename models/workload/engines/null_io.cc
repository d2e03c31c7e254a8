#include "models/workload/engines/null_io.h"

#include <algorithm>

#include "models/workload/engines/aio.h"

namespace blksim::workload::engines {

NullIo::NullIo(const JobConfig& cfg)
    : Engine(std::max(1u, cfg.iodepth), cfg.iodepth > 1 ? std::max(1u, cfg.iodepth_batch_submit) : 1, false,
             cfg.iodepth > 1, false, sim::Duration()) {
    diskless_ = true;
    // A sync engine's io_u is completed inside td_io_queue(), and the null engine has a
    // ->commit: fio marks neither its submit nor its complete calls, only its depth.
    marks_calls_ = cfg.iodepth > 1;
}

// ->queue answers FIO_Q_BUSY while committed events wait, and fio's loop then reaps
// (do_io(): full when busy with cur_depth > 0); fio_null_getevents() returns them all. So
// each pass reaps what the previous commit completed: at most a batch is ever in flight.
Engine::Reap NullIo::getevents(uint32_t nr_done, uint32_t, bool, bool) const {
    if (nr_done == 0)
        return {};
    return {nr_done, 0};
}

// Nothing sleeps: the engine never waits.
sim::Duration NullIo::wake_cost(bool) const { return {}; }

// As a sync engine (iodepth=1) fio stamps issue_time before ->queue(), as for psync.
void NullIo::queued(IoU& first, sim::Time t) const {
    if (depth() == 1)
        first.issue_time = t;
}

namespace {
std::unique_ptr<Engine> make(const JobConfig& cfg, const cpu::HostConfig&) { return std::make_unique<NullIo>(cfg); }
}  // namespace

const EngineKind kNullKind = {
    IoEngine::NULL_IO, "null", {},
    "fio's null engine: each I/O completes at once, without a syscall, the block layer or a device; only fio's "
    "loop costs CPU time (needs no --device)",
    kAioOptions, make,
};

}  // namespace blksim::workload::engines
