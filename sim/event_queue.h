// The pending-event set of the discrete-event kernel.
//
// Events are 40-byte records {when, seq, fn, obj, arg} kept by value: no allocation per
// event once the containers have grown to the run's peak. Order is (when, seq), seq being
// the insertion counter, so events at equal times fire in the order they were scheduled,
// on any machine.
//
// Two lanes (as OMNeT++'s cEventHeap does): events scheduled for the current instant go to
// a FIFO ring, everything else to a 4-ary min-heap. Every heap event due now was inserted
// before the clock reached now, so it has a smaller seq than anything in the ring: firing
// heap-at-now first, then the ring, preserves (when, seq) order exactly.
//
// In front of the heap sit a few slots (kNear), sorted, filled lazily: a future event
// scheduled while a slot is free (or earlier than the latest event in them, which then goes
// to the heap) goes there, unless it is later than all of several in use (future_push()),
// and the next pop takes the earliest of them if it is earlier than the heap's top. A model
// where each event schedules the next soonest one (a CPU's next dispatch, a job's next step)
// then pays neither a heap push nor a heap pop for it, nor one that schedules an event just
// after the next one (a job's submission deferred to its instant,
// JobThread::submit_bios()). Keys are unique (seq), so taking the smaller of the slots'
// earliest and the heap's top is the same order as one heap of everything.
//
// Cancellation is not done here; see Timer (generation counter) in timer.h.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/time.h"

namespace blksim::sim {

using EventFn = void (*)(void* obj, uint64_t arg);

struct Event {
    // (when, seq), compared as one unsigned 128-bit key (key()): two 64-bit words rather
    // than an __int128 member keep the record at 40 bytes (8-byte aligned, not 16), which
    // is what the heap moves. Simulated time is never negative, so the unsigned word orders
    // like the int64.
    uint64_t when_ns;
    uint64_t seq_;
    EventFn fn;
    void* obj;
    uint64_t arg;

    Time when() const { return Time::from_ns(static_cast<int64_t>(when_ns)); }
    uint64_t seq() const { return seq_; }
    unsigned __int128 key() const { return static_cast<unsigned __int128>(when_ns) << 64 | seq_; }
};

class EventQueue {
public:
    EventQueue();

    Time now() const { return now_; }
    uint64_t events_processed() const { return processed_; }
    std::size_t pending() const { return heap_.size() + nr_near_ + (lane_tail_ - lane_head_); }
    bool empty() const { return pending() == 0; }
    // The instant of the next event to fire: now while events at now are pending, never when
    // nothing is. A model may act ahead of the clock up to (not including) it: nothing can
    // happen in between.
    Time next_time() const {
        if (lane_tail_ != lane_head_)
            return now_;
        const Event* m = future_min();
        return m ? m->when() : Time::never();
    }

    // Schedule fn(obj, arg) at `when` (>= now; an earlier time is a model bug and aborts).
    void schedule(Time when, EventFn fn, void* obj, uint64_t arg = 0);

    // Member-function convenience: q.at<&Foo::bar>(t, foo, arg) calls foo->bar(arg).
    template <auto Method, class C>
    void at(Time when, C* obj, uint64_t arg = 0) {
        schedule(when, &trampoline<Method, C>, obj, arg);
    }

    // Fire the next event; false when nothing is pending.
    bool run_one();
    // Fire events while the next one is at or before `limit`; the clock ends at `limit`
    // (or earlier if stop() was called or the queue ran dry).
    void run_until(Time limit);
    void stop() { stopped_ = true; }
    bool stopped() const { return stopped_; }

private:
    template <auto Method, class C>
    static void trampoline(void* obj, uint64_t arg) {
        (static_cast<C*>(obj)->*Method)(arg);
    }
    static bool before(const Event& a, const Event& b) { return a.key() < b.key(); }
    void heap_push(const Event& e);
    Event heap_pop();
    void future_push(const Event& e);
    // The earliest future event (the slots' earliest or the heap's top), nullptr when none.
    const Event* future_min() const {
        if (nr_near_ > 0 && (heap_.empty() || before(near_[nr_near_ - 1], heap_[0])))
            return &near_[nr_near_ - 1];
        return heap_.empty() ? nullptr : &heap_[0];
    }
    Event future_pop(const Event* min);
    bool pop_next(Event& out);
    void lane_push(const Event& e);

    static constexpr std::size_t kNear = 8;
    std::vector<Event> heap_;
    Event near_[kNear]{};       // slots in use: [0, nr_near_), latest first
    std::size_t nr_near_ = 0;
    std::vector<Event> lane_;  // power-of-two ring buffer
    std::size_t lane_head_ = 0, lane_tail_ = 0;
    Time now_;
    uint64_t seq_ = 0;
    uint64_t processed_ = 0;
    bool stopped_ = false;
};

}  // namespace blksim::sim
