// The block layer's FIFOs: RequestList (plug list, software queue, hctx->dispatch) and the
// tag wait queue keep arrival order and hand every entry out once.
#include <catch2/catch.hpp>

#include <vector>

#include "models/blkmq/request.h"
#include "models/blkmq/tags.h"

using namespace blksim;
using blkmq::Request;
using blkmq::RequestList;

TEST_CASE("RequestList: FIFO order, push_front ahead of all, splice keeps both orders", "[models][blkmq]") {
    std::vector<Request> rqs(6);
    RequestList a, b;
    CHECK(a.pop_front() == nullptr);
    CHECK(a.front() == nullptr);
    a.push_back(&rqs[1]);
    a.push_back(&rqs[2]);
    a.push_front(&rqs[0]);
    b.push_back(&rqs[3]);
    b.push_back(&rqs[4]);
    a.splice_tail(b);
    CHECK(b.empty());
    CHECK(a.size() == 5);
    CHECK(a.back() == &rqs[4]);
    std::vector<const Request*> seen;
    for (const Request& rq : a)
        seen.push_back(&rq);
    CHECK(seen == std::vector<const Request*>{&rqs[0], &rqs[1], &rqs[2], &rqs[3], &rqs[4]});
    for (int i = 0; i < 5; ++i)
        CHECK(a.pop_front() == &rqs[i]);
    CHECK(a.empty());
    // A request taken off one list can go on another.
    b.push_back(&rqs[2]);
    CHECK(b.front() == &rqs[2]);
    CHECK(b.pop_front() == &rqs[2]);
}

namespace {

struct Sleeper final : blkmq::TagWaiter {
    std::vector<int>* woken;
    int id;
    Sleeper(std::vector<int>* w, int i) : woken(w), id(i) {}
    void tag_wakeup(sim::Time /*now*/) override { woken->push_back(id); }
};

}  // namespace

TEST_CASE("tag wait queue: sleepers wake in arrival order, each once, a second wait is ignored", "[models][tags]") {
    blkmq::BlkMqTags t(16);
    std::vector<int> woken;
    Sleeper s0(&woken, 0), s1(&woken, 1), s2(&woken, 2);
    t.prepare_to_wait(&s0, sim::Time{});
    t.prepare_to_wait(&s1, sim::Time{});
    t.prepare_to_wait(&s0, sim::Time{});  // already waiting
    t.prepare_to_wait(&s2, sim::Time{});
    CHECK(t.nr_waiters() == 3);
    t.wake_all(sim::Time{});
    CHECK(woken == std::vector<int>{0, 1, 2});
    CHECK(t.nr_waiters() == 0);
    t.prepare_to_wait(&s1, sim::Time{});  // may wait again once woken
    t.wake_all(sim::Time{});
    CHECK(woken == std::vector<int>{0, 1, 2, 1});
}

namespace {

struct TimedSleeper final : blkmq::TagWaiter {
    std::vector<int64_t> woken_at;
    void tag_wakeup(sim::Time now) override { woken_at.push_back(now.ns()); }
};

sim::Time at(int64_t ns) { return sim::Time::from_ns(ns); }

}  // namespace

TEST_CASE("dated tags: a get never takes a tag before the instant it was put", "[models][tags]") {
    blkmq::BlkMqTags t(4);
    std::vector<uint32_t> held;
    for (int i = 0; i < 4; ++i)
        held.push_back(t.get(at(0)));
    CHECK(t.get(at(0)) == blkmq::BlkMqTags::NO_TAG);
    t.put(held[0], at(10));
    t.put(held[1], at(100));  // a completion's handler ending ahead of the clock
    CHECK(t.next_put_after(at(50)) == at(100));
    CHECK(t.get(at(50)) == held[0]);  // the one below the top, put by then
    CHECK(t.get(at(50)) == blkmq::BlkMqTags::NO_TAG);
    CHECK(t.in_use() == 3);  // the tag put at 100 is free, just not yet
    CHECK(t.next_put_after(at(50)) == at(100));
    CHECK(t.next_put_after(at(100)) == at(100));  // none after: the instant asked for
    CHECK(t.get(at(100)) == held[1]);
    // Occupancy: 4 tags until 10, 3 until 50, 4 again (the tag put at 100 taken at 100).
    CHECK(t.mean_in_use(at(200)) == Approx((4.0 * 10 + 3.0 * 40 + 4.0 * 150) / 200));
}

TEST_CASE("dated tags: a sleeper that came before a put counts it at the put's instant", "[models][tags]") {
    blkmq::BlkMqTags t(16);  // wake batch 2
    REQUIRE(t.wake_batch() == 2);
    std::vector<uint32_t> held;
    for (int i = 0; i < 16; ++i)
        held.push_back(t.get(at(0)));
    t.put(held[0], at(100));  // put by completions processed before the sleeper's event
    t.put(held[1], at(200));
    TimedSleeper s;
    REQUIRE(t.prepare_to_wait(&s, at(50)));
    CHECK(t.replays() == std::vector<int64_t>{200, 100});
    t.replay(100);
    CHECK(s.woken_at.empty());  // one free of a batch of two
    t.replay(150);  // nothing due
    CHECK(s.woken_at.empty());
    t.replay(200);
    CHECK(s.woken_at == std::vector<int64_t>{200});
    CHECK(t.replays().empty());
    t.replay(200);  // a second event for the same instant finds nothing
    CHECK(s.woken_at.size() == 1);

    // A sleeper that comes after the puts' instants has nothing to count.
    blkmq::BlkMqTags u(16);
    for (int i = 0; i < 16; ++i)
        u.get(at(0));
    u.put(3, at(100));
    TimedSleeper late;
    CHECK_FALSE(u.prepare_to_wait(&late, at(100)));
    CHECK(u.replays().empty());
}
