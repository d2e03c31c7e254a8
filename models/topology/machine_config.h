// Everything needed to build one simulated machine and its workload, as plain typed data.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "models/blkmq/queue_config.h"
#include "models/blkmq/tag_set.h"
#include "models/cpu/cpu_config.h"
#include "models/device/controller_config.h"
#include "models/device/device_config.h"
#include "models/workload/job_config.h"
#include "sim/time.h"

namespace blksim::topology {

struct MachineConfig {
    uint64_t seed = 0;
    cpu::HostConfig host;
    std::vector<dev::ControllerConfig> controllers;
    std::vector<dev::DeviceConfig> devices;
    std::vector<blkmq::QueueConfig> queues;
    std::vector<workload::JobConfig> jobs;
    // Kernel variants under study that are not a tunable of one queue.
    blkmq::TagFairness tag_fairness = blkmq::TagFairness::ALWAYS;
    sim::Duration bw_avg_time = sim::Duration::ns(500'000'000);  // fio bwavgtime / iopsavgtime
    // The invariant audit's period in simulated time (0 = only the end-of-run checks).
    sim::Duration audit_interval = sim::Duration::ns(100'000'000);
    // When given and it becomes true (a signal handler sets it), run() stops at its next
    // audit instant (or simulated second) by throwing Interrupted. Not part of the scenario.
    const std::atomic<bool>* stop = nullptr;
};

}  // namespace blksim::topology
