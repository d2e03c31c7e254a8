// A re-armable timer with O(1) cancellation by generation counter: arming bumps the
// generation and schedules an event carrying it; cancel() bumps it again, so the stale
// event finds a mismatch when it fires and does nothing. No search of the event set.
// Lifetime rule: the stale event still points at the Timer, so a Timer must outlive every
// event it armed — own timers in long-lived model objects (a device, a scheduler), never in
// something freed while the simulation runs.
#pragma once

#include "sim/event_queue.h"

namespace blksim::sim {

class Timer {
public:
    Timer(EventQueue& q, EventFn fn, void* obj) : q_(q), fn_(fn), obj_(obj) {}
    Timer(const Timer&) = delete;
    Timer& operator=(const Timer&) = delete;

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
    bool armed() const { return armed_; }
    Time expires() const { return expires_; }

private:
    static void fire(void* self, uint64_t gen) {
        auto* t = static_cast<Timer*>(self);
        if (gen != t->gen_ || !t->armed_)
            return;  // cancelled or re-armed since
        t->armed_ = false;
        t->fn_(t->obj_, 0);
    }

    EventQueue& q_;
    EventFn fn_;
    void* obj_;
    uint64_t gen_ = 0;
    bool armed_ = false;
    Time expires_;
};

}  // namespace blksim::sim
