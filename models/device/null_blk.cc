#include "models/device/null_blk.h"

namespace blksim::dev {

using Path = blkmq::RequestQueue::CompletionPath;

BlkStatus NullBlk::queue_rq(blkmq::Request* rq, bool /*last*/, sim::Time now, uint32_t cpu) {
    q_->start_request(rq, now);
    switch (cfg_.irqmode) {
    case NullBlkConfig::IrqMode::NONE:
        q_->complete_request(rq, now, cpu, Path::INLINE);
        break;
    case NullBlkConfig::IrqMode::SOFTIRQ:
        q_->complete_request(rq, now, cpu, Path::SOFTIRQ);
        break;
    case NullBlkConfig::IrqMode::TIMER:
        // The hrtimer is armed on, and fires on, the CPU that issued the request; the
        // request pointer travels in the event argument (no per-request allocation).
        eq_.at<&NullBlk::timer_expired>(now + cfg_.completion_nsec, this,
                                        reinterpret_cast<uint64_t>(rq));
        break;
    }
    return BlkStatus::OK;
}

void NullBlk::timer_expired(uint64_t rq_addr) {
    auto* rq = reinterpret_cast<blkmq::Request*>(rq_addr);
    q_->complete_request(rq, eq_.now(), rq->mq_ctx_cpu, Path::TIMER_IRQ);
}

}  // namespace blksim::dev
