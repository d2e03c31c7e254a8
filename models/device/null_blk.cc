#include "models/device/null_blk.h"

#include "models/device/device_kind.h"

namespace blksim::dev {

using Path = blkmq::DriverQueue::CompletionPath;

BlkStatus NullBlk::queue_rq(blkmq::Request* rq, bool /*last*/, sim::Time now, uint32_t cpu) {
    if (cfg_.requeue_every != 0 && ++nr_queue_rq_ % cfg_.requeue_every == 0) {
        // Fault injection (should_requeue_request): alternate between the core's BUSY path
        // and the driver-driven requeue path, as null_queue_rq does; both before
        // blk_mq_start_request.
        if (++requeue_selection_ & 1)
            return BlkStatus::RESOURCE;
        q_->requeue_request(rq, now, cpu);
        return BlkStatus::OK;
    }
    q_->start_request(rq, now);
    switch (cfg_.irqmode) {
    case NullBlkConfig::IrqMode::NONE:
        q_->complete_request(rq, now, cpu, Path::INLINE);
        break;
    case NullBlkConfig::IrqMode::SOFTIRQ:
        q_->complete_request(rq, now, cpu, Path::SOFTIRQ);
        break;
    case NullBlkConfig::IrqMode::TIMER: {
        // The hrtimer is armed on, and fires on, the CPU that issued the request.
        if (count_ == ring_.size()) {
            std::vector<Pending> bigger(ring_.empty() ? 64 : ring_.size() * 2);
            for (std::size_t i = 0; i < count_; ++i)
                bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
            ring_ = std::move(bigger);
            head_ = 0;
        }
        const std::size_t mask = ring_.size() - 1;
        const sim::Time when = now + cfg_.completion_nsec;
        std::size_t i = count_++;
        while (i > 0 && ring_[(head_ + i - 1) & mask].when > when) {
            ring_[(head_ + i) & mask] = ring_[(head_ + i - 1) & mask];
            --i;
        }
        ring_[(head_ + i) & mask] = {when, rq};
        if (i == 0)
            arm_head();  // a new earliest expiry (the queue was empty or this one overtook)
        break;
    }
    }
    return BlkStatus::OK;
}

void NullBlk::arm_head() {
    // An event already pending for a later head stays and finds nothing due; the new head
    // gets its own event. Either way every due request is ended at its own instant.
    eq_.at<&NullBlk::timer_expired>(ring_[head_].when, this);
}

void NullBlk::timer_expired(uint64_t) {
    const sim::Time now = eq_.now();
    const std::size_t mask = ring_.size() - 1;
    // End every request due now (in issue order), then wait for the next.
    bool fired = false;
    while (count_ > 0 && ring_[head_].when <= now) {
        blkmq::Request* rq = ring_[head_].rq;
        head_ = (head_ + 1) & mask;
        --count_;
        fired = true;
        q_->complete_request(rq, now, rq->mq_ctx_cpu, Path::TIMER_IRQ);
    }
    if (fired && count_ > 0)
        arm_head();
}

}  // namespace blksim::dev

// --- the model's descriptor ---

namespace blksim::dev {
namespace {

using C = NullBlkConfig;
constexpr int64_t kIrqModes[] = {0, 1, 2};
constexpr int64_t kBlockSizes[] = {512, 1024, 2048, 4096};
constexpr kind::Param<C> kParams[] = {
    kind::choice<C>("irqmode", {}, kIrqModes, [](C& c, int64_t v) { c.irqmode = static_cast<C::IrqMode>(v); },
                    [](const C& c) { return static_cast<int64_t>(c.irqmode); },
                    "null_blk irqmode: how completions are signalled: 0 = none (in the submitter's context), 1 = "
                    "softirq, 2 = timer (after completion_nsec). Default {default}."),
    kind::time("completion_nsec", &C::completion_nsec,
               "null_blk completion_nsec: completion delay for irqmode=2. Integer nanoseconds or a time such as "
               "\"10us\". Default {default}.", 0),
    kind::integer("hw_queue_depth", &C::hw_queue_depth, 1, 10240,
                  "null_blk hw_queue_depth: tags per hardware queue, 1..10240 (BLK_MQ_MAX_DEPTH). Default {default}."),
    kind::integer("submit_queues", &C::submit_queues, 1, 1024,
                  "null_blk submit_queues: number of hardware queues, 1..1024. Default {default}."),
    kind::one_of("blocksize", &C::blocksize, kBlockSizes,
                 "null_blk bs: logical block size in bytes: 512, 1024, 2048 or 4096. Default {default}."),
    kind::integer("gb", &C::size_bytes, 1, 1048576, "null_blk gb: capacity in GB of 10^9 bytes, 1..1048576. Default {default}.",
                  kind::kGB),
    kind::integer("requeue_every", &C::requeue_every, 0, 1000000,
                  "Fault injection (a simplification of null_blk's requeue attribute): every Nth ->queue_rq is refused, "
                  "alternately with BLK_STS_RESOURCE (the request goes back to hctx->dispatch and the queue is rerun) "
                  "and by the driver calling blk_mq_requeue_request (trace R; the requeue work reinserts it at the head "
                  "of the elevator or software queue), as null_queue_rq alternates. 0 = never. Default {default}."),
    kind::flag("shared_tags", &C::shared_tags,
               "null_blk shared_tags: 1 = all null_blk devices with shared_tags=1 use one tag set "
               "(BLK_MQ_F_TAG_QUEUE_SHARED once two queues use it). Default {default}."),
    kind::flag("shared_tag_bitmap", &C::shared_tag_bitmap,
               "null_blk shared_tag_bitmap: 1 = host-wide tags (BLK_MQ_F_TAG_HCTX_SHARED): one space of hw_queue_depth "
               "tags for all submit_queues instead of hw_queue_depth per queue; with shared_tags too, the fair share's "
               "user is the request queue. Default {default}."),
    kind::flag("memory_backed", &C::memory_backed,
               "null_blk memory_backed: keep the written data (no effect on a simulation's timing; accepted as "
               "null_blk has it). Default {default}."),
    kind::flag("discard", &C::discard,
               "null_blk discard: 1 = the disk takes discards (fio's trims), each ending like any request through "
               "irqmode; honoured only with memory_backed=1, as null_config_discard() has it (otherwise a trim fails "
               "with EOPNOTSUPP). Default {default}."),
    kind::integer("cache_size", &C::cache_size_mb, 0, 1048576,
                  "null_blk cache_size, MiB: a write cache in front of the device; with it the queue has a volatile "
                  "write cache, so flushes (fsync) and FUA writes reach the driver (null_handle_flush ends them like "
                  "any request). 0: no write cache, REQ_PREFLUSH/REQ_FUA are stripped and an empty flush "
                  "ends in the block layer. Default {default}."),
    kind::flag("fua", &C::fua,
               "null_blk fua: with a cache_size, the queue honours FUA (BLK_FEAT_FUA). Default {default}, as null_blk."),
};

constinit const DeviceKindOf<C> kKind{
    "null_blk", "drivers/block/null_blk: no media, completes per irqmode; the calibration device",
    "null_blk module parameters (drivers/block/null_blk), kernel defaults when left out.",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t, BuildCache&) -> std::unique_ptr<Device> {
         return std::make_unique<NullBlk>(eq, c);
     },
     .geometry = [](const C& c) { return DeviceGeometry{c.size_bytes, c.blocksize, c.submit_queues, c.hw_queue_depth}; }}};

}  // namespace

const DeviceKind& null_blk_kind() { return kKind; }

}  // namespace blksim::dev
