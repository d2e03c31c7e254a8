#include "models/device/null_blk.h"

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
