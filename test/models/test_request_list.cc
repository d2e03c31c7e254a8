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
    t.prepare_to_wait(&s0);
    t.prepare_to_wait(&s1);
    t.prepare_to_wait(&s0);  // already waiting
    t.prepare_to_wait(&s2);
    CHECK(t.nr_waiters() == 3);
    t.wake_all(sim::Time{});
    CHECK(woken == std::vector<int>{0, 1, 2});
    CHECK(t.nr_waiters() == 0);
    t.prepare_to_wait(&s1);  // may wait again once woken
    t.wake_all(sim::Time{});
    CHECK(woken == std::vector<int>{0, 1, 2, 1});
}
