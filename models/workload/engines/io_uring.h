// ioengine=io_uring (fio's engines/io_uring.c).
#pragma once

#include "models/workload/engines/aio.h"

namespace blksim::workload::engines {

class IoUring final : public Aio {
public:
    IoUring(const JobConfig& cfg, const cpu::HostConfig& host);
    sim::Duration wake_cost(bool submitting) const override;

private:
    bool sqpoll_;  // sqthread_poll: the job makes no io_uring_enter to submit or to reap
};

extern const EngineKind kIoUringKind;

}  // namespace blksim::workload::engines
