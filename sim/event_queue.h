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
// In front of the heap sit up to kNear slots, sorted: a future event goes there unless all
// are in use and it is later than all of them (then it goes to the heap; an earlier one
// takes the latest slot's place, and that event goes to the heap), and the next pop takes
// the earliest slot if it is earlier than the heap's top. A model where each event
// schedules the next soonest one (a CPU's next dispatch, a job's next step) then pays
// neither a heap push nor a heap pop for it, nor one that schedules an event just after the
// next one (a job's submission deferred to its instant, JobThread::submit_bios()). Keys are
// unique (seq), so taking the smaller of the slots' earliest and the heap's top is the same
// order as one heap of everything. The slots are a ring in ascending order: a pop advances
// its head, and an insertion shifts the slots on the shorter side of its place
// (future_push()). With about ten events pending, a new one usually goes last (the null_blk
// benchmark, 32 jobs on 8 CPUs: nine in ten, past no slot) or just after the soonest
// (kyber's guard case), where the slots as a plain array, filled from one end, shifted five
// to seven 40-byte records per insertion.
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
        if (near_first())
            return near_earliest().when();
        return heap_.empty() ? Time::never() : heap_[0].when();
    }

    // Schedule fn(obj, arg) at `when` (>= now; an earlier time is a model bug and aborts).
    // Inline, the common cases: a future event no sooner than every slot's, with a slot free,
    // goes last (its seq is above every pending one's, so an equal time goes after too), next
    // to last when sooner than the latest only (a job's next step before bfq's idle slice
    // timer, which waits milliseconds at the end of the slots), second, or first.
    void schedule(Time when, EventFn fn, void* obj, uint64_t arg = 0) {
        const auto w = static_cast<uint64_t>(when.ns());
        if (when > now_ && nr_near_ < kNear) [[likely]] {
            const std::size_t n = nr_near_;
            if (n == 0 || w >= near_at(n - 1).when_ns) {
                near_at(n) = Event{w, seq_++, fn, obj, arg};
                ++nr_near_;
                return;
            }
            if (n >= 2 && w >= near_at(n - 2).when_ns) {
                near_at(n) = near_at(n - 1);
                near_at(n - 1) = Event{w, seq_++, fn, obj, arg};
                ++nr_near_;
                return;
            }
            // Just after the soonest: the soonest moves down a slot (a job's submission
            // deferred to its instant under an elevator, when the next event is another
            // core's; mq-deadline's and bfq's guard cases nearly always, kyber's half the time).
            if (n >= 2 && w >= near_at(0).when_ns && w < near_at(1).when_ns) {
                --near_head_;
                near_at(0) = near_at(1);
                near_at(1) = Event{w, seq_++, fn, obj, arg};
                ++nr_near_;
                return;
            }
            // Sooner than every slot (n >= 1 here): the ring's new head. A core's work or an
            // interrupt while only far events are pending (an HDD's media operation, a
            // timer): twice per I/O in the HDD benchmark.
            if (w < near_at(0).when_ns) {
                --near_head_;
                near_at(0) = Event{w, seq_++, fn, obj, arg};
                ++nr_near_;
                return;
            }
        }
        schedule_slow(when, fn, obj, arg);
    }

    // Member-function convenience: q.at<&Foo::bar>(t, foo, arg) calls foo->bar(arg).
    template <auto Method, class C>
    void at(Time when, C* obj, uint64_t arg = 0) {
        schedule(when, &trampoline<Method, C>, obj, arg);
    }

    // Fire the next event; false when nothing is pending. Inline, the common case: nothing
    // at the present instant in the lane, and the slots' earliest before the heap's top.
    bool run_one() {
        if (lane_head_ == lane_tail_ && near_first()) [[likely]] {
            const Event& e = near_earliest();
            const EventFn fn = e.fn;
            void* const obj = e.obj;
            const uint64_t arg = e.arg;
            now_ = e.when();
            ++near_head_;
            --nr_near_;
            ++processed_;
            fn(obj, arg);
            return true;
        }
        return run_one_slow();
    }
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
    void schedule_slow(Time when, EventFn fn, void* obj, uint64_t arg);
    bool run_one_slow();
    void heap_push(const Event& e);
    Event heap_pop();
    void future_push(const Event& e);
    // Whether the earliest future event is the slots' earliest (rather than the heap's top).
    bool near_first() const {
        return nr_near_ > 0 && (heap_.empty() || before(near_earliest(), heap_[0]));
    }
    Event& near_at(std::size_t i) { return near_[(near_head_ + i) & (kNear - 1)]; }
    const Event& near_earliest() const { return near_[near_head_ & (kNear - 1)]; }
    const Event& near_latest() const { return near_[(near_head_ + nr_near_ - 1) & (kNear - 1)]; }
    bool pop_next(Event& out);
    void lane_push(const Event& e);

    // 32 measured best on the guard's cases (scripts/perf-table.sh: docs/performance.md);
    // 8 or 16 cost the NVMe case (128 completions pending) 1-4 % more, 64 gains 0.2 %.
    static constexpr std::size_t kNear = 32;
    static_assert((kNear & (kNear - 1)) == 0, "the ring's index is masked");
    static constexpr std::size_t kBranchlessUpTo = std::size_t{1} << 16;  // heap_pop()
    std::vector<Event> heap_;
    Event near_[kNear]{};  // a ring: nr_near_ slots from near_head_, earliest first
    std::size_t near_head_ = 0, nr_near_ = 0;
    std::vector<Event> lane_;  // power-of-two ring buffer
    std::size_t lane_head_ = 0, lane_tail_ = 0;
    Time now_;
    uint64_t seq_ = 0;
    uint64_t processed_ = 0;
    bool stopped_ = false;
};

}  // namespace blksim::sim
