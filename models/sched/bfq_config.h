// bfq's tunables (the sysfs attributes of /sys/block/<dev>/queue/iosched/), apart from the
// policy (bfq.h) so that the queue configuration can hold them without the policy's headers.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "models/sched/elevator.h"
#include "sim/time.h"

namespace blksim::sched {

// The sysfs attributes of /sys/block/<dev>/queue/iosched/ with the kernel's defaults, then
// the build constant HZ. slice_idle and slice_idle_us are one setting in two units.
struct BfqTunables {
    sim::Duration slice_idle = sim::Duration::ns(8'000'000);  // NSEC_PER_SEC / 125: idling for a sync queue
    int32_t strict_guarantees = 0;  // always idle, one request in the device at a time
    int32_t low_latency = 1;        // weight raising for interactive and soft real-time queues
    sim::Duration timeout_sync = sim::Duration::ns(125'000'000);  // budget timeout (HZ / 8 jiffies)
    int32_t max_budget = 0;         // sectors; 0 = auto-tuned from the estimated peak rate
    int32_t back_seek_max = 16 * 1024;  // KiB a backward seek may go
    int32_t back_seek_penalty = 2;      // a backward seek costs this many times the distance
    sim::Duration fifo_expire_sync = sim::Duration::ns(125'000'000);   // NSEC_PER_SEC / 8
    sim::Duration fifo_expire_async = sim::Duration::ns(250'000'000);  // NSEC_PER_SEC / 4
    int32_t hz = 250;               // CONFIG_HZ: budget timeouts and raising periods are jiffies
};

std::span<const Tunable<BfqTunables>> bfq_tunables();
const Tunable<BfqTunables>* find_bfq_tunable(std::string_view name);

}  // namespace blksim::sched
