#include "sim/event_queue.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace blksim::sim {

EventQueue::EventQueue() {
    heap_.reserve(1024);
    lane_.resize(1024);
}

void EventQueue::schedule(Time when, EventFn fn, void* obj, uint64_t arg) {
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

// An event later than every slot's goes to the heap once kFar slots are in use, as it would
// behind one slot: a far one (a completion) then does not shift the slots nor push out a
// near one later, while the few soonest (the next event and a step deferred to just after
// it) stay out of the heap. 6 of 8 measured best since a step's next grant is an event of its
// own too (Cpu::step_end): 10 jobs on 8 cores keep about 10 events pending, and with 4 the
// heap held 4 of them at every pop (scripts/perf-table.sh --check: docs/performance.md).
static constexpr std::size_t kFar = 6;

void EventQueue::future_push(const Event& e) {
    if (nr_near_ >= kFar && !before(e, near_[0])) {
        heap_push(e);
        return;
    }
    if (nr_near_ == kNear) {
        heap_push(near_[0]);  // the latest slot makes room
        for (std::size_t i = 1; i < kNear; ++i)
            near_[i - 1] = near_[i];
        --nr_near_;
    }
    // Latest first: an event due soon goes near the end, past few slots.
    std::size_t i = nr_near_;
    for (; i > 0 && before(near_[i - 1], e); --i)
        near_[i] = near_[i - 1];
    near_[i] = e;
    ++nr_near_;
}

// `min` is future_min(): either the earliest slot or the heap's top.
Event EventQueue::future_pop(const Event* min) {
    if (heap_.empty() || min != heap_.data())
        return near_[--nr_near_];
    return heap_pop();
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
    std::size_t i = 0;
    for (;;) {
        const std::size_t c = 4 * i + 1;
        if (c >= n)
            break;
        std::size_t best = c;
        const std::size_t end = c + 4 < n ? c + 4 : n;
        for (std::size_t k = c + 1; k < end; ++k)
            if (before(heap_[k], heap_[best]))
                best = k;
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
    const Event* min = future_min();
    if (min != nullptr && min->when() == now_) {
        out = future_pop(min);
        return true;
    }
    if (lane_head_ != lane_tail_) {
        out = lane_[lane_head_++ & (lane_.size() - 1)];
        return true;
    }
    if (min == nullptr)
        return false;
    out = future_pop(min);
    return true;
}

bool EventQueue::run_one() {
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
        Time next;
        if (lane_head_ != lane_tail_)
            next = now_;
        else if (const Event* min = future_min())
            next = min->when();
        else
            break;
        if (next > limit)
            break;
        run_one();
    }
    if (!stopped_ && now_ < limit && limit != Time::never())
        now_ = limit;
}

}  // namespace blksim::sim
