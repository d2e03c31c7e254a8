#include "models/cpu/cpu.h"

namespace blksim::cpu {

void Cpu::wake(Task* t, sim::Time now) {
    if (rq_head_ == nullptr && (free_at_ <= now || current_ == t)) {
        current_ = t;
        t->run_step(sim::max(now, free_at_));
        return;
    }
    t->rq_next_ = nullptr;
    if (rq_tail_)
        rq_tail_->rq_next_ = t;
    else
        rq_head_ = t;
    rq_tail_ = t;
    kick(sim::max(now, free_at_));
}

void Cpu::kick(sim::Time when) {
    if (dispatch_pending_)
        return;
    dispatch_pending_ = true;
    q_.at<&Cpu::dispatch>(when, this);
}

// Grant the core to the task at the head of the run queue. If interrupt work pushed
// free_at_ back since this event was scheduled, try again then.
void Cpu::dispatch(uint64_t) {
    dispatch_pending_ = false;
    const sim::Time now = q_.now();
    if (rq_head_ == nullptr)
        return;
    if (free_at_ > now) {
        kick(free_at_);
        return;
    }
    Task* t = rq_head_;
    rq_head_ = t->rq_next_;
    if (rq_head_ == nullptr)
        rq_tail_ = nullptr;
    current_ = t;
    t->run_step(now);
    if (rq_head_)
        kick(sim::max(now, free_at_));
}

}  // namespace blksim::cpu
