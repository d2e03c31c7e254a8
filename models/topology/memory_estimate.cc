#include "models/topology/memory_estimate.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace blksim::topology {

namespace {

// Sizes measured with the Release build (maximum RSS of `blksim run` with a 1 ms runtime,
// differences between runs that vary one count), rounded up:
//   a request slot (a tag's struct request and its bookkeeping): 229 B (null_blk 64..256
//     hctx x 1024..8192 tags; NVMe 64..1024 CPUs, one hctx each, 1023 tags);
//   a device besides its requests: 225..270 KB (200 and 4,000 null_blk, SATA SSD or HDD);
//   a job thread: 92 KB (its histograms), and 164 B per io_unit (iodepth 4096..65536 x
//     numjobs 16..64, libaio);
//   the process with one small device: 8 MB.
// The estimate of those runs is 1.0-1.3 times their RSS.
constexpr uint64_t kBase = 8ULL << 20;
constexpr uint64_t kPerRequest = 240;
constexpr uint64_t kPerDevice = 272ULL << 10;
constexpr uint64_t kPerThread = 96ULL << 10;
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
    uint64_t requests = 0;
    for (const dev::DeviceConfig& d : cfg.devices) {
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
    return kBase + requests * kPerRequest + cfg.devices.size() * kPerDevice + threads * kPerThread +
           io_units * kPerIoUnit;
}

}  // namespace blksim::topology
