// null_blk (drivers/block/null_blk/main.c): a device with no media. ->queue_rq starts the
// request and ends it according to irqmode:
//   0 (none)    inside ->queue_rq;
//   1 (softirq) through blk_mq_complete_request() from the submitting CPU;
//   2 (timer)   from an hrtimer that fires completion_nsec later on the issuing CPU.
// Unlimited internal parallelism: the only limit on requests in flight is the tag set
// (hw_queue_depth per hctx), so any latency beyond completion_nsec is block layer and CPU.
#pragma once

#include "models/blkmq/driver_api.h"
#include "models/device/device.h"
#include "models/device/null_blk_config.h"
#include "sim/event_queue.h"

#include <vector>

namespace blksim::dev {

class NullBlk final : public Device {
public:
    NullBlk(sim::EventQueue& eq, const NullBlkConfig& cfg) : eq_(eq), cfg_(cfg) {}
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    uint32_t nr_hw_queues() const override { return cfg_.submit_queues; }
    uint32_t queue_depth() const override { return cfg_.hw_queue_depth; }
    uint64_t capacity_sectors() const override { return cfg_.size_bytes >> 9; }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }
    sim::Duration request_timeout() const override { return sim::Duration::ns(5'000'000'000); }
    bool completes_inline() const override { return cfg_.irqmode == NullBlkConfig::IrqMode::NONE; }
    // null_add_dev(): a cache_size gives the queue a write cache (and FUA with fua=1). A
    // flush (null_handle_flush) ends like any request, through irqmode.
    bool write_cache() const override { return cfg_.cache_size_mb > 0; }
    bool fua() const override { return cfg_.fua; }
    bool host_tagset() const override { return cfg_.shared_tag_bitmap; }
    // null_config_discard(): UINT_MAX >> 9 sectors, granularity the block size.
    uint32_t max_discard_sectors() const override {
        return cfg_.discard && cfg_.memory_backed ? 0xFFFFFFFFu >> 9 : 0;
    }

private:
    void timer_expired(uint64_t);
    void arm_head();

    // queue_rq()'s fields first, together (docs/performance.md, Cost per device): the
    // configuration is 72 bytes, and what it asks of it (irqmode, requeue_every) follows.
    sim::EventQueue& eq_;
    blkmq::DriverQueue* q_ = nullptr;
    uint64_t nr_queue_rq_ = 0;  // for requeue_every
    NullBlkConfig cfg_;

    // irqmode=2: every request ends completion_nsec after its issue, so the pending timers
    // fire in issue order. One FIFO with one armed event for its head replaces a timer per
    // request: the event heap stays small and the cost per I/O flat however many are in
    // flight. Issue instants from different CPUs can be slightly out of order (each CPU
    // stamps its plug flush), so a new entry is placed from the tail, which is O(1) in
    // practice; equal instants keep their issue order.
    struct Pending {
        sim::Time when;
        blkmq::Request* rq;
    };
    std::vector<Pending> ring_;   // power-of-two ring
    std::size_t head_ = 0, count_ = 0;
    uint64_t requeue_selection_ = 0;  // nq->requeue_selection: odd = BLK_STS_RESOURCE, even = requeue
};

}  // namespace blksim::dev
