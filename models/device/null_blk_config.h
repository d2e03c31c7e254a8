// null_blk's module parameters, apart from the model (null_blk.h) so that a scenario
// loader can hold them without the model's headers.
#pragma once

#include <cstdint>

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
    bool shared_tag_bitmap = false;    // host-wide tags: one space for all submit_queues (HCTX_SHARED)
    // Fault injection, a simplification of null_blk's `requeue` attribute (its
    // interval,probability,space,times reduced to the interval): every Nth ->queue_rq is
    // refused, alternately with BLK_STS_RESOURCE and by blk_mq_requeue_request, as
    // null_queue_rq alternates (0 = never).
    uint32_t requeue_every = 0;
    // memory_backed: store the data (a simulation stores none: accepted, no effect on timing).
    // cache_size (MiB): null_blk's write cache in front of it; with cache_size > 0 the device
    // declares a volatile write cache (and FUA when `fua`, null_blk's default 1), so flushes
    // and FUA reach it; 0 (the default): no write cache, flushes end in the block layer.
    bool memory_backed = false;
    uint64_t cache_size_mb = 0;
    // discard (configfs): REQ_OP_DISCARD support, honoured only with memory_backed
    // (null_config_discard(): "discard option is ignored without memory backing"). A discard
    // then ends like any request, through irqmode.
    bool discard = false;
    bool fua = true;
};

}  // namespace blksim::dev
