// Typed device configuration. One struct per device model; the loader fills the one the
// scenario names.
#pragma once

#include <cstdint>
#include <string>

#include "sim/time.h"

namespace blksim::dev {

// null_blk module parameters (drivers/block/null_blk/main.c), kernel defaults.
struct NullBlkConfig {
    enum class IrqMode : uint8_t { NONE = 0, SOFTIRQ = 1, TIMER = 2 };
    uint32_t submit_queues = 1;        // hctx count (capped at nr_cpus)
    uint32_t hw_queue_depth = 64;      // tag set queue_depth per hctx
    IrqMode irqmode = IrqMode::SOFTIRQ;
    sim::Duration completion_nsec = sim::Duration::ns(10000);  // only for irqmode=2
    uint32_t blocksize = 512;          // logical block size, bytes
    uint64_t size_bytes = 250ULL * 1000 * 1000 * 1000;  // gb=250 (null_blk counts GB as 10^9)
    bool shared_tags = false;          // all null_blk devices with shared_tags share one tag set
    // Fault injection, a simplification of null_blk's `requeue` attribute: every Nth
    // ->queue_rq answers BLK_STS_RESOURCE (0 = never).
    uint32_t requeue_every = 0;
};

enum class DeviceModel : uint8_t { NULL_BLK };

struct DeviceConfig {
    std::string name;         // e.g. "nullb0"
    DeviceModel model = DeviceModel::NULL_BLK;
    NullBlkConfig null_blk;
};

}  // namespace blksim::dev
