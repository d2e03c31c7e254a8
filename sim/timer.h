// A re-armable timer with O(1) cancellation by generation counter: arming bumps the
// generation and schedules an event carrying it; cancel() bumps it again, so the stale
// event finds a mismatch when it fires and does nothing. No search of the event set.
// Lifetime rule: the stale event still points at the Timer, so a Timer must outlive every
// event it armed — own timers in long-lived model objects (a device, a scheduler), never in
// something freed while the simulation runs.
#pragma once

#include "sim/event_queue.h"

namespace blksim::sim {

// What both timers keep: the queue, the callback, the generation of the valid event.
class TimerState {
public:
    TimerState(EventQueue& q, EventFn fn, void* obj) : q_(q), fn_(fn), obj_(obj) {}
    TimerState(const TimerState&) = delete;
    TimerState& operator=(const TimerState&) = delete;
    bool armed() const { return armed_; }
    Time expires() const { return expires_; }

protected:
    ~TimerState() = default;
    EventQueue& q_;
    EventFn fn_;
    void* obj_;
    uint64_t gen_ = 0;
    bool armed_ = false;
    Time expires_;
};

class Timer : public TimerState {
public:
    Timer(EventQueue& q, EventFn fn, void* obj) : TimerState(q, fn, obj) {}

    void arm(Time when) {
        ++gen_;
        armed_ = true;
        expires_ = when;
        q_.schedule(when, &Timer::fire, this, gen_);
    }
    void cancel() {
        ++gen_;
        armed_ = false;
    }

private:
    static void fire(void* self, uint64_t gen) {
        auto* t = static_cast<Timer*>(self);
        if (gen != t->gen_ || !t->armed_)
            return;  // cancelled or re-armed since
        t->armed_ = false;
        t->fn_(t->obj_, 0);
    }
};

// A timer re-armed far more often than it fires (bfq's idle slice: armed when the in-service
// queue empties, cancelled by its next request microseconds later, at every request). Arming
// adds an event only when none is pending at or before the new expiry; cancel() keeps the
// pending event, which, firing early, finds the timer disarmed (and is dropped) or armed for
// later (and moves itself there). So the event set holds one event per timer, not one per
// arming. Same lifetime rule as Timer.
class LazyTimer : public TimerState {
public:
    LazyTimer(EventQueue& q, EventFn fn, void* obj) : TimerState(q, fn, obj) {}

    void arm(Time when) {
        armed_ = true;
        expires_ = when;
        if (pending_ && pending_at_ <= when)
            return;
        ++gen_;  // an earlier event replaces the pending one, which goes stale
        pending_ = true;
        pending_at_ = when;
        q_.schedule(when, &LazyTimer::fire, this, gen_);
    }
    void cancel() { armed_ = false; }

private:
    static void fire(void* self, uint64_t gen) {
        auto* t = static_cast<LazyTimer*>(self);
        if (gen != t->gen_)
            return;
        t->pending_ = false;
        if (!t->armed_)
            return;
        if (t->q_.now() < t->expires_) {  // re-armed for later since this event was scheduled
            t->pending_ = true;
            t->pending_at_ = t->expires_;
            t->q_.schedule(t->expires_, &LazyTimer::fire, t, t->gen_);
            return;
        }
        t->armed_ = false;
        t->fn_(t->obj_, 0);
    }

    bool pending_ = false;  // an event of generation gen_ is in the queue, at pending_at_
    Time pending_at_;
};

}  // namespace blksim::sim
