// What a lock saw during the run. Filled by cpu::Spinlock::report().
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace blksim::result {

// One elevator lock (dd->lock), or a group of them (kyber's kcq->lock per CPU, khd->lock
// per hctx, summed): how often it was taken, how often someone had to spin for it, and
// how long — the lock wait time fio cannot see.
struct LockReport {
    std::string name;                  // e.g. "nullb0.elevator", "nullb0.kcq*"
    uint32_t instances = 1;            // locks summed into this line
    uint64_t acquisitions = 0;
    uint64_t contended = 0;            // acquisitions that had to spin
    sim::Duration wait;                // spin time, summed over the acquisitions
    sim::Duration wait_max;            // the longest single spin
    sim::Duration held;                // hold time, summed
};

}  // namespace blksim::result
