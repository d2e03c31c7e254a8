#include "models/workload/sq_thread.h"

namespace blksim::workload {

using sim::Duration;
using sim::Time;

SqThread::SqThread(sim::EventQueue& eq, cpu::Cpu& cpu, blkmq::RequestQueue& q, const cpu::HostConfig& host,
                   SqRing& ring, uint32_t pid)
    : eq_(eq), cpu_(cpu), q_(q), costs_(host.costs), ring_(ring), plug_(pid), slice_(sched_slice(host.nr_cpus)) {
    new_task();
}

// The thread becomes runnable after the job thread that created it (an event at the same
// instant comes after the job's own wake-up).
void SqThread::start(Time t) {
    last_work_ = t;
    eq_.at<&SqThread::start_event>(t, this);
}

void SqThread::start_event(uint64_t) {
    if (stopped_ || state_ != State::NEW)
        return;
    state_ = State::RUNNABLE;
    woken_ = true;
    cpu_.wake(this, eq_.now());
}

// One round of __io_sq_thread(): submit what the ring holds, under one plug; nothing there:
// spin, holding the core.
void SqThread::run_step(Time start) {
    if (stopped_) {
        state_ = State::STOPPED;
        cpu_.release(start);
        return;
    }
    state_ = State::RUNNING;
    Duration cost;
    if (woken_) {
        woken_ = false;
        cost = costs_.context_switch;
        slice_start_ = start;
    }
    if (ring_.sq_entries() == 0) {
        begin_spin(cost > Duration() ? cpu_.book(start, cost) : start);
        return;
    }
    plug_.start();
    const SqRing::Submitted r = ring_.submit_sqes(plug_, cpu_.id(), start + cost, this);
    cost += r.cost;
    tag_wait_ = r.wait_tag;
    const Time end = cpu_.book(start, cost);
    last_work_ = end;
    eq_.at<&SqThread::step_done>(end, this);
}

// The round's end: blk_finish_plug() (or the flush of a thread about to sleep for a tag).
void SqThread::step_done(uint64_t) {
    const Time now = eq_.now();
    if (tag_wait_ || tag_wake_at_ > now)
        plug_.flush(q_, now, cpu_.id(), true);
    else
        plug_.finish(q_, now, cpu_.id());
    // The dispatch loop the flush ran goes on in events: the thread is still in it
    // (JobThread::step_done).
    if (cpu_.held()) [[unlikely]] {
        cpu_.wait_hold(this);
        return;
    }
    after_flush(now);
}

void SqThread::held_done(Time now) { after_flush(now); }

void SqThread::after_flush(Time now) {
    if (stopped_) {
        state_ = State::STOPPED;
        cpu_.step_end(this, now, false);
        return;
    }
    if (tag_wait_) {
        state_ = State::SLEEP_TAG;
        cpu_.step_end(this, now, false);
        return;
    }
    if (tag_wake_at_ > now) [[unlikely]] {
        // Woken in this round by a put made ahead of the clock, at an instant after the
        // round's end: it sleeps until then (JobThread::after_flush()); retrying before would
        // find that tag not yet free, with the wake-up spent.
        const Time at = tag_wake_at_;
        tag_wake_at_ = Time{};
        state_ = State::RUNNABLE;
        cpu_.step_end(this, now, false);
        eq_.at<&SqThread::wake_event>(at, this);
        return;
    }
    tag_wake_at_ = Time{};
    if (ring_.sq_entries() > 0) {
        state_ = State::RUNNABLE;  // stored during the round: the next one
        cpu_.step_end(this, now, true);
        return;
    }
    // The loop goes on spinning on the core it holds: the core passes to a task waiting
    // for it only when the slice is used up (tick_event()).
    begin_spin(now);
}

// The spin holds the core from `from`, or from the end of the work already queued on it: the
// round's plug flush (its ->queue_rq, charged after the step) and interrupts that came during
// the step run first and are counted in busy() already, so the spin must not book that time
// again (end_spin() counts only the core's time after spin_from_ that nothing else took).
void SqThread::begin_spin(Time from) {
    state_ = State::SPIN;
    spin_from_ = sim::max(from, cpu_.free_at());
    spin_busy_ = cpu_.busy();
    if (!idle_armed_) {
        idle_armed_ = true;
        eq_.at<&SqThread::idle_event>(sim::max(from, last_work_ + kSqThreadIdle), this);
    }
    if (!tick_armed_) {
        tick_armed_ = true;
        eq_.at<&SqThread::tick_event>(sim::max(from, slice_start_ + slice_), this);
    }
}

// The spin ends at `now`: what interrupts and charged work took of the core meanwhile is
// counted already; the rest was the thread's own.
void SqThread::end_spin(Time now) {
    const Time to = sim::max(now, spin_from_);
    const Duration held = to - spin_from_;
    const Duration others = cpu_.busy() - spin_busy_;
    cpu_.held(spin_from_, to, held > others ? held - others : Duration());
}

void SqThread::posted(Time now) {
    switch (state_) {
    case State::SPIN:
        // The spin sees the new tail at once: a round follows on the core it holds.
        end_spin(now);
        state_ = State::RUNNABLE;
        cpu_.step_end(this, now, true);
        break;
    case State::IDLE:
        // io_uring_enter(IORING_ENTER_SQ_WAKEUP) woke it (the job paid the syscall).
        woken_ = true;
        state_ = State::RUNNABLE;
        cpu_.wake(this, now);
        break;
    default:
        break;  // it finds the SQEs at its next round
    }
}

// need_resched() set by the tick once the slice is used up and a task waits: the loop's
// cond_resched() switches to it. Looked at once per slice while the thread spins.
void SqThread::tick_event(uint64_t) {
    tick_armed_ = false;
    if (state_ != State::SPIN)
        return;  // begin_spin() arms it again
    const Time now = eq_.now();
    if (!cpu_.has_waiting() || now < slice_start_ + slice_) {
        tick_armed_ = true;
        eq_.at<&SqThread::tick_event>(sim::max(now + slice_, slice_start_ + slice_), this);
        return;
    }
    end_spin(now);
    woken_ = true;  // switched out, and back in later
    state_ = State::RUNNABLE;
    cpu_.step_end(this, now, true);
}

// sq_thread_idle after the last round with work, the thread sleeps and sets
// IORING_SQ_NEED_WAKEUP. Polled I/O in flight is work (the loop reaps it).
void SqThread::idle_event(uint64_t) {
    idle_armed_ = false;
    if (state_ != State::SPIN)
        return;  // begin_spin() arms it again
    const Time now = eq_.now();
    if (ring_.iopoll_pending())
        last_work_ = now;
    if (now < last_work_ + kSqThreadIdle) {
        idle_armed_ = true;
        eq_.at<&SqThread::idle_event>(last_work_ + kSqThreadIdle, this);
        return;
    }
    end_spin(now);
    state_ = State::IDLE;
    cpu_.release(now);
}

// sbitmap's wake-up makes the sleeper runnable; it runs later, never inside the put that woke
// it (whose caller is still ending a request: a round played out there took the tag being
// put and lost it again), so the wake-up is an event. A wake-up during the round that slept
// lets the round go on, but not before `now` (a put made ahead of the clock: after_flush()).
void SqThread::tag_wakeup(Time now) {
    tag_wait_ = false;
    if (state_ != State::SLEEP_TAG) {
        tag_wake_at_ = now;
        return;
    }
    state_ = State::RUNNABLE;
    eq_.at<&SqThread::wake_event>(now, this);
}

void SqThread::wake_event(uint64_t) {
    woken_ = true;
    cpu_.wake(this, eq_.now());
}

void SqThread::stop(Time now) {
    stopped_ = true;
    if (state_ == State::SPIN) {
        end_spin(now);
        state_ = State::STOPPED;
        cpu_.release(now);
    } else if (state_ == State::IDLE || state_ == State::SLEEP_TAG || state_ == State::NEW) {
        state_ = State::STOPPED;
    }
    // RUNNABLE: it ends when it gets the core; RUNNING: at the end of its round.
}

}  // namespace blksim::workload
