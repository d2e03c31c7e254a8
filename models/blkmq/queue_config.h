// Typed configuration of one request_queue (a disk as /sys/block/<dev>/queue shows it).
#pragma once

#include <cstdint>
#include <string>

namespace blksim::blkmq {

struct QueueConfig {
    std::string device;            // name of the device this queue drives
    std::string scheduler = "none";
    uint32_t nr_requests = 0;      // 0 = kernel default for the scheduler
    uint32_t max_sectors_kb = 1280;
    uint32_t nomerges = 0;         // 0 all, 1 one-hit only, 2 none
    uint32_t rq_affinity = 1;      // 0, 1, 2 as in sysfs
};

}  // namespace blksim::blkmq
