#include "models/cpu/cpu.h"

#include <algorithm>
#include <stdexcept>

#include "models/cpu/ksoftirqd.h"

namespace blksim::cpu {

Cpu::Cpu(sim::EventQueue& q, uint32_t id) : q_(q), id_(id) {}
Cpu::~Cpu() = default;

Ksoftirqd& Cpu::ksoftirqd() {
    if (!ksoftirqd_) [[unlikely]]
        ksoftirqd_ = std::make_unique<Ksoftirqd>(q_, *this, context_switch_);
    return *ksoftirqd_;
}

void Cpu::enqueue(Task* t) {
    t->rq_next_ = nullptr;
    if (rq_tail_)
        rq_tail_->rq_next_ = t;
    else
        rq_head_ = t;
    rq_tail_ = t;
}

Task* Cpu::dequeue() {
    Task* t = rq_head_;
    rq_head_ = t->rq_next_;
    if (rq_head_ == nullptr)
        rq_tail_ = nullptr;
    return t;
}

// Take `t` out of the run queue wherever it is (a waiter's place, wait_hold()).
bool Cpu::unlink(Task* t) {
    Task* prev = nullptr;
    for (Task* p = rq_head_; p != nullptr; prev = p, p = p->rq_next_) {
        if (p != t)
            continue;
        (prev ? prev->rq_next_ : rq_head_) = p->rq_next_;
        if (rq_tail_ == p)
            rq_tail_ = prev;
        return true;
    }
    return false;
}

// A dispatch event already asked for stays: finding the run queue empty (or another task at
// its head) it does what it would have done without `t`.
bool Cpu::pull(Task* t) {
    if (t == queued_waiter_ || !unlink(t))
        return false;
    if (cfs_) [[unlikely]]
        cfs_->migrate_out(t->se_);
    return true;
}

uint32_t find_idle_cpu(std::span<const std::unique_ptr<Cpu>> cpus, sim::Time now) {
    for (uint32_t c = 0; c < cpus.size(); ++c)
        if (cpus[c]->idle(now))
            return c;
    return UINT32_MAX;
}

uint32_t select_idle_sibling(std::span<const std::unique_ptr<Cpu>> cpus, uint32_t prev, const Task* t,
                             std::span<const uint32_t> allowed, sim::Time now) {
    if (cpus[prev]->idle_for(t, now) || !cpus[prev]->has_sd_llc())
        return prev;
    const auto n = static_cast<uint32_t>(cpus.size());
    for (uint32_t i = 1; i < n; ++i) {
        const uint32_t c = (prev + i) % n;
        if ((allowed.empty() || std::binary_search(allowed.begin(), allowed.end(), c)) && cpus[c]->idle_for(t, now))
            return c;
    }
    return prev;
}

void Cpu::wait_hold(Task* t) {
    hold_waiter_ = queued_waiter_ = t;
    enqueue(t);  // nothing takes it from there while it is still running
}

void Cpu::unhold(sim::Time now) {
    if (holds_ == 0) [[unlikely]]
        throw std::logic_error("Cpu::unhold without a hold");
    if (--holds_ > 0 || hold_waiter_ == nullptr)
        return;
    Task* t = hold_waiter_;
    hold_waiter_ = nullptr;
    t->held_done(now);
}

void Cpu::wake(Task* t, sim::Time now) {
    if (cfs_) [[unlikely]] {
        cfs_->update_curr(now.ns());
        cfs_->enqueue(t->se_, now.ns());
    }
    if (!running_ && rq_head_ == nullptr && (free_at_ <= now || current_ == t)) {
        sim::Time start = sim::max(now, free_at_);
        if (jitter_) [[unlikely]]
            start += jitter_->wake_latency();
        grant(t, start);
        return;
    }
    if (running_ && t != current_ && (!cfs_ || cfs_->wakeup_preempt(t->se_)))
        ++preempting_wakeups_;
    enqueue(t);
    if (spinning_ && running_ && t != current_) [[unlikely]]
        current_->wakeup_preempt(now);
    // A running step hands the core on when it ends; otherwise the core is idle or busy
    // with interrupt work only, and an event grants it when that is done.
    if (!running_)
        kick(sim::max(now, free_at_));
}

void Cpu::step_end(Task* t, sim::Time now, bool runnable) {
    running_ = false;
    if (cfs_) [[unlikely]]
        eevdf_step_end(t, now, runnable);
    if (queued_waiter_ == t) [[unlikely]] {
        // Back from held work (wait_hold): its place in the run queue is the one it took
        // when its step ended; kept if it goes on, given up if it sleeps.
        queued_waiter_ = nullptr;
        if (!runnable)
            unlink(t);
    } else if (runnable) {
        if (rq_head_ == nullptr) {
            // Its next step reads what completed by the step's start: played out now only if
            // nothing can happen before that instant, else at it (the rule of submissions).
            const sim::Time start = sim::max(now, free_at_);
            if (start > q_.now() && q_.next_time() <= start) {
                enqueue(t);
                kick(start);
                return;
            }
            grant(t, start);
            return;
        }
        enqueue(t);
    }
    if (rq_head_ == nullptr)
        return;
    if (free_at_ <= now)
        grant(dequeue(), now);
    else
        kick(free_at_);
}

// EEVDF's side of a step's end: the task's time counts; one going to sleep leaves the queue
// (or stays, delayed), and a core left with nothing runnable picks the delayed ones off.
void Cpu::eevdf_step_end(Task* t, sim::Time now, bool runnable) {
    const int64_t end = sim::max(now, free_at_).ns();  // the charged work after the step is its too
    cfs_->update_curr(end);
    if (runnable)
        return;
    cfs_->dequeue_sleep(t->se_);
    for (const Task* p = rq_head_; p != nullptr; p = p->rq_next_)
        if (p != t)
            return;
    cfs_->went_idle(end);
}

void Cpu::release(sim::Time now) {
    running_ = false;
    if (cfs_) [[unlikely]]
        eevdf_step_end(current_, now, false);
    if (rq_head_)
        kick(sim::max(now, free_at_));
}

// A step booked from `start` to `end`: what OsJitter takes in it goes on the core's time
// after the step's own work (the tick as interrupt time). The host's stalls count as busy
// time too, and are traced as another task's: a guest without steal accounting sees its
// running task take that much longer.
sim::Time Cpu::take_jitter(sim::Time start, sim::Time end) {
    sim::Duration tick, other, stolen;
    const sim::Time out = jitter_->take(start, end, tick, other, stolen);
    jitter_at_ = jitter_->next();
    other += stolen;
    busy_ += tick + other;
    irq_busy_ += tick;
    if (work_trace_) [[unlikely]] {
        if (tick > sim::Duration{})
            work_trace_->work(id_, Work::TICK, end, tick, tick, {});
        if (other > sim::Duration{})
            work_trace_->work(id_, Work::OTHER_TASK, end + tick, other, other, {});
    }
    return out;
}

// One pending dispatch event is enough: every kick asks for max(now, free_at_) or for
// free_at_ > now, and neither now nor free_at_ ever goes back (book() ends a step granted at
// or after free_at_; take() and held() only push it on), so a kick is never for an instant
// earlier than the one pending.
void Cpu::kick(sim::Time when) {
    if (dispatch_pending_)
        return;
    dispatch_pending_ = true;
    q_.at<&Cpu::dispatch>(when, this);
}

// Grant the core to the head of the run queue once interrupt work is done with it.
void Cpu::dispatch(uint64_t) {
    dispatch_pending_ = false;
    const sim::Time now = q_.now();
    if (running_ || rq_head_ == nullptr)
        return;
    if (free_at_ > now) {
        kick(free_at_);
        return;
    }
    grant(dequeue(), now);
}

}  // namespace blksim::cpu

namespace blksim::cpu {

const char* work_name(Work w) {
    switch (w) {
    case Work::STEP: return "step";
    case Work::INSERT: return "insert";
    case Work::LOCK: return "lock";
    case Work::QUEUE_RQ: return "queue_rq";
    case Work::KBLOCKD: return "kblockd";
    case Work::IRQ: return "irq";
    case Work::COMPLETION: return "completion";
    case Work::FINISH: return "sched_finish";
    case Work::SPIN: return "spin";
    case Work::KERNEL: return "kernel";
    case Work::TICK: return "tick";
    case Work::OTHER_TASK: return "other_task";
    }
    return "?";
}

}  // namespace blksim::cpu
