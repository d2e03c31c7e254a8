#include "models/topology/memory_estimate.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace blksim::topology {

namespace {

// Sizes measured with the Release build (maximum RSS of `blksim run` of
// scripts/many-devices.py machines, 1 to 1,024 devices of null_blk, HDD and NVMe, one job
// at QD32 each, and 1 device with 256 or 1,024 jobs), rounded up:
//   the process with one small device: 8.1 MB;
//   a request slot (a tag's struct request and its bookkeeping): 229 B (NVMe, 8 hctx x
//     1023 tags per device);
//   a device besides its requests: null_blk 13 KB, HDD 46 KB (its command queue, cache
//     segments and mechanics);
//   a job thread: 6.4 KB (its histograms allocate as samples arrive), and 164 B per io_unit.
// The estimate of those machines is 1.06 (NVMe, where requests dominate) to 1.6 times their
// RSS; test/cli/test_memory_estimate_cli.cc checks that it stays within 1 to 2 times.
constexpr uint64_t kBase = 10ULL << 20;
constexpr uint64_t kPerRequest = 240;
constexpr uint64_t kPerDevice = 32ULL << 10;
constexpr uint64_t kPerHdd = 64ULL << 10;
constexpr uint64_t kPerThread = 16ULL << 10;
constexpr uint64_t kPerIoUnit = 176;

// Hardware queues the device's driver asks for; blk-mq caps them at the CPUs.
uint64_t hw_queues(const dev::DeviceConfig& d, uint32_t cpus) {
    const uint32_t n = d.kind().geometry(d.model).nr_hw_queues;
    return n == 0 ? cpus : std::min(n, cpus);
}

uint64_t queue_depth(const dev::DeviceConfig& d) { return d.kind().geometry(d.model).queue_depth; }

}  // namespace

uint64_t estimate_memory_bytes(const MachineConfig& cfg) {
    const uint32_t cpus = std::max<uint32_t>(cfg.host.nr_cpus, 1);
    std::unordered_map<std::string_view, const blkmq::QueueConfig*> queue_of;
    for (const blkmq::QueueConfig& q : cfg.queues)
        queue_of.emplace(q.device, &q);
    uint64_t requests = 0, devices = 0;
    for (const dev::DeviceConfig& d : cfg.devices) {
        devices += d.kind().name() == "hdd" ? kPerHdd : kPerDevice;
        const uint64_t hctx = hw_queues(d, cpus);
        const uint64_t depth = queue_depth(d);
        requests += hctx * depth;
        // An elevator's scheduler tags: nr_requests per hctx (request_queue.cc's default).
        const auto it = queue_of.find(d.name);
        const blkmq::QueueConfig* q = it == queue_of.end() ? nullptr : it->second;
        if (q && !q->scheduler.empty() && q->scheduler != "none")
            requests += hctx * (q->nr_requests ? q->nr_requests : 2 * std::min<uint64_t>(depth, 128));
    }
    for (const dev::ControllerConfig& c : cfg.controllers)
        requests += uint64_t{std::min(std::max(c.nr_hw_queues, 1u), cpus)} * c.can_queue;
    uint64_t threads = 0, io_units = 0;
    for (const workload::JobConfig& j : cfg.jobs) {
        threads += j.numjobs;
        io_units += uint64_t{j.numjobs} * j.iodepth;
    }
    return kBase + requests * kPerRequest + devices + threads * kPerThread +
           io_units * kPerIoUnit;
}

}  // namespace blksim::topology
