// struct blk_plug: the requests a task holds back while it submits a batch, so that they
// reach the driver together (include/linux/blkdev.h, block/blk-core.c, block/blk-mq.c).
#pragma once

#include <cstdint>

#include "models/blkmq/request.h"
#include "models/blkmq/request_queue.h"
#include "sim/time.h"

namespace blksim::blkmq {

// blk-mq's plug limits (block/blk.h): a plug is flushed before it takes a new request when
// it holds BLK_MAX_REQUEST_COUNT requests or its last request is BLK_PLUG_FLUSH_SIZE or more.
inline constexpr uint32_t BLK_MAX_REQUEST_COUNT = 32;
inline constexpr uint64_t BLK_PLUG_FLUSH_SIZE = 128 * 1024;

// One task's plug. A task without one (blk_start_plug not called: a psync job on a kernel
// before 6.11, cpu::HostConfig::submit_bio_plug) still carries its requests here to the end
// of its step, where they go in with no P/U and with the hctx run on kblockd.
class Plug {
public:
    // `pid`: the task that owns the plug (blktrace's U / UT events name it).
    explicit Plug(uint32_t pid) : pid_(pid) {}

    // blk_start_plug(): requests submitted from now on wait here until blk_finish_plug().
    void start() { started_ = true; }
    // blk_finish_plug(): the plugged requests go to the queue (U) and the plug ends.
    void finish(RequestQueue& q, sim::Time now, uint32_t cpu) {
        if (!mq_list_.empty())
            flush_list(q, now, cpu, false, true);
        started_ = false;
    }
    // blk_flush_plug(): hand the plugged requests to the queue; `from_schedule`: the task is
    // about to sleep (UT rather than U). The plug stays started.
    void flush(RequestQueue& q, sim::Time now, uint32_t cpu, bool from_schedule) {
        if (!mq_list_.empty())
            flush_list(q, now, cpu, from_schedule, false);
    }

    bool started() const { return started_; }
    bool empty() const { return mq_list_.empty(); }
    uint32_t rq_count() const { return mq_list_.size(); }
    RequestList& mq_list() { return mq_list_; }
    uint32_t pid() const { return pid_; }

    // blk_add_rq_to_plug()'s rule: full, or its last request is large.
    bool needs_flush() const {
        return !mq_list_.empty() &&
               (mq_list_.size() >= BLK_MAX_REQUEST_COUNT || mq_list_.back()->bytes() >= BLK_PLUG_FLUSH_SIZE);
    }
    // blk_add_rq_to_plug(): `rq` waits at the plug's tail (trace P when the plug was empty).
    void add(RequestQueue& q, Request* rq, sim::Time now, uint32_t cpu) {
        if (q.tracing() && started_ && mq_list_.empty())
            q.trace(TraceAction::PLUG, *rq, now, cpu);
        mq_list_.push_back(rq);
    }

private:
    // __blk_flush_plug() → blk_mq_flush_plug_list(). Without a started plug the requests
    // were only carried here: no U, and the hctx runs on kblockd.
    void flush_list(RequestQueue& q, sim::Time now, uint32_t cpu, bool from_schedule, bool finishing) {
        if (!started_) {
            q.flush_plug(mq_list_, now, cpu, true);
            return;
        }
        if (q.explain()) [[unlikely]]
            explain_flush(q.explain(), now, cpu, from_schedule, finishing);
        q.trace_unplug(from_schedule ? TraceAction::UNPLUG_TIMER : TraceAction::UNPLUG, mq_list_.size(), now,
                       cpu, pid_);
        q.flush_plug(mq_list_, now, cpu);
    }

    // Why the plug goes out now: the task sleeps, its submission ends, or the plug is full
    // (count) or holds a large request (size).
    [[gnu::cold]] void explain_flush(const Explain& e, sim::Time now, uint32_t cpu, bool from_schedule,
                                     bool finishing) const {
        const uint32_t n = mq_list_.size();
        if (from_schedule)
            e.on_cpu(now, cpu, "plug flush: {} requests, the task sleeps (schedule)", n);
        else if (finishing)
            e.on_cpu(now, cpu, "plug flush: {} requests, the submission ends (blk_finish_plug)", n);
        else if (n >= BLK_MAX_REQUEST_COUNT)
            e.on_cpu(now, cpu, "plug flush: {} requests, the plug is full (count {})", n, BLK_MAX_REQUEST_COUNT);
        else
            e.on_cpu(now, cpu, "plug flush: {} requests, the last is {} KiB (size {} KiB)", n,
                     mq_list_.back()->bytes() / 1024, BLK_PLUG_FLUSH_SIZE / 1024);
    }

    RequestList mq_list_;
    uint32_t pid_;
    bool started_ = false;
};

}  // namespace blksim::blkmq
