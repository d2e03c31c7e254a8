#include "sim/event_queue.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace blksim::sim {

EventQueue::EventQueue() {
    heap_.reserve(1024);
    lane_.resize(1024);
}

void EventQueue::schedule_slow(Time when, EventFn fn, void* obj, uint64_t arg) {
    if (when < now_ || when.ns() < 0) {
        // Time never goes backwards: scheduling into the past is a model bug.
        std::fprintf(stderr, "blksim: invariant violated: event scheduled at %lld ns < now %lld ns\n",
                     static_cast<long long>(when.ns()), static_cast<long long>(now_.ns()));
        std::abort();
    }
    Event e{static_cast<uint64_t>(when.ns()), seq_++, fn, obj, arg};
    if (when == now_)
        lane_push(e);
    else
        future_push(e);
}

// An insertion shifts the slots on the shorter side of its place: those after it up (an
// event later than the middle slot's: a job's next step behind the CPUs' dispatches), or
// those before it down, the ring's head moving back (an event due soon: a device's
// completion among timer ticks, or one just after the next, as kyber's). A full ring sends
// the latest of it and the new event to the heap.
//
// `e` is new, so its seq is above every pending event's: it goes after every slot of its
// time or sooner, and the comparisons need only the times.
void EventQueue::future_push(const Event& e) {
    const uint64_t w = e.when_ns;
    if (nr_near_ == kNear) {
        if (w >= near_latest().when_ns) {
            heap_push(e);
            return;
        }
        heap_push(near_latest());  // the latest slot makes room
        --nr_near_;
    }
    const std::size_t n = nr_near_;
    std::size_t i;
    if (n == 0 || w >= near_at(n / 2).when_ns) {
        for (i = n; i > 0 && w < near_at(i - 1).when_ns; --i)
            near_at(i) = near_at(i - 1);
    } else {
        --near_head_;
        for (i = 0; i < n && near_at(i + 1).when_ns <= w; ++i)
            near_at(i) = near_at(i + 1);
    }
    near_at(i) = e;
    ++nr_near_;
}

void EventQueue::lane_push(const Event& e) {
    if (lane_tail_ - lane_head_ == lane_.size()) {
        std::vector<Event> bigger(lane_.size() * 2);
        std::size_t n = lane_tail_ - lane_head_;
        for (std::size_t i = 0; i < n; ++i)
            bigger[i] = lane_[(lane_head_ + i) & (lane_.size() - 1)];
        lane_ = std::move(bigger);
        lane_head_ = 0;
        lane_tail_ = n;
    }
    lane_[lane_tail_++ & (lane_.size() - 1)] = e;
}

// 4-ary heap: shallower than binary, and the four children share a cache line or two.
void EventQueue::heap_push(const Event& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    while (i > 0) {
        std::size_t parent = (i - 1) / 4;
        if (!before(e, heap_[parent]))
            break;
        heap_[i] = heap_[parent];
        i = parent;
    }
    heap_[i] = e;
}

// Pop by moving the hole at the root down to a leaf along the smallest children, then
// sifting the last element up from there (Floyd): the last element almost always belongs
// near the bottom, so this does fewer comparisons than a top-down sift.
Event EventQueue::heap_pop() {
    Event top = heap_[0];
    const std::size_t n = heap_.size() - 1;
    if (n == 0) {
        heap_.pop_back();
        return top;
    }
    // A group of four children is chosen from without a branch (three comparisons, each a
    // conditional move), which saves the loop and the mispredicted branches while the heap
    // stays in the caches. A heap too large for them waits on memory instead, and then the
    // branches are better: the core speculates down the predicted child and loads the next
    // group meanwhile, where a conditional move waits for its comparison. The hold model
    // (bench_sim.cc, BM_EventQueueHold): 1,024 and 8,192 events 4-12 % faster without the
    // branches; without them at every size, 2^16 events were 6 % and 2^20 a third slower.
    // 1,024 HDDs (about 2,300 pending): 96 fewer instructions per I/O of 5,413.
    const std::size_t branchless_n = n > kBranchlessUpTo ? 0 : n;
    std::size_t i = 0;
    for (;;) {
        const std::size_t c = 4 * i + 1;
        std::size_t best;
        if (c + 3 < branchless_n) {
            const std::size_t a = before(heap_[c + 1], heap_[c]) ? c + 1 : c;
            const std::size_t b = before(heap_[c + 3], heap_[c + 2]) ? c + 3 : c + 2;
            best = before(heap_[b], heap_[a]) ? b : a;
        } else {
            if (c >= n)
                break;
            best = c;
            const std::size_t end = c + 4 < n ? c + 4 : n;
            for (std::size_t k = c + 1; k < end; ++k)
                if (before(heap_[k], heap_[best]))
                    best = k;
        }
        heap_[i] = heap_[best];
        i = best;
    }
    const Event last = heap_[n];
    heap_.pop_back();
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!before(last, heap_[parent]))
            break;
        heap_[i] = heap_[parent];
        i = parent;
    }
    if (i < n)
        heap_[i] = last;
    return top;
}

bool EventQueue::pop_next(Event& out) {
    const bool near = near_first();
    if (near || !heap_.empty()) {
        const Event& min = near ? near_earliest() : heap_[0];
        if (min.when() == now_ || lane_head_ == lane_tail_) {
            if (near) {
                out = min;
                ++near_head_;
                --nr_near_;
            } else {
                out = heap_pop();
            }
            return true;
        }
    }
    if (lane_head_ != lane_tail_) {
        out = lane_[lane_head_++ & (lane_.size() - 1)];
        return true;
    }
    return false;
}

bool EventQueue::run_one_slow() {
    Event e;
    if (!pop_next(e))
        return false;
    now_ = e.when();
    ++processed_;
    e.fn(e.obj, e.arg);
    return true;
}

void EventQueue::run_until(Time limit) {
    stopped_ = false;
    while (!stopped_) {
        if (empty() || next_time() > limit)
            break;
        run_one();
    }
    if (!stopped_ && now_ < limit && limit != Time::never())
        now_ = limit;
}

}  // namespace blksim::sim
