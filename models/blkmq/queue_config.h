// Typed configuration of one request_queue (a disk as /sys/block/<dev>/queue shows it).
#pragma once

#include <cstdint>
#include <string>

#include "models/sched/bfq_config.h"
#include "models/sched/kyber.h"
#include "models/sched/mq_deadline.h"

namespace blksim::blkmq {

struct QueueConfig {
    std::string device;            // name of the device this queue drives
    std::string scheduler = "none";  // "none", "mq-deadline", "kyber" or "bfq"
    uint32_t nr_requests = 0;      // 0 = kernel default: 2 * min(queue_depth, 128) with an elevator
    sched::MqDeadlineTunables mq_deadline;  // iosched/ tunables when scheduler = mq-deadline
    sched::KyberTunables kyber;             // iosched/ tunables when scheduler = kyber
    sched::BfqTunables bfq;                 // iosched/ tunables when scheduler = bfq
    uint32_t max_sectors_kb = 1280;
    uint32_t max_segments = 128;   // BLK_MAX_SEGMENTS; the driver's limit (read-only in sysfs)
    uint32_t nomerges = 0;         // 0 all, 1 one-hit only, 2 none
    uint32_t rq_affinity = 1;      // 0, 1, 2 as in sysfs
};

}  // namespace blksim::blkmq
