// Tests of the discrete-event kernel: EventQueue ordering (including the two-lane
// same-instant path), run_until/stop semantics, a randomized comparison against a
// reference ordered map of (time, seq), steady-state memory, and Timer cancellation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/time.h"
#include "sim/timer.h"

using namespace blksim::sim;
using namespace blksim::sim::literals;

namespace {

// Records (time of dispatch, id) of every event it receives. Events may carry "children":
// when event `id` fires, every (delta, child) registered for it is scheduled at now + delta,
// in registration order (std::multimap keeps equal keys in insertion order).
struct Script {
    EventQueue q;
    std::vector<std::pair<int64_t, uint64_t>> fired;
    std::multimap<uint64_t, std::pair<int64_t, uint64_t>> children;
    uint64_t stop_on = UINT64_MAX;  // call q.stop() from inside this event

    void at(int64_t t_ns, uint64_t id) { q.schedule(Time::from_ns(t_ns), &Script::fire, this, id); }
    void on_fire(uint64_t id, int64_t delta_ns, uint64_t child) { children.emplace(id, std::make_pair(delta_ns, child)); }

    static void fire(void* self, uint64_t id) {
        auto* s = static_cast<Script*>(self);
        s->fired.emplace_back(s->q.now().ns(), id);
        auto [b, e] = s->children.equal_range(id);
        for (auto it = b; it != e; ++it)
            s->at(s->q.now().ns() + it->second.first, it->second.second);
        if (id == s->stop_on)
            s->q.stop();
    }

    std::vector<uint64_t> ids() const {
        std::vector<uint64_t> v;
        for (auto& f : fired)
            v.push_back(f.second);
        return v;
    }
    std::vector<int64_t> times() const {
        std::vector<int64_t> v;
        for (auto& f : fired)
            v.push_back(f.first);
        return v;
    }
};

}  // namespace

TEST_CASE("EventQueue: a new queue is empty at time zero", "[sim]") {
    EventQueue q;
    CHECK(q.now() == Time::zero());
    CHECK(q.empty());
    CHECK(q.pending() == 0);
    CHECK(q.events_processed() == 0);
    CHECK_FALSE(q.run_one());
    CHECK(q.now() == Time::zero());
}

TEST_CASE("EventQueue: events fire in time order and the clock follows them", "[sim]") {
    Script s;
    s.at(50, 5);
    s.at(10, 1);
    s.at(30, 3);
    s.at(20, 2);
    s.at(40, 4);
    s.at(1'000'000'000, 6);  // 1 s: far beyond the others
    CHECK(s.q.pending() == 6);

    while (s.q.run_one()) {
    }
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3, 4, 5, 6});
    CHECK(s.times() == std::vector<int64_t>{10, 20, 30, 40, 50, 1'000'000'000});
    CHECK(s.q.now() == Time::from_ns(1'000'000'000));
    CHECK(s.q.events_processed() == 6);
    CHECK(s.q.empty());
}

TEST_CASE("EventQueue: equal-time events fire in insertion order", "[sim]") {
    Script s;
    // Interleave three instants so that the heap must break ties by seq, not by position.
    s.at(100, 1);
    s.at(50, 100);
    s.at(100, 2);
    s.at(150, 200);
    s.at(100, 3);
    s.at(50, 101);
    s.at(100, 4);
    s.at(150, 201);
    s.at(100, 5);
    for (uint64_t i = 6; i < 40; ++i)  // enough to span several heap levels
        s.at(100, i);

    s.q.run_until(Time::never());
    std::vector<uint64_t> expect{100, 101};
    for (uint64_t i = 1; i < 40; ++i)
        expect.push_back(i);
    expect.push_back(200);
    expect.push_back(201);
    CHECK(s.ids() == expect);
}

TEST_CASE("EventQueue: heap events due now fire before same-instant events scheduled later", "[sim]") {
    // X, A, B are in the heap for t=10 (scheduled at t=0). When X fires at t=10 it schedules
    // C and D for "now" (the FIFO lane) and E for t=11; A schedules F for now; C schedules G
    // for now. (when, seq) order demands A and B (older seq) before C, D, F, G.
    Script s;
    s.at(10, 'X');
    s.at(10, 'A');
    s.at(10, 'B');
    s.at(5, 'P');  // earlier time, later seq
    s.on_fire('X', 0, 'C');
    s.on_fire('X', 0, 'D');
    s.on_fire('X', 1, 'E');
    s.on_fire('A', 0, 'F');
    s.on_fire('C', 0, 'G');

    s.q.run_until(Time::from_ns(100));
    std::vector<uint64_t> expect{'P', 'X', 'A', 'B', 'C', 'D', 'F', 'G', 'E'};
    CHECK(s.ids() == expect);
    CHECK(s.times() == std::vector<int64_t>{5, 10, 10, 10, 10, 10, 10, 10, 11});
    CHECK(s.q.now() == Time::from_ns(100));
}

TEST_CASE("EventQueue: events at one instant keep (time, seq) order across the lanes", "[sim]") {
    // B fires first and schedules D for t=10, whose seq is above A's and C's. A fires,
    // scheduling E for now (the same-instant lane); C then D must fire before E, wherever
    // each of them waits (the slots or the heap).
    Script s;
    s.at(10, 'A');
    s.at(7, 'B');
    s.at(10, 'C');
    s.on_fire('B', 3, 'D');
    s.on_fire('A', 0, 'E');
    CHECK(s.q.pending() == 3);
    REQUIRE(s.q.run_one());
    CHECK(s.q.pending() == 3);  // B fired, D scheduled

    s.q.run_until(Time::from_ns(100));
    CHECK(s.ids() == std::vector<uint64_t>{'B', 'A', 'C', 'D', 'E'});
    CHECK(s.times() == std::vector<int64_t>{7, 10, 10, 10, 10});
    CHECK(s.q.empty());
}

TEST_CASE("EventQueue: an event later than another goes behind it, an equal time after it", "[sim]") {
    Script s;
    s.at(20, 'A');
    s.at(30, 'B');  // later than A
    s.at(20, 'C');  // A's time, later seq
    s.at(10, 'D');  // sooner than all
    s.at(10, 'E');  // ties with D
    s.q.run_until(Time::from_ns(25));
    CHECK(s.ids() == std::vector<uint64_t>{'D', 'E', 'A', 'C'});
    CHECK(s.q.pending() == 1);
    s.q.run_until(Time::never());
    CHECK(s.ids() == std::vector<uint64_t>{'D', 'E', 'A', 'C', 'B'});
}

TEST_CASE("EventQueue: same-instant events at time zero, before any dispatch", "[sim]") {
    Script s;
    s.at(0, 1);  // lane (now == 0)
    s.at(3, 3);  // heap
    s.at(0, 2);  // lane
    s.on_fire(1, 0, 4);  // lane, after 2
    s.q.run_until(Time::never());
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 4, 3});
    CHECK(s.times() == std::vector<int64_t>{0, 0, 0, 3});
}

TEST_CASE("EventQueue: the same-instant lane stays FIFO while it grows", "[sim]") {
    // Thousands of zero-delay events, added while earlier ones are being dispatched, so the
    // ring is full with its head in the middle when it has to grow.
    struct Fifo {
        EventQueue q;
        std::deque<uint64_t> ref;
        std::vector<uint64_t> fired;
        uint64_t next_id = 0;
        uint64_t mismatches = 0;
        void sched_now() {
            ref.push_back(next_id);
            q.schedule(q.now(), &Fifo::fire, this, next_id++);
        }
        static void fire(void* self, uint64_t id) {
            auto* f = static_cast<Fifo*>(self);
            if (f->ref.empty() || f->ref.front() != id || f->q.now() != Time::from_ns(10))
                ++f->mismatches;
            if (!f->ref.empty())
                f->ref.pop_front();
            f->fired.push_back(id);
            if (id < 200)
                for (int k = 0; k < 25; ++k)
                    f->sched_now();
        }
    } f;
    f.q.run_until(Time::from_ns(10));
    for (int i = 0; i < 7; ++i)
        f.sched_now();
    std::size_t peak = 0;
    while (f.q.run_one())
        peak = std::max(peak, f.q.pending());
    CHECK(f.mismatches == 0);
    CHECK(f.fired.size() == 7 + 200 * 25);
    CHECK(peak > 3000);  // well past the initial ring size
    CHECK(f.q.now() == Time::from_ns(10));
}

TEST_CASE("EventQueue: stop() mid-instant, then an event for now still fires after the older ones", "[sim]") {
    Script s;
    s.at(10, 1);
    s.at(10, 2);
    s.at(10, 3);
    s.at(20, 4);
    s.stop_on = 1;

    s.q.run_until(Time::from_ns(100));
    CHECK(s.q.stopped());
    CHECK(s.ids() == std::vector<uint64_t>{1});
    CHECK(s.q.now() == Time::from_ns(10));  // a stopped run does not jump to the limit
    CHECK(s.q.pending() == 3);

    s.at(10, 5);  // now: goes to the lane, but 2 and 3 (heap, older) must fire first
    s.stop_on = UINT64_MAX;
    s.q.run_until(Time::from_ns(100));
    CHECK_FALSE(s.q.stopped());
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3, 5, 4});
    CHECK(s.q.now() == Time::from_ns(100));
}

TEST_CASE("EventQueue: stop() ends run_until after the current event", "[sim]") {
    Script s;
    for (uint64_t i = 1; i <= 5; ++i)
        s.at(static_cast<int64_t>(i) * 10, i);
    s.stop_on = 3;
    s.q.run_until(Time::never());
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3});
    CHECK(s.q.now() == Time::from_ns(30));
    CHECK(s.q.pending() == 2);
    // run_until clears the stop flag and resumes.
    s.q.run_until(Time::never());
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3, 4, 5});
    CHECK(s.q.now() == Time::from_ns(50));  // ran dry: never() is not a real instant
}

TEST_CASE("EventQueue: run_until stops at the limit and leaves later events pending", "[sim]") {
    Script s;
    s.at(10, 1);
    s.at(20, 2);
    s.at(30, 3);
    s.at(40, 4);

    s.q.run_until(Time::from_ns(25));
    CHECK(s.ids() == std::vector<uint64_t>{1, 2});
    CHECK(s.q.now() == Time::from_ns(25));
    CHECK(s.q.pending() == 2);

    // The limit is inclusive.
    s.q.run_until(Time::from_ns(30));
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3});
    CHECK(s.q.now() == Time::from_ns(30));

    // An event scheduled for the current instant (the limit) runs on the next call.
    s.at(30, 7);
    s.q.run_until(Time::from_ns(30));
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3, 7});
    CHECK(s.q.now() == Time::from_ns(30));

    // A limit in the past does nothing and does not move the clock backwards.
    s.q.run_until(Time::from_ns(5));
    CHECK(s.q.now() == Time::from_ns(30));
    CHECK(s.q.pending() == 1);

    // Events scheduled during the run that fall within the limit also run.
    s.on_fire(4, 5, 8);   // 45: within
    s.on_fire(4, 60, 9);  // 100: beyond
    s.q.run_until(Time::from_ns(99));
    CHECK(s.ids() == std::vector<uint64_t>{1, 2, 3, 7, 4, 8});
    CHECK(s.q.now() == Time::from_ns(99));
    CHECK(s.q.pending() == 1);

    // Running dry before the limit still ends at the limit.
    s.q.run_until(Time::from_ns(1000));
    CHECK(s.ids().back() == 9);
    CHECK(s.q.now() == Time::from_ns(1000));
    CHECK(s.q.empty());
    CHECK(s.q.events_processed() == 7);
}

TEST_CASE("EventQueue: interleaved rescheduling during dispatch", "[sim]") {
    // Two self-rescheduling chains (period 5 and 7) plus one-shots; the merged order must be
    // by time, with ties broken by which event was scheduled first.
    struct Chain {
        EventQueue* q;
        int64_t period;
        int64_t until;
        uint64_t tag;
        std::vector<std::pair<int64_t, uint64_t>>* log;
        void tick(uint64_t) {
            log->emplace_back(q->now().ns(), tag);
            if (q->now().ns() + period <= until)
                q->at<&Chain::tick>(q->now() + Duration::ns(period), this);
        }
    };
    EventQueue q;
    std::vector<std::pair<int64_t, uint64_t>> log;
    Chain a{&q, 5, 70, 5, &log};
    Chain b{&q, 7, 70, 7, &log};
    q.at<&Chain::tick>(Time::zero() + 5_ns, &a);
    q.at<&Chain::tick>(Time::zero() + 7_ns, &b);
    q.run_until(Time::from_ns(1000));

    // Reference: at t = 35 and t = 70 both chains fire. At 35: a's event for 35 was scheduled
    // at t=30, b's at t=28, so b (older) fires first. At 70: a's at 65, b's at 63: b first.
    std::vector<std::pair<int64_t, uint64_t>> expect;
    for (int64_t t = 1; t <= 70; ++t) {
        if (t % 7 == 0)
            expect.emplace_back(t, 7);
        if (t % 5 == 0)
            expect.emplace_back(t, 5);
    }
    CHECK(log == expect);
}

TEST_CASE("EventQueue: at<&Method> calls the member with its argument", "[sim]") {
    struct Target {
        std::vector<uint64_t> got;
        Time when;
        EventQueue* q = nullptr;
        void hit(uint64_t arg) {
            got.push_back(arg);
            when = q->now();
        }
    } t;
    EventQueue q;
    t.q = &q;
    q.at<&Target::hit>(Time::from_ns(42), &t, 0xdeadbeefcafeULL);
    q.at<&Target::hit>(Time::from_ns(41), &t);  // default arg 0
    q.run_until(Time::never());
    CHECK(t.got == std::vector<uint64_t>{0, 0xdeadbeefcafeULL});
    CHECK(t.when == Time::from_ns(42));
}

namespace {

// Randomized model check. Every schedule() is mirrored into `ref`, keyed by (when, seq) with
// seq = number of schedule() calls before it, which is exactly the order the queue promises.
// Each dispatch must be ref's first element, at the queue's current time.
struct PropertyModel {
    EventQueue q;
    Rng rng{20240601, "test.event_queue.property"};
    std::map<std::pair<int64_t, uint64_t>, int> ref;
    uint64_t next_seq = 0;
    uint64_t fired = 0;
    uint64_t mismatches = 0;
    std::string first_error;
    bool stop_in_next_dispatch = false;
    int64_t last_fired_at = 0;

    int64_t random_delta() {
        switch (rng.below(5)) {
        case 0: return 0;                                            // same instant: lane
        case 1: return static_cast<int64_t>(rng.below(3));           // dense ties
        case 2: return static_cast<int64_t>(rng.below(50));
        case 3: return static_cast<int64_t>(rng.below(5000));
        default: return static_cast<int64_t>(rng.below(1'000'000));  // far future
        }
    }
    void sched(int64_t when) {
        uint64_t seq = next_seq++;
        ref.emplace(std::make_pair(when, seq), 0);
        q.schedule(Time::from_ns(when), &PropertyModel::fire, this, seq);
    }
    void fail(const std::string& what) {
        if (mismatches++ == 0)
            first_error = what;
    }
    static void fire(void* self, uint64_t seq) {
        auto* m = static_cast<PropertyModel*>(self);
        const int64_t now = m->q.now().ns();
        ++m->fired;
        m->last_fired_at = now;
        if (m->ref.empty()) {
            m->fail("dispatch with empty reference, seq " + std::to_string(seq));
        } else {
            auto first = m->ref.begin();
            if (first->first.second == seq && first->first.first == now) {
                m->ref.erase(first);
            } else {
                m->fail("expected (t=" + std::to_string(first->first.first) + ", seq=" +
                        std::to_string(first->first.second) + ") got (t=" + std::to_string(now) +
                        ", seq=" + std::to_string(seq) + ")");
                // Remove the event that actually fired, so one error does not cascade.
                for (auto it = m->ref.begin(); it != m->ref.end(); ++it)
                    if (it->first.second == seq) {
                        m->ref.erase(it);
                        break;
                    }
            }
        }
        // Schedule-during-dispatch: 0, 1 or 2 children (mean 0.7, so chains die out).
        const uint64_t r = m->rng.below(10);
        const int children = r < 5 ? 0 : (r < 8 ? 1 : 2);
        for (int i = 0; i < children; ++i)
            m->sched(now + m->random_delta());
        if (m->stop_in_next_dispatch) {
            m->stop_in_next_dispatch = false;
            m->q.stop();
        }
    }
};

}  // namespace

TEST_CASE("EventQueue: 100k random operations match a reference (time, seq) ordering", "[sim]") {
    PropertyModel m;
    uint64_t run_untils = 0, stops_seen = 0, size_checks_failed = 0, clock_checks_failed = 0;

    for (int op = 0; op < 100'000; ++op) {
        const uint64_t kind = m.rng.below(100);
        const int64_t now = m.q.now().ns();
        if (kind < 45) {
            m.sched(now + m.random_delta());
        } else if (kind < 75) {
            const bool had = !m.ref.empty();
            if (m.q.run_one() != had)
                m.fail("run_one() return value disagrees with the reference");
        } else if (kind < 97) {
            ++run_untils;
            const int64_t limit = now + static_cast<int64_t>(m.rng.below(kind < 95 ? 300 : 3'000'000));
            const bool stop = m.rng.below(8) == 0;
            m.stop_in_next_dispatch = stop;
            const uint64_t before = m.fired;
            m.q.run_until(Time::from_ns(limit));
            if (m.q.stopped()) {
                ++stops_seen;
                if (m.q.now().ns() != m.last_fired_at)
                    ++clock_checks_failed;
            } else {
                // Not stopped: everything <= limit has fired and the clock is at the limit.
                if (m.q.now().ns() != limit)
                    ++clock_checks_failed;
                if (!m.ref.empty() && m.ref.begin()->first.first <= limit)
                    m.fail("run_until left an event at or before the limit pending");
            }
            if (m.fired == before)
                m.stop_in_next_dispatch = false;  // nothing ran; do not carry the stop over
        } else {
            if (m.q.pending() != m.ref.size() || m.q.empty() != m.ref.empty())
                ++size_checks_failed;
        }
    }
    m.stop_in_next_dispatch = false;
    m.q.run_until(Time::never());

    INFO(m.first_error);
    CHECK(m.mismatches == 0);
    CHECK(size_checks_failed == 0);
    CHECK(clock_checks_failed == 0);
    CHECK(m.ref.empty());
    CHECK(m.q.empty());
    CHECK(m.fired == m.next_seq);
    CHECK(m.q.events_processed() == m.fired);
    // The run must actually have exercised the interesting paths.
    CHECK(m.next_seq > 50'000);
    CHECK(run_untils > 10'000);
    CHECK(stops_seen > 100);
}

namespace {

// Keeps `pending` events scheduled, each fired one scheduling the next, and checks every
// firing against a reference set of (time, seq). The new event's delay is drawn so that
// it lands sooner than all pending ones, among them (at a pending one's time too) or
// after all: with pending around the slots' count (32) that takes each path of the slots'
// ring (insertion from either end, wrapping, a full ring sending events to the heap).
struct Ring {
    EventQueue q;
    Rng rng;
    std::map<std::pair<int64_t, uint64_t>, uint64_t> ref;  // (time, seq) -> id
    uint64_t next_seq = 0, fired = 0, mismatches = 0;

    explicit Ring(uint64_t seed) : rng(seed, "test.event_queue.ring") {}
    void sched(int64_t t) {
        ref.emplace(std::make_pair(t, next_seq), next_seq);
        q.schedule(Time::from_ns(t), &Ring::fire, this, next_seq);
        ++next_seq;
    }
    int64_t delay() {
        switch (rng.below(4)) {
        case 0: return 1;  // sooner than (or tied with) all pending
        case 1: return 1 + static_cast<int64_t>(rng.below(64));  // among the soonest
        case 2: return 1 + static_cast<int64_t>(rng.below(4096));  // anywhere
        default: return 4096 + static_cast<int64_t>(rng.below(64));  // after all
        }
    }
    static void fire(void* self, uint64_t id) {
        auto* r = static_cast<Ring*>(self);
        const auto first = r->ref.begin();
        if (first->second != id || first->first.first != r->q.now().ns())
            ++r->mismatches;
        r->ref.erase(first);
        ++r->fired;
        r->sched(r->q.now().ns() + r->delay());
    }
};

}  // namespace

TEST_CASE("EventQueue: the slots' ring keeps (time, seq) order, from empty to overflowing", "[sim]") {
    for (const std::size_t pending : {1, 2, 7, 16, 31, 32, 33, 40, 100, 1000}) {
        Ring r(pending);
        for (std::size_t i = 0; i < pending; ++i)
            r.sched(static_cast<int64_t>(r.rng.below(100)));
        while (r.fired < 20'000)
            REQUIRE(r.q.run_one());
        INFO("pending " << pending);
        CHECK(r.mismatches == 0);
        CHECK(r.q.pending() == pending);
        CHECK(r.ref.size() == pending);
    }
}

// heap_pop() chooses among four children without a branch while the heap holds up to 2^16
// events, and by a loop beyond: both ways keep the order, ties of time included.
TEST_CASE("EventQueue: a heap past 2^16 events keeps (time, seq) order, as a small one does", "[sim]") {
    for (const std::size_t pending : {std::size_t{5'000}, std::size_t{70'000}}) {
        Ring r(pending);
        for (std::size_t i = 0; i < pending; ++i)
            r.sched(static_cast<int64_t>(r.rng.below(4096)));  // many at one time
        while (r.fired < 3 * pending)
            REQUIRE(r.q.run_one());
        INFO("pending " << pending);
        CHECK(r.mismatches == 0);
        CHECK(r.q.pending() == pending);
    }
}

namespace {

struct Hold {
    EventQueue q;
    Rng rng{7, "test.event_queue.hold"};
    static void fire(void* self, uint64_t) {
        auto* h = static_cast<Hold*>(self);
        // One in four events re-schedules for the same instant (lane), the rest later.
        const int64_t d = h->rng.below(4) == 0 ? 0 : 1 + static_cast<int64_t>(h->rng.below(10'000));
        h->q.schedule(h->q.now() + Duration::ns(d), &Hold::fire, self, 0);
    }
};

}  // namespace

TEST_CASE("EventQueue: steady state keeps pending() constant and does not grow memory", "[sim]") {
    Hold h;
    constexpr int kPending = 5000;  // above the initial reservations of both lanes
    for (int i = 0; i < kPending; ++i)
        h.q.schedule(Time::from_ns(static_cast<int64_t>(h.rng.below(10'000))), &Hold::fire, &h, 0);
    // Same-instant burst to grow the FIFO lane past its initial size as well.
    for (int i = 0; i < 3000; ++i)
        h.q.schedule(h.q.now(), &Hold::fire, &h, 0);
    const std::size_t pending = h.q.pending();
    for (int i = 0; i < 200'000; ++i)  // warm-up
        h.q.run_one();

#if defined(__GLIBC__)
    const auto before = mallinfo2();
#endif
    std::size_t max_pending = 0, min_pending = SIZE_MAX;
    for (int i = 0; i < 1'000'000; ++i) {
        h.q.run_one();
        const std::size_t p = h.q.pending();
        max_pending = p > max_pending ? p : max_pending;
        min_pending = p < min_pending ? p : min_pending;
    }
#if defined(__GLIBC__)
    const auto after = mallinfo2();
    // No per-event allocation is retained and no container grew in steady state.
    CHECK(after.uordblks == before.uordblks);
#endif
    CHECK(min_pending == pending);
    CHECK(max_pending == pending);
    CHECK(h.q.events_processed() == 1'200'000);
}

// ---------------------------------------------------------------------------------------
// Timer

namespace {

struct TimerProbe {
    EventQueue* q = nullptr;
    std::vector<int64_t> fired_at;
    static void fire(void* self, uint64_t) {
        auto* p = static_cast<TimerProbe*>(self);
        p->fired_at.push_back(p->q->now().ns());
    }
};

}  // namespace

TEST_CASE("Timer: fires once at its expiry and disarms", "[sim]") {
    EventQueue q;
    TimerProbe p{&q, {}};
    Timer t(q, &TimerProbe::fire, &p);
    CHECK_FALSE(t.armed());
    t.arm(Time::from_ns(100));
    CHECK(t.armed());
    CHECK(t.expires() == Time::from_ns(100));
    q.run_until(Time::from_ns(99));
    CHECK(p.fired_at.empty());
    q.run_until(Time::never());
    CHECK(p.fired_at == std::vector<int64_t>{100});
    CHECK_FALSE(t.armed());
}

TEST_CASE("Timer: cancel prevents firing", "[sim]") {
    EventQueue q;
    TimerProbe p{&q, {}};
    Timer t(q, &TimerProbe::fire, &p);
    t.arm(Time::from_ns(100));
    t.cancel();
    CHECK_FALSE(t.armed());
    q.run_until(Time::never());
    CHECK(p.fired_at.empty());
}

TEST_CASE("Timer: re-arming fires only the last arming", "[sim]") {
    EventQueue q;
    TimerProbe p{&q, {}};
    Timer t(q, &TimerProbe::fire, &p);

    SECTION("later") {
        t.arm(Time::from_ns(100));
        t.arm(Time::from_ns(200));
        CHECK(t.expires() == Time::from_ns(200));
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{200});
    }
    SECTION("earlier") {
        t.arm(Time::from_ns(200));
        t.arm(Time::from_ns(100));
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{100});
    }
    SECTION("same time, many times") {
        for (int i = 0; i < 10; ++i)
            t.arm(Time::from_ns(100));
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{100});
    }
    SECTION("re-armed after it fired") {
        t.arm(Time::from_ns(100));
        q.run_until(Time::from_ns(150));
        t.arm(Time::from_ns(300));
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{100, 300});
    }
}

TEST_CASE("Timer: cancel then arm at the same time fires exactly once", "[sim]") {
    EventQueue q;
    TimerProbe p{&q, {}};
    Timer t(q, &TimerProbe::fire, &p);
    t.arm(Time::from_ns(100));
    t.cancel();
    t.arm(Time::from_ns(100));
    CHECK(t.armed());
    q.run_until(Time::never());
    CHECK(p.fired_at == std::vector<int64_t>{100});
}

TEST_CASE("Timer: an earlier event at the same instant can cancel or re-arm it", "[sim]") {
    EventQueue q;
    TimerProbe p{&q, {}};
    Timer t(q, &TimerProbe::fire, &p);
    struct Canceller {
        Timer* t;
        bool rearm;
        void go(uint64_t) {
            if (rearm)
                t->arm(Time::from_ns(250));
            else
                t->cancel();
        }
    };

    SECTION("cancel") {
        Canceller c{&t, false};
        q.at<&Canceller::go>(Time::from_ns(100), &c);  // scheduled before the timer: fires first
        t.arm(Time::from_ns(100));
        q.run_until(Time::never());
        CHECK(p.fired_at.empty());
    }
    SECTION("re-arm") {
        Canceller c{&t, true};
        q.at<&Canceller::go>(Time::from_ns(100), &c);
        t.arm(Time::from_ns(100));
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{250});
    }
}

TEST_CASE("Timer: periodic re-arm from its own callback", "[sim]") {
    struct Periodic {
        EventQueue q;
        Timer t{q, &Periodic::fire, this};
        std::vector<int64_t> at;
        static void fire(void* self, uint64_t) {
            auto* p = static_cast<Periodic*>(self);
            p->at.push_back(p->q.now().ns());
            if (p->at.size() < 4)
                p->t.arm(p->q.now() + 10_ns);
        }
    } p;
    p.t.arm(Time::from_ns(10));
    p.q.run_until(Time::never());
    CHECK(p.at == std::vector<int64_t>{10, 20, 30, 40});
    CHECK_FALSE(p.t.armed());
}

TEST_CASE("LazyTimer: fires at the last arming, with one pending event however often it is re-armed", "[sim]") {
    EventQueue q;
    TimerProbe p{&q, {}};
    LazyTimer t(q, &TimerProbe::fire, &p);
    SECTION("armed, cancelled and re-armed later many times: one event, one firing") {
        for (int i = 0; i < 100; ++i) {
            t.arm(Time::from_ns(1000 + i * 10));
            t.cancel();
        }
        t.arm(Time::from_ns(5000));
        CHECK(q.pending() == 1);
        q.run_until(Time::from_ns(4999));
        CHECK(p.fired_at.empty());
        CHECK(t.armed());
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{5000});
        CHECK_FALSE(t.armed());
        CHECK(q.events_processed() == 2);  // the early event moved itself once
    }
    SECTION("cancelled for good: nothing fires") {
        t.arm(Time::from_ns(100));
        t.cancel();
        q.run_until(Time::never());
        CHECK(p.fired_at.empty());
    }
    SECTION("re-armed earlier: a new event, the later one stale") {
        t.arm(Time::from_ns(200));
        t.arm(Time::from_ns(100));
        q.run_until(Time::never());
        CHECK(p.fired_at == std::vector<int64_t>{100});
    }
    SECTION("re-armed from its own callback") {
        struct Periodic {
            EventQueue q;
            LazyTimer t{q, &Periodic::fire, this};
            std::vector<int64_t> at;
            static void fire(void* self, uint64_t) {
                auto* p = static_cast<Periodic*>(self);
                p->at.push_back(p->q.now().ns());
                if (p->at.size() < 3)
                    p->t.arm(p->q.now() + 10_ns);
            }
        } per;
        per.t.arm(Time::from_ns(10));
        per.q.run_until(Time::never());
        CHECK(per.at == std::vector<int64_t>{10, 20, 30});
    }
}
