// Typed configuration of one request_queue (a disk as /sys/block/<dev>/queue shows it).
#pragma once

#include <any>
#include <cstdint>
#include <string>

namespace blksim::blkmq {

struct QueueConfig {
    std::string device;            // name of the device this queue drives
    std::string scheduler = "none";  // a name from sched::scheduler_kinds()
    // The scheduler's iosched/ tunables: its own config struct (the one its descriptor's
    // table sets), or empty for its defaults.
    std::any iosched;
    // A kernel:<name> scheduler's plugin, built from the scenario's kernel tree by the loader.
    std::string kernel_plugin;
    uint32_t nr_requests = 0;      // 0 = kernel default: 2 * min(queue_depth, 128) with an elevator
    uint32_t max_sectors_kb = 1280;
    uint32_t max_segments = 128;   // BLK_MAX_SEGMENTS; the driver's limit (read-only in sysfs)
    uint32_t nomerges = 0;         // 0 all, 1 one-hit only, 2 none
    uint32_t rq_affinity = 1;      // 0, 1, 2 as in sysfs

    // The tunables as the scheduler's struct T, its defaults put there first if none.
    template <class T>
    T& tunables() {
        if (!iosched.has_value())
            iosched = T{};
        return std::any_cast<T&>(iosched);
    }
    template <class T>
    const T& tunables() const {
        return std::any_cast<const T&>(iosched);  // throws when none were set
    }
};

}  // namespace blksim::blkmq
