#include "models/cpu/ksoftirqd.h"

namespace blksim::cpu {

bool Ksoftirqd::raise(SoftirqAction* action, void* item, sim::Time now) {
    pending_.push_back({action, item});
    if (awake_)
        return false;
    awake_ = true;
    switched_in_ = false;
    cpu_.wake(this, now);
    return true;
}

void Ksoftirqd::run_step(sim::Time start) {
    if (pending_.empty()) {
        awake_ = false;
        cpu_.release(start);
        return;
    }
    batch_.swap(pending_);
    sim::Duration cost;
    if (!switched_in_) {
        switched_in_ = true;
        cost = context_switch_;
    }
    eq_.at<&Ksoftirqd::step_done>(cpu_.book(start, cost), this);
}

void Ksoftirqd::step_done(uint64_t) {
    const sim::Time now = eq_.now();
    for (const Item& w : batch_)
        w.action->softirq(w.item, cpu_.id(), now);
    batch_.clear();
    const bool more = !pending_.empty();
    awake_ = more;
    cpu_.step_end(this, now, more);
}

}  // namespace blksim::cpu
