// struct blk_mq_hw_ctx: one hardware dispatch queue with its driver tags.
// The tags live in the TagSet, which may be shared with other request queues.
#pragma once

#include <cstdint>

#include "models/blkmq/request.h"
#include "models/blkmq/tags.h"

namespace blksim::blkmq {

// One user of a shared tag set for the fair share (docs/references.md §2.2-2.4): the hctx
// (BLK_MQ_S_TAG_ACTIVE, BLK_MQ_S_DTAG_WAIT), or with host-wide tags the whole request queue
// (QUEUE_FLAG_HCTX_ACTIVE; the queue keeps that one, see RequestQueue::tag_user).
struct TagUser {
    bool active = false;     // counted in tags.active_queues
    bool dtag_wait = false;  // counted in tags.pending_queues (Yu Kuai's on_shortage fairness)
};

// struct blk_flush_queue (block/blk.h), one per hctx as in the kernel: requests waiting for
// a cache flush are on the pending list; once a flush is issued the pending list becomes the
// running one (pending_idx != running_idx while it is in flight) and later arrivals gather
// on the other list for the next flush. So one flush is in flight at a time per hctx and
// all the requests that wanted one meanwhile share the next.
struct FlushQueue {
    RequestList queue[2];          // fq->flush_queue[2]
    uint8_t pending_idx = 0;       // fq->flush_pending_idx
    uint8_t running_idx = 0;       // fq->flush_running_idx
    sim::Time pending_since;       // fq->flush_pending_since (jiffies there)
    uint32_t data_in_flight = 0;   // fq->flush_data_in_flight
    Request flush_rq;              // fq->flush_rq: preallocated, borrows its tag
};

class HwQueue;

// hctx->dispatch_wait: with a tag set shared between queues (BLK_MQ_F_TAG_QUEUE_SHARED) a
// hctx that found no driver tag waits on the tags' wait queue as a task would, and a tag
// freed by any queue of the set runs it again (blk_mq_mark_tag_wait, blk_mq_dispatch_wake):
// a completion of its own queue, which restarts an unshared hctx, may never come.
class DispatchWait final : public TagWaiter {
public:
    using RunFn = void (*)(void* q, HwQueue& h, sim::Time now);
    void bind(void* q, HwQueue* h, RunFn run) {
        q_ = q;
        h_ = h;
        run_ = run;
    }
    void tag_wakeup(sim::Time now) override { run_(q_, *h_, now); }

private:
    void* q_ = nullptr;
    HwQueue* h_ = nullptr;
    RunFn run_ = nullptr;
};

class HwQueue {
public:
    HwQueue(uint32_t queue_num, BlkMqTags& t) : tags(t), queue_num_(queue_num) {}
    HwQueue(const HwQueue&) = delete;
    HwQueue& operator=(const HwQueue&) = delete;

    uint32_t queue_num() const { return queue_num_; }
    bool busy() const { return dispatch_busy != 0; }
    bool has_pending() const { return !dispatch.empty() || !sw_pending.empty(); }

    // blk_mq_update_dispatch_busy(): EWMA with weight 8 and a busy sample of 16,
    // integer arithmetic as in the kernel; any non-zero value counts as busy.
    void update_dispatch_busy(bool busy) {
        dispatch_busy = (dispatch_busy * 7 + (busy ? 16u : 0u)) / 8;
    }

    BlkMqTags& tags;             // hctx->tags (driver tags; shared with other queues' hctx i)
    BlkMqTags* sched_tags = nullptr;  // hctx->sched_tags (nr_requests) when an elevator is attached
    RequestList dispatch;        // hctx->dispatch: requeued / bypass requests, served first
    // The software queues (blk_mq_ctx) of the CPUs mapped here, folded into one FIFO:
    // with no elevator the kernel splices all pending ctx lists in one go when the hctx is
    // not busy, which is arrival order per CPU; the round-robin over ctxs used when busy is
    // not modelled (docs/model.md).
    RequestList sw_pending;
    uint32_t dispatch_busy = 0;
    bool sched_restart = false;  // BLK_MQ_S_SCHED_RESTART
    bool run_pending = false;    // an async run (kblockd work) is queued
    uint32_t run_gen = 0;        // bumped when a queued run is pulled earlier: the old event is stale
    // hctx->run_work queued from submission (run_hw_queue_async) and what it is doing. A
    // work item runs on one worker at a time: queued while it runs, it runs again after.
    sim::Time run_at;            // when the queued run is due
    uint32_t run_cpu = 0;        // the CPU whose kblockd worker takes it
    // Dispatch loops on this hctx that go on in a dispatch_continue event (one per CPU
    // running one: a synchronous run from one CPU's plug flush and another's may overlap).
    uint32_t loops_pending = 0;
    sim::Time work_busy_until;   // its last run's CPU work ends here
    uint32_t nr_active = 0;      // driver tags this hctx holds (hctx->nr_active)
    uint32_t in_driver = 0;      // requests the driver holds
    TagUser tag_user;            // this hctx as a user of a shared set (not with host-wide tags)
    FlushQueue fq;               // hctx->fq: the flush state machine (blk-flush.c)
    DispatchWait dispatch_wait;  // hctx->dispatch_wait, on a shared set's tag wait queue

private:
    uint32_t queue_num_;
};

}  // namespace blksim::blkmq
