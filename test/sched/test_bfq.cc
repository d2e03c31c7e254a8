// BFQ (block/bfq-iosched.c, docs/references.md §5) driven directly: B-WF2Q+ service shares,
// strict classes, budget feedback, idling and when it is skipped, the choice of request
// inside a queue, merges, requeue, depth limits. The machine-level tests (a disk, fio jobs,
// the CLI) are in test_bfq_machine.cc.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <map>
#include <vector>

#include "models/sched/bfq.h"
#include "sim/event_queue.h"

using namespace blksim;
using namespace blksim::sim::literals;
using blkmq::Bio;
using blkmq::ReqOp;
using blkmq::Request;
using sched::Bfq;
using sched::BfqTunables;

namespace {

// A bfq instance with a pool of requests and a one-request-at-a-time "device": dispatch,
// let `service` pass, complete. The requests and the event queue outlive the scheduler.
struct Rig {
    std::vector<Request> rqs;
    std::vector<Bio> bios;
    std::vector<uint32_t> free_list;
    sim::EventQueue eq;
    Bfq bfq;
    // The CPUs bfq_schedule_dispatch ran the queue from (blk_mq_run_hw_queues under
    // QUEUE_FLAG_SQ_SCHED: the core runs that CPU's hctx).
    std::vector<uint32_t> runs;

    explicit Rig(const BfqTunables& t = BfqTunables{}, bool rotational = true, size_t n = 8192)
        : rqs(n), bios(n), bfq(t, eq, rotational) {
        for (size_t i = n; i-- > 0;)
            free_list.push_back(static_cast<uint32_t>(i));
        bfq.set_run_hw_queues([](void* self, uint32_t cpu, sim::Time) { static_cast<Rig*>(self)->runs.push_back(cpu); },
                              this);
    }
    static BfqTunables no_wr() {
        BfqTunables t;
        t.low_latency = 0;
        return t;
    }
    // A request of task `pid` (io_context priority class / level) inserted now.
    Request* insert(uint32_t pid, uint64_t sector, uint32_t nr = 8, uint8_t cls = 0, uint8_t lvl = 4) {
        REQUIRE(!free_list.empty());
        const uint32_t i = free_list.back();
        free_list.pop_back();
        Request& r = rqs[i];
        Bio& b = bios[i];
        b = Bio{};
        b.sector = sector;
        b.nr_sectors = nr;
        b.pid = pid;
        b.task_ioprio_class = cls;
        b.task_ioprio_level = lvl;
        r.sector = sector;
        r.nr_sectors = nr;
        r.op = ReqOp::READ;
        r.pid = pid;
        r.bio = r.biotail = &b;
        r.ioprio_class = cls;
        r.ioprio_level = lvl;
        bfq.prepare_request(&r);
        bfq.insert_request(&r, false, eq.now());
        return &r;
    }
    Request* dispatch() { return bfq.dispatch_request(eq.now()); }
    // The core names the completing CPU before the finish hook.
    void complete(Request* r, uint32_t cpu = 0) {
        bfq.explain().set_cpu(cpu);
        bfq.finish_request(r, eq.now());
        r->bio = r->biotail = nullptr;
        free_list.push_back(static_cast<uint32_t>(r - rqs.data()));
    }
    void advance(sim::Duration d) { eq.run_until(eq.now() + d); }
    const sched::BfqQueue& q(uint32_t pid) const {
        const sched::BfqQueue* p = bfq.queue_of(pid);
        REQUIRE(p != nullptr);
        return *p;
    }
};

// Backlogged tasks: each keeps `depth` sequential requests of `nr` sectors queued (a new one
// arrives as one is dispatched, as an async job at that depth would). The device serves one
// request at a time in `service`. Returns the sectors each pid was served.
struct Task {
    uint32_t pid;
    uint8_t cls = 0, lvl = 4;
    uint64_t next_sector = 0;
};
std::map<uint32_t, uint64_t> serve_backlogged(Rig& rig, std::vector<Task> tasks, int dispatches,
                                              uint32_t nr = 256, int depth = 4,
                                              sim::Duration service = 500_us) {
    // Each task in its own area of the disk (2^24 sectors apart): tasks doing I/O close to
    // each other would be cooperators and share one queue (bfq_setup_cooperator()).
    for (Task& t : tasks)
        t.next_sector += uint64_t{t.pid} << 24;
    for (Task& t : tasks)
        for (int i = 0; i < depth; ++i, t.next_sector += nr)
            rig.insert(t.pid, t.next_sector, nr, t.cls, t.lvl);
    std::map<uint32_t, uint64_t> served;
    for (int i = 0; i < dispatches; ++i) {
        Request* r = rig.dispatch();
        REQUIRE(r != nullptr);  // always backlogged: bfq never idles with work of the same queue
        served[r->pid] += r->nr_sectors;
        for (Task& t : tasks)
            if (t.pid == r->pid) {
                rig.insert(t.pid, t.next_sector, nr, t.cls, t.lvl);
                t.next_sector += nr;
            }
        rig.advance(service);
        rig.complete(r);
    }
    return served;
}

// Dispatches until `want` goes (the idle timer may hold it back, nothing else may go
// first), a millisecond apart, then completes it 1 ms later.
void serve(Rig& rig, Request* want) {
    for (int i = 0; i < 100; ++i) {
        Request* d = rig.dispatch();
        if (d == want) {
            rig.advance(1_ms);
            rig.complete(d);
            return;
        }
        REQUIRE(d == nullptr);
        rig.advance(1_ms);
    }
    FAIL("never dispatched");
}

}  // namespace

TEST_CASE("bfq: sw_hweight32 counts the bits std::popcount does (BFQQ_SEEKY's threshold)", "[bfq]") {
    for (uint32_t w : {0u, 1u, 0x80000000u, 0xffffffffu, 0x0007ffffu, 0x000fffffu, 0xfffff000u, 0x55555555u,
                       0xaaaaaaaau, 0x12345678u, 0xdeadbeefu})
        CHECK(sched::sw_hweight32(w) == static_cast<unsigned>(std::popcount(w)));
    sched::BfqQueue q;
    q.seek_history = 0x0007ffffu;  // 19 seeky requests of the last 32: not seeky
    CHECK_FALSE(sched::bfqq_seeky(&q));
    q.seek_history = 0x000fffffu;  // 20
    CHECK(sched::bfqq_seeky(&q));
}

TEST_CASE("bfq: tunables with their sysfs names, kernel defaults and units", "[bfq]") {
    const BfqTunables d;
    auto get = [&](const char* n) {
        const auto* t = sched::find_bfq_tunable(n);
        REQUIRE(t != nullptr);
        return t->get(d);
    };
    CHECK(get("slice_idle") == 8);
    CHECK(get("slice_idle_us") == 8000);
    CHECK(get("strict_guarantees") == 0);
    CHECK(get("low_latency") == 1);
    CHECK(get("timeout_sync") == 125);
    CHECK(get("max_budget") == 0);
    CHECK(get("back_seek_max") == 16384);
    CHECK(get("back_seek_penalty") == 2);
    CHECK(get("fifo_expire_sync") == 125);
    CHECK(get("fifo_expire_async") == 250);
    // slice_idle_us writes the same setting in microseconds.
    BfqTunables t;
    sched::find_bfq_tunable("slice_idle_us")->set(t, 2500);
    CHECK(t.slice_idle == 2500_us);
    CHECK(sched::find_bfq_tunable("slice_idle")->get(t) == 2);
    CHECK(sched::find_bfq_tunable("read_expire") == nullptr);
    // Weights from the I/O priority level.
    CHECK(Bfq::bfq_ioprio_to_weight(0) == 80);
    CHECK(Bfq::bfq_ioprio_to_weight(4) == 40);
    CHECK(Bfq::bfq_ioprio_to_weight(7) == 10);
}

TEST_CASE("bfq: a queue per task, its class and weight from the task's io_context priority", "[bfq]") {
    Rig rig(Rig::no_wr());
    rig.insert(1000, 0);                   // class NONE: a nice-0 task, best effort level 4
    rig.insert(1001, 1 << 20, 8, 2, 0);    // BE level 0
    rig.insert(1002, 2 << 20, 8, 1, 7);    // RT level 7
    rig.insert(1003, 3 << 20, 8, 3, 0);    // IDLE: level ignored, weight 10
    rig.insert(1000, 8);                   // same task: same queue
    CHECK(rig.bfq.queues().size() == 4);
    CHECK(rig.q(1000).ioprio_class == 2);
    CHECK(rig.q(1000).entity.weight == 40);
    CHECK(rig.q(1000).queued[1] == 2);
    CHECK(rig.q(1001).entity.weight == 80);
    CHECK(rig.q(1002).ioprio_class == 1);
    CHECK(rig.q(1002).entity.weight == 10);
    CHECK(rig.q(1003).ioprio_class == 3);
    CHECK(rig.q(1003).entity.weight == 10);
    CHECK(rig.bfq.busy_queues() == 4);
    CHECK(rig.bfq.wsum(1) == 120);  // the BE tree: 40 + 80
    CHECK(rig.bfq.queued() == 5);
}

// A task's io context is found through a hint slot by pid modulo 64 (bfq_bic_find()):
// tasks sharing a slot, taking turns, each keep their own.
TEST_CASE("bfq: tasks whose pids share a hint slot keep their own io contexts and queues", "[bfq]") {
    Rig rig(Rig::no_wr());
    rig.insert(1000, 0);
    rig.insert(1064, 1 << 20);
    rig.insert(1000, 8);
    rig.insert(1128, 2 << 20);
    rig.insert(1064, (1 << 20) + 8);
    rig.insert(1000, 16);
    CHECK(rig.bfq.queues().size() == 3);
    for (const uint32_t pid : {1000u, 1064u, 1128u}) {
        const sched::BfqIoCq* bic = rig.bfq.bic_of(pid);
        REQUIRE(bic != nullptr);
        CHECK(bic->pid == pid);
        CHECK(bic->bfqq == &rig.q(pid));
        CHECK(rig.q(pid).pid == pid);
    }
    CHECK(rig.q(1000).queued[1] == 3);
    CHECK(rig.q(1064).queued[1] == 2);
    CHECK(rig.q(1128).queued[1] == 1);
    CHECK(rig.bfq.bic_of(1000)->requests == 3);
    CHECK(rig.bfq.bic_of(1064)->requests == 2);
    CHECK(rig.bfq.bic_of(1128)->requests == 1);
}

TEST_CASE("bfq: B-WF2Q+ gives two backlogged queues of equal weight the same service", "[bfq]") {
    for (const bool rotational : {true, false}) {
        Rig rig(Rig::no_wr(), rotational);
        if (!rotational) {
            // On an SSD a queue created within bfq_burst_interval (180 ms) of the previous
            // one, with its priority, is merged with it at once (stable merge): a queue made
            // 200 ms before, and used no more, keeps 1000's and 1001's apart.
            Request* first = rig.insert(999, 1ull << 34, 8);
            REQUIRE(rig.dispatch() == first);
            rig.complete(first);
            rig.advance(200_ms);
        }
        const auto served = serve_backlogged(rig, {{1000}, {1001, 0, 4, 1ull << 30}}, 4000);
        const double a = static_cast<double>(served.at(1000)), b = static_cast<double>(served.at(1001));
        INFO("rotational " << rotational << ": " << a << " vs " << b << " sectors");
        CHECK(a / b == Approx(1.0).epsilon(0.05));
        // Budgets were used up, one full budget per slot, the largest one: max_budget,
        // auto-tuned from the peak rate once 194 budgets had been assigned.
        CHECK(rig.bfq.stats().expirations[sched::BFQQE_BUDGET_EXHAUSTED] > 20);
        CHECK(rig.bfq.max_budget() > sched::bfq_default_max_budget);
        CHECK(rig.q(1000).max_budget == rig.bfq.max_budget());
    }
}

TEST_CASE("bfq: B-WF2Q+ eligibility: a queue served ahead of its share lets the others go first", "[bfq]") {
    // A (weight 80) and B (weight 10) backlogged from the start. A's first slot (42
    // requests of 256 sectors, a 10922-sector first budget) puts its virtual start beyond
    // the virtual time (10752 / 80 > 10752 / 90): A is not eligible, so B is served next,
    // although A's next finish (with the 4x smaller budget max_budget caps it to) is the
    // smaller one. Plain WFQ (no eligibility) would serve A for many slots first.
    BfqTunables t = Rig::no_wr();
    t.max_budget = 1024;
    Rig rig(t);
    uint64_t sa = 0, sb = 1ull << 30;
    for (int i = 0; i < 4; ++i, sa += 256, sb += 256) {
        rig.insert(1000, sa, 256, 2, 0);
        rig.insert(1001, sb, 256, 2, 7);
    }
    int first_b = -1;
    for (int i = 0; i < 200 && first_b < 0; ++i) {
        Request* d = rig.dispatch();
        REQUIRE(d != nullptr);
        if (d->pid == 1001)
            first_b = i;
        rig.insert(d->pid, d->pid == 1000 ? sa : sb, 256, 2, d->pid == 1000 ? 0 : 7);
        (d->pid == 1000 ? sa : sb) += 256;
        rig.advance(500_us);
        rig.complete(d);
    }
    CHECK(first_b == 42);
}

TEST_CASE("bfq: service in proportion to the weights of the I/O priority levels", "[bfq]") {
    // Level 0 (weight 80) against level 7 (weight 10): 8 : 1.
    Rig rig(Rig::no_wr());
    const auto served = serve_backlogged(rig, {{1000, 2, 0}, {1001, 2, 7, 1ull << 30}}, 9000);
    const double ratio = static_cast<double>(served.at(1000)) / static_cast<double>(served.at(1001));
    INFO("served " << served.at(1000) << " vs " << served.at(1001));
    CHECK(ratio == Approx(8.0).epsilon(0.08));
    // Level 2 (60) against level 5 (30): 2 : 1.
    Rig rig2(Rig::no_wr());
    const auto s2 = serve_backlogged(rig2, {{1000, 2, 2}, {1001, 2, 5, 1ull << 30}}, 6000);
    CHECK(static_cast<double>(s2.at(1000)) / static_cast<double>(s2.at(1001)) == Approx(2.0).epsilon(0.08));
}

TEST_CASE("bfq: the RT class is served strictly before BE, which is before IDLE but for its timeout", "[bfq]") {
    Rig rig(Rig::no_wr());
    // A backlogged BE task; RT requests arrive now and then: whenever one waits, the next
    // dispatch is RT.
    std::vector<Task> be = {{1000, 2, 4}};
    for (int i = 0; i < 4; ++i, be[0].next_sector += 256)
        rig.insert(1000, be[0].next_sector, 256, 2, 4);
    uint64_t rt_sector = 1ull << 30;
    int rt_waiting = 0, rt_served = 0, be_served = 0;
    for (int i = 0; i < 3000; ++i) {
        if (i % 50 == 10) {
            rig.insert(1001, rt_sector, 8, 1, 4);
            rt_sector += 8;
            ++rt_waiting;
        }
        Request* r = rig.dispatch();
        if (r == nullptr) {  // idling for the RT queue (asymmetric classes): let the timer fire
            rig.advance(10_ms);
            continue;
        }
        if (r->pid == 1001) {
            --rt_waiting;
            ++rt_served;
        } else {
            CHECK(rt_waiting == 0);  // no BE request while an RT one waits
            ++be_served;
            rig.insert(1000, be[0].next_sector, 256, 2, 4);
            be[0].next_sector += 256;
        }
        rig.advance(500_us);
        rig.complete(r);
    }
    CHECK(rt_served == 60);
    CHECK(be_served > 2000);

    // IDLE class against a backlogged BE queue: one request each time the class has gone
    // BFQ_CL_IDLE_TIMEOUT (HZ/5 = 200 ms) without service, and no more.
    Rig idle(Rig::no_wr());
    for (int i = 0; i < 50; ++i)
        idle.insert(1002, (1ull << 30) + i * 8u, 8, 3, 0);
    std::vector<sim::Time> idle_times;
    uint64_t be_sector = 0;
    for (int i = 0; i < 4; ++i, be_sector += 256)
        idle.insert(1000, be_sector, 256, 2, 4);
    while (idle.eq.now() < sim::Time::zero() + 1500_ms) {
        Request* r = idle.dispatch();
        REQUIRE(r != nullptr);
        if (r->pid == 1002) {
            idle_times.push_back(idle.eq.now());
        } else {
            idle.insert(1000, be_sector, 256, 2, 4);
            be_sector += 256;
        }
        idle.advance(500_us);
        idle.complete(r);
    }
    // The class is looked at when the BE queue's slot ends (up to ~100 ms slots here).
    REQUIRE(idle_times.size() >= 4);
    CHECK(idle_times.size() <= 7);
    CHECK(idle_times[0] >= sim::Time::zero() + 200_ms);
    for (size_t i = 1; i < idle_times.size(); ++i) {
        CHECK(idle_times[i] - idle_times[i - 1] >= 200_ms);
        CHECK(idle_times[i] - idle_times[i - 1] <= 350_ms);
    }
}

TEST_CASE("bfq: idles for an emptied sync queue on a rotational disk instead of switching", "[bfq]") {
    // A sequential reader (one request at a time, think time 20 us) against a task with
    // requests waiting. With slice_idle the reader keeps the device; with slice_idle=0 the
    // other task is served as soon as the reader's request completes.
    for (const int slice_idle_ms : {8, 0}) {
        BfqTunables t = Rig::no_wr();
        t.slice_idle = sim::Duration::ns(slice_idle_ms * 1'000'000LL);
        Rig rig(t);
        uint64_t seq = 0;
        rig.insert(1000, seq, 8);
        for (int i = 0; i < 8; ++i)
            rig.insert(2000, (1ull << 30) + (i * 4096ull), 8);  // a random reader's backlog
        int reader_served = 0, idled = 0;
        bool other_served = false;
        for (int i = 0; i < 200 && reader_served < 40 && !other_served; ++i) {
            Request* d = rig.dispatch();
            if (d == nullptr) {
                // Only while idling: the timer is armed for the reader, which sends its next
                // request within the slice; that request is dispatched next.
                REQUIRE(slice_idle_ms > 0);
                CHECK(rig.bfq.idle_timer_armed());
                CHECK(rig.bfq.in_service_queue() == rig.bfq.queue_of(1000));
                ++idled;
                rig.advance(20_us);
                seq += 8;
                rig.insert(1000, seq, 8);
                continue;
            }
            if (d->pid == 2000) {
                other_served = true;
                break;
            }
            ++reader_served;
            CHECK_FALSE(rig.bfq.idle_timer_armed());
            rig.advance(100_us);
            rig.complete(d);
        }
        INFO("slice_idle " << slice_idle_ms << " ms: the reader got " << reader_served << " requests first");
        if (slice_idle_ms > 0) {
            CHECK(reader_served == 40);  // still in service
            CHECK_FALSE(other_served);
            CHECK(idled == 39);
            CHECK(rig.bfq.stats().idle_slices == 40);
        } else {
            CHECK(reader_served == 1);
            CHECK(other_served);
            CHECK(rig.bfq.stats().idle_slices == 0);
        }
    }
}

TEST_CASE("bfq: the idle timer expires a queue that stays empty and reruns the hardware queue", "[bfq]") {
    Rig rig(Rig::no_wr());
    Request* r = rig.insert(1000, 0, 8);
    rig.insert(2000, 1ull << 30, 8);
    Request* d = rig.dispatch();
    REQUIRE(d == r);
    rig.advance(100_us);
    rig.runs.clear();
    const sim::Time done = rig.eq.now();
    rig.complete(d, 3);  // armed by the completion on CPU 3
    REQUIRE(rig.bfq.idle_timer_armed());
    CHECK(rig.bfq.idle_timer_expires() == done + 8_ms);
    rig.bfq.explain().set_cpu(1);      // a hardware queue run on CPU 1 meanwhile
    CHECK(rig.dispatch() == nullptr);  // has_work, but idling
    CHECK(rig.bfq.has_work());
    rig.advance(9_ms);
    CHECK(rig.bfq.stats().idle_timer_fired == 1);
    CHECK(rig.bfq.stats().expirations[sched::BFQQE_TOO_IDLE] == 1);
    // bfq_schedule_dispatch from the hrtimer, which fires on the CPU that started it: that
    // CPU's hctx is run.
    CHECK(rig.runs == std::vector<uint32_t>{3});
    Request* next = rig.dispatch();
    REQUIRE(next != nullptr);
    CHECK(next->pid == 2000);
}

TEST_CASE("bfq: idling only when needed on a non-rotational device; seeky queues idle 2 ms", "[bfq]") {
    auto after_first = [](Rig& rig, uint32_t reader, uint32_t other, uint8_t reader_lvl, uint8_t other_lvl) {
        rig.insert(other, 1ull << 30, 8, other ? 2 : 0, other_lvl);
        Request* r = rig.insert(reader, 0, 8, 2, reader_lvl);
        Request* d = rig.dispatch();
        while (d != r) {  // serve the other first if it came first
            rig.complete(d);
            rig.insert(other, (1ull << 30) + 4096, 8, 2, other_lvl);
            d = rig.dispatch();
            if (d == nullptr)
                rig.advance(10_ms), d = rig.dispatch();
        }
        rig.advance(50_us);
        rig.complete(d);
        return rig.dispatch();
    };
    SECTION("equal weights: no idling, the other queue goes next") {
        Rig rig(Rig::no_wr(), false);
        Request* d = after_first(rig, 1000, 2000, 4, 4);
        REQUIRE(d != nullptr);
        CHECK(d->pid == 2000);
        CHECK(rig.bfq.stats().idle_slices == 0);
    }
    SECTION("a higher weight needs idling for its share") {
        Rig rig(Rig::no_wr(), false);
        CHECK(after_first(rig, 1000, 2000, 0, 4) == nullptr);
        CHECK(rig.bfq.idle_timer_armed());
    }
    SECTION("the only busy queue keeps the device") {
        Rig rig(Rig::no_wr(), false);
        Request* r = rig.insert(1000, 0, 8);
        REQUIRE(rig.dispatch() == r);
        rig.complete(r);
        CHECK(rig.bfq.idle_timer_armed());
    }
    SECTION("a seeky queue on a rotational disk idles BFQ_MIN_TT only") {
        Rig rig(Rig::no_wr(), true);
        // 24 requests far apart (> 800 sectors): seek_history has more than 19 ones.
        for (int i = 0; i < 24; ++i) {
            Request* r = rig.insert(1000, 1'000'000ull * (i + 1), 8);
            Request* d = rig.dispatch();
            REQUIRE(d == r);
            rig.advance(5_ms);
            const sim::Time done = rig.eq.now();
            rig.complete(d);
            if (i == 0) {
                CHECK(rig.bfq.idle_timer_expires() == done + 8_ms);  // not seeky yet
            }
            if (i == 23) {
                CHECK(sched::bfqq_seeky(&rig.q(1000)));
                CHECK(rig.bfq.idle_timer_expires() == done + 2_ms);
            }
        }
    }
}

TEST_CASE("bfq: I/O injection: while the in-service queue idles, another queue's requests fill the hole up to "
          "inject_limit, fed back from the in-service queue's total service times",
          "[bfq]") {
    // Non-rotational, hw_tag unknown: idling does not boost throughput, but the reader's weight
    // (80 against 40) needs it for its share. The reader has one 4 KiB read at a time, 1 ms in
    // the device, and 3 ms of think time; the other task has a deep backlog.
    Rig rig(Rig::no_wr(), false);
    Request* r = rig.insert(1000, 0, 8, 2, 0);
    for (int i = 0; i < 256; ++i)
        rig.insert(2000, (1ull << 30) + i * 4096ull, 8, 2, 4);
    const sched::BfqQueue* reader = rig.bfq.queue_of(1000);
    uint64_t sector = 0;
    int injected = 0, rounds_without = 0;
    unsigned int grown_to = 0;
    for (int round = 0; round < 20; ++round) {
        Request* d = rig.dispatch();
        REQUIRE(d == r);  // the reader's request goes first, even with injected ones in flight
        rig.advance(1_ms);
        rig.complete(d);
        // The hole: the reader stays in service and the idle timer runs; the other task's
        // requests are dispatched while fewer than inject_limit are in the driver.
        std::vector<Request*> in_hole;
        while (Request* x = rig.dispatch()) {
            CHECK(x->pid == 2000);
            in_hole.push_back(x);
        }
        REQUIRE(rig.bfq.in_service_queue() == reader);
        CHECK(rig.bfq.idle_timer_armed());
        CHECK(in_hole.size() == reader->inject_limit);  // filled up to the limit, no further
        if (in_hole.empty())
            ++rounds_without;
        injected += static_cast<int>(in_hole.size());
        if (round == 11)
            grown_to = reader->inject_limit;
        rig.advance(3_ms);
        sector += 8;
        r = rig.insert(1000, sector, 8, 2, 0);  // arrives with the injected ones in flight
        for (Request* x : in_hole) {
            rig.complete(x);
            rig.advance(10_us);
        }
        // From round 12 on, the injected requests delay the reader's next one by 1 ms: its
        // total service time doubles, beyond 1.5x the baseline.
        if (round >= 11)
            rig.advance(1_ms);
    }
    // No baseline before the reader's first request 10 ms after it was given the device
    // (decrease_time_jif + 10 ms): no injection in the first rounds. Then the baseline (1 ms)
    // sets the limit to 1, and each total service time within 1.5x of it raises it by one;
    // once they are longer, it drops (at most once per 10 ms).
    CHECK(rounds_without >= 3);
    CHECK(reader->last_serv_time_ns >= 1'000'000);
    CHECK(reader->last_serv_time_ns < 1'500'000);
    CHECK(grown_to >= 8);
    CHECK(reader->inject_limit < grown_to);
    CHECK(rig.bfq.stats().injected == static_cast<uint64_t>(injected));
    CHECK(rig.bfq.stats().expirations[sched::BFQQE_TOO_IDLE] == 0);
}

TEST_CASE("bfq: waker detection: a queue whose requests keep coming just after another's complete gets it as "
          "its waker, served while bfq idles for it",
          "[bfq]") {
    // Task 1000 (weight 80) reads once every ~12 ms: a long think time. Each time, 1 ms
    // before its read, a read of task 2000 completes: task 2000 wakes it (as a pipeline's
    // stages would). After three such wake-ups in a row (bfq_check_waker), 2000 is 1000's
    // waker, and 1000 is on 2000's woken_list.
    Rig rig(Rig::no_wr(), false);
    uint64_t a = 0, b = 1ull << 30;
    for (int round = 0; round < 10; ++round) {
        serve(rig, rig.insert(2000, b += 8, 8, 2, 4));
        rig.advance(1_ms);
        serve(rig, rig.insert(1000, a += 8, 8, 2, 0));
        rig.advance(10_ms);
    }
    const sched::BfqQueue* sleeper = rig.bfq.queue_of(1000);
    const sched::BfqQueue* waker = rig.bfq.queue_of(2000);
    CHECK_FALSE(sleeper->has_short_ttime);
    CHECK(sleeper->waker_bfqq == waker);
    CHECK(waker->woken_list == sleeper);
    CHECK(waker->waker_bfqq == nullptr);  // 2000's reads come 1 ms after 1000's complete, but
                                          // its think time is short: no detection for it
    // While 1000 is in service with its read in flight (bfq would idle for it after), its
    // waker's read is dispatched at once, although that makes more requests in the driver
    // than 1000's inject_limit lets injection add. (2000 comes back more than 3 slice_idle
    // after its last completion: not in time to preempt.)
    rig.advance(30_ms);
    Request* r = rig.insert(1000, a += 8, 8, 2, 0);
    Request* d = rig.dispatch();
    for (int i = 0; d != r && i < 100; ++i) {
        REQUIRE(d == nullptr);
        rig.advance(1_ms);
        d = rig.dispatch();
    }
    REQUIRE(d == r);
    REQUIRE(rig.bfq.in_service_queue() == sleeper);
    const uint64_t injected = rig.bfq.stats().injected;
    Request* w = rig.insert(2000, b += 8, 8, 2, 4);
    REQUIRE(rig.bfq.in_service_queue() == sleeper);
    CHECK(rig.bfq.tot_rq_in_driver() >= sleeper->inject_limit);
    CHECK(rig.dispatch() == w);
    CHECK(rig.bfq.in_service_queue() == sleeper);
    CHECK(rig.bfq.stats().injected == injected + 1);
    rig.advance(1_ms);
    rig.complete(w);
    rig.complete(d);
}

TEST_CASE("bfq: a queue merged into another hands it its waker (bfq_merge_bfqqs())", "[bfq]") {
    // Task 3 reads once; task 1000, with its priority, starts just after it: a delayed
    // stable merge with 3's queue is scheduled (bfq_do_or_sched_stable_merge()). 1000 then
    // gets 2000 as its waker (as in the waker detection case). 600 ms on, 1000's next read
    // carries out the merge: 3's queue, now shared, takes 2000 as its waker and is on
    // 2000's woken_list, so that 2000 is served while bfq idles for the shared queue. (A disk:
    // on an SSD that may queue, the stable merge would be done at once.)
    Rig rig(Rig::no_wr());
    uint64_t a = 0, b = 1ull << 30;
    serve(rig, rig.insert(3, 1ull << 32, 8, 2, 0));
    serve(rig, rig.insert(1000, a += 8, 8, 2, 0));
    for (int round = 0; round < 10; ++round) {
        rig.advance(10_ms);
        serve(rig, rig.insert(2000, b += 8, 8, 2, 4));
        rig.advance(1_ms);
        serve(rig, rig.insert(1000, a += 8, 8, 2, 0));
    }
    const sched::BfqQueue* waker = &rig.q(2000);
    const sched::BfqQueue* own = &rig.q(1000);
    const sched::BfqQueue* other = &rig.q(3);
    REQUIRE(own != other);
    REQUIRE(own->waker_bfqq == waker);
    REQUIRE(other->waker_bfqq == nullptr);
    rig.advance(700_ms);
    serve(rig, rig.insert(1000, a += 8, 8, 2, 0));
    REQUIRE(&rig.q(1000) == other);  // merged: 1000's requests go to 3's queue
    CHECK(other->coop);
    CHECK(other->waker_bfqq == waker);
    CHECK(waker->woken_list == other);
    CHECK(other->woken_next == own);  // 1000's old queue stays on the list (never freed)
}

TEST_CASE("bfq: budget feedback at each expiration reason", "[bfq]") {
    SECTION("budget exhausted: x4, up to max_budget") {
        Rig rig(Rig::no_wr());
        CHECK(rig.bfq.max_budget() == sched::bfq_default_max_budget);
        for (int i = 0; i < 60; ++i)
            rig.insert(1000, i * 256ull, 256);
        const int first = (2 * sched::bfq_default_max_budget) / 3;  // bfq_init_bfqq()
        CHECK(rig.q(1000).max_budget == first);
        CHECK(rig.q(1000).entity.budget == first);
        int n = 0;
        while (rig.q(1000).expirations[sched::BFQQE_BUDGET_EXHAUSTED] == 0) {
            Request* d = rig.dispatch();
            REQUIRE(d != nullptr);
            ++n;
            rig.advance(100_us);
            rig.complete(d);
        }
        // The 43rd request no longer fitted: the queue expired, and being alone it was
        // served again at once, with the new budget.
        CHECK(n == first / 256 + 1);
        CHECK(rig.q(1000).max_budget == std::min(first * 4, sched::bfq_default_max_budget));
        // With a larger max_budget set in sysfs, the x4 shows.
        BfqTunables t = Rig::no_wr();
        t.max_budget = 100000;
        Rig big(t);
        for (int i = 0; i < 60; ++i)
            big.insert(1000, i * 256ull, 256);
        while (big.q(1000).expirations[sched::BFQQE_BUDGET_EXHAUSTED] == 0) {
            Request* d = big.dispatch();
            REQUIRE(d != nullptr);
            big.complete(d);
        }
        CHECK(big.q(1000).max_budget == first * 4);
    }
    SECTION("no more requests: the service received, at least min_budget") {
        BfqTunables t = Rig::no_wr();
        t.slice_idle = 0_ns;  // no idling: the queue expires when it empties
        Rig rig(t);
        for (int i = 0; i < 3; ++i)
            rig.insert(1000, i * 8ull, 8);
        for (int i = 0; i < 3; ++i) {
            Request* d = rig.dispatch();
            REQUIRE(d != nullptr);
            rig.complete(d);
        }
        CHECK(rig.q(1000).expirations[sched::BFQQE_NO_MORE_REQUESTS] == 1);
        CHECK(rig.q(1000).max_budget == sched::bfq_default_max_budget / 32);  // 24 sectors < min_budget
        for (int i = 0; i < 100; ++i)
            rig.insert(1001, i * 8ull, 8);
        for (int i = 0; i < 100; ++i)
            rig.complete(rig.dispatch());
        CHECK(rig.q(1001).max_budget == 800);  // the 100 x 8 sectors it was served
    }
    SECTION("too idle: 4 min_budgets less; more with requests still in flight") {
        Rig rig(Rig::no_wr());
        Request* r = rig.insert(1000, 0, 8);
        REQUIRE(rig.dispatch() == r);
        rig.complete(r);
        REQUIRE(rig.bfq.idle_timer_armed());
        rig.advance(9_ms);
        CHECK(rig.q(1000).expirations[sched::BFQQE_TOO_IDLE] == 1);
        const int first = (2 * sched::bfq_default_max_budget) / 3;
        CHECK(rig.q(1000).max_budget == first - 4 * (sched::bfq_default_max_budget / 32));
    }
    SECTION("budget timeout: x2, and the slot is charged as time") {
        Rig rig(Rig::no_wr());
        for (int i = 0; i < 10; ++i)
            rig.insert(1000, i * 8ull, 8);
        rig.insert(1001, 1ull << 30, 8);
        Request* d = rig.dispatch();
        REQUIRE(d->pid == 1000);
        rig.advance(130_ms);  // one slow request: past timeout_sync (31 jiffies = 124 ms)
        rig.complete(d);
        CHECK(rig.q(1000).expirations[sched::BFQQE_BUDGET_TIMEOUT] == 1);
        const int first = (2 * sched::bfq_default_max_budget) / 3;
        CHECK(rig.q(1000).max_budget == std::min(2 * first, sched::bfq_default_max_budget));
        CHECK(rig.dispatch()->pid == 1001);
    }
    SECTION("a slow queue is charged the service its slot was worth at the peak rate") {
        // 50 ms and 200 ms for 8 sectors are far below half the peak rate; 10 us is a short slot.
        for (const sim::Duration slot : {50_ms, 200_ms, 10_us}) {
            BfqTunables t = Rig::no_wr();
            t.slice_idle = 0_ns;
            Rig rig(t);
            Request* r = rig.insert(1000, 0, 8);
            REQUIRE(rig.dispatch() == r);
            rig.advance(slot);
            rig.complete(r);
            // (Past the timeout the queue expires for it, at the completion.)
            const auto& expired = rig.q(1000).expirations;
            REQUIRE(expired[slot == 200_ms ? sched::BFQQE_BUDGET_TIMEOUT : sched::BFQQE_NO_MORE_REQUESTS] == 1);
            // B-WF2Q+ advanced the BE virtual time by the charge << 22 / the weight sum (40):
            // the peak-rate budget for 50 ms of a 124 ms timeout; for a slot past the timeout
            // the whole max_budget (bfq_bfqq_charge_time bounds the time by the timeout; a
            // charge of the 8 sectors served instead let a slow queue be served again and
            // again); for a short slot the 8 sectors served.
            const double charged = static_cast<double>(rig.bfq.vtime(1)) * 40 / (1 << 22);
            INFO("slot " << slot.count() << " ns: charged " << charged << " sectors");
            if (slot == 50_ms)
                CHECK(charged == Approx(sched::bfq_default_max_budget * 50 / 124).margin(1));
            else if (slot == 200_ms)
                CHECK(charged == Approx(sched::bfq_default_max_budget).margin(1));
            else
                CHECK(rig.bfq.vtime(1) == (uint64_t{8} << 22) / 40);
        }
    }
}

TEST_CASE("bfq: inside a queue, the request nearest the head, backward seeks at a penalty", "[bfq]") {
    for (const int back_seek_max : {16384, 0}) {
        BfqTunables t = Rig::no_wr();
        t.back_seek_max = back_seek_max;
        Rig rig(t);
        // The head ends at sector 1008 after the first request; then 900 is 108 behind
        // (cost 216 at the default penalty) and 1250 is 242 ahead.
        Request* first = rig.insert(1000, 1000, 8);
        REQUIRE(rig.dispatch() == first);
        rig.insert(1000, 1250, 8);
        rig.insert(1000, 900, 8);
        Request* d = rig.dispatch();
        REQUIRE(d != nullptr);
        INFO("back_seek_max " << back_seek_max);
        CHECK(d->sector == (back_seek_max ? 900u : 1250u));
        rig.complete(first);
    }
    // With a penalty of 3 the backward request costs 324 > 242: forward wins.
    BfqTunables t = Rig::no_wr();
    t.back_seek_penalty = 3;
    Rig rig(t);
    Request* first = rig.insert(1000, 1000, 8);
    REQUIRE(rig.dispatch() == first);
    rig.insert(1000, 1250, 8);
    rig.insert(1000, 900, 8);
    CHECK(rig.dispatch()->sector == 1250u);
}

TEST_CASE("bfq: a request older than fifo_expire_sync is served next, once per slot", "[bfq]") {
    Rig rig(Rig::no_wr());
    Request* old = rig.insert(1000, 1'000'000, 8);  // far ahead of the others
    rig.advance(130_ms);
    for (int i = 0; i < 6; ++i)
        rig.insert(1000, i * 8ull, 8);
    // Sector order from the head (0) would leave 1'000'000 last; its age puts it first once
    // the first dispatch has picked next_rq.
    std::vector<uint64_t> order;
    for (int i = 0; i < 7; ++i) {
        Request* d = rig.dispatch();
        REQUIRE(d != nullptr);
        order.push_back(d->sector);
        rig.complete(d);
    }
    INFO("order " << order[0] << " " << order[1] << " " << order[2]);
    CHECK(std::find(order.begin(), order.end(), old->sector) - order.begin() <= 1);
}

TEST_CASE("bfq: bio merges only into the submitting task's requests; request merges; requeue", "[bfq]") {
    Rig rig(Rig::no_wr());
    Request* a = rig.insert(1000, 100, 8);
    // Task 2000 is of the idle class: never a cooperator, so its queue stays its own
    // (bfq_may_be_close_cooperator()) although its I/O is close to task 1000's.
    Request* b = rig.insert(2000, 200, 8, 3);
    Bio bio;
    bio.sector = 108;
    bio.nr_sectors = 8;
    bio.pid = 1000;
    Request* into = nullptr;
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::BACK_MERGE);
    CHECK(into == a);
    bio.pid = 2000;  // another task's bio: bfq_allow_bio_merge says no
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::NO_MERGE);
    bio.ioprio_class = 3;  // (a request merges only bios of its own priority)
    bio.sector = 192;  // ends where b starts: a front merge in task 2000's queue
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::FRONT_MERGE);
    CHECK(into == b);
    bio.nr_sectors = 2560;  // too large for max_sectors
    bio.sector = 200 - 2560;
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::NO_MERGE);
    bio.pid = 3000;  // a task without a queue
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::NO_MERGE);

    // Two requests of one queue fused (the core's attempt_back_merge): next leaves bfq.
    Request* c = rig.insert(1000, 116, 8);
    CHECK(rig.bfq.next_request(a) == c);
    CHECK(rig.bfq.former_request(c) == a);
    a->nr_sectors += c->nr_sectors;
    rig.bfq.requests_merged(a, c);
    rig.complete(c);  // freed: finish_request of a request never dispatched
    CHECK(rig.q(1000).queued[1] == 1);
    CHECK(rig.bfq.stats().merged == 1);
    CHECK(rig.bfq.queued() == 2);

    // Requeue: the driver hands a dispatched request back; inserted at head, it goes first.
    Request* d = rig.dispatch();
    REQUIRE(d != nullptr);
    CHECK(rig.bfq.tot_rq_in_driver() == 1);
    rig.bfq.requeue_request(d);
    CHECK(rig.bfq.tot_rq_in_driver() == 0);
    rig.bfq.insert_request(d, true, rig.eq.now());
    CHECK(rig.dispatch() == d);
    rig.complete(d);
    while (Request* e = rig.dispatch())
        rig.complete(e);
    rig.advance(50_ms);
    while (Request* e = rig.dispatch())
        rig.complete(e);
    CHECK(rig.bfq.queued() == 0);
    CHECK(rig.bfq.stats().requeued == 1);
    CHECK(rig.bfq.check_idle().empty());
}

// Queue merging (bfq_setup_cooperator(), bfq_coop.cc): two tasks reading one area in
// interleaved sequential chunks, as the threads of a dump or a reader and a writer of one
// file do, end up sharing one queue on a rotational disk; far apart, they do not.
TEST_CASE("bfq: cooperating tasks doing interleaved sequential I/O end up sharing one queue", "[bfq]") {
    for (const uint64_t gap : {uint64_t{8}, uint64_t{1'000'000}}) {
        CAPTURE(gap);
        Rig rig(Rig::no_wr());
        // Task 1 reads 0, 16, 32 ...; task 2 the chunks in between (or far away).
        for (uint64_t s = 0; s < 64; s += 16)
            rig.insert(1, s, 8);
        Request* first = rig.dispatch();  // task 1 in service, its head at sector 8
        REQUIRE(first != nullptr);
        CHECK(first->pid == 1);
        rig.insert(2, gap, 8);       // task 2's queue is created (and becomes busy)
        rig.insert(2, gap + 16, 8);  // close to where task 1 is served: merge
        const bool close = gap < 8192;
        CHECK((&rig.q(1) == &rig.q(2)) == close);
        CHECK(rig.q(1).coop == close);
        CHECK(rig.bfq.stats().queue_merges == (close ? 1u : 0u));
        if (close) {
            // The shared queue has task 2's new request in sector order with task 1's: no
            // switch between queues (and no idling) for the interleaved reads.
            CHECK(rig.q(2).queued[1] == 4);
            std::vector<uint64_t> order;
            rig.complete(first);
            while (Request* r = rig.dispatch()) {
                order.push_back(r->sector);
                rig.complete(r);
            }
            CHECK(order == std::vector<uint64_t>{16, 24, 32, 48});
        }
        if (close) {
            // Each task's requests are counted for its process (bic->requests), the shared
            // queue's for both: a task's only request is its own only one, as bfq's waker
            // detection asks (bfq_add_request()).
            // (Task 2's first read, at sector 8, is still in its old queue: served last.)
            CHECK(rig.bfq.bic_of(1)->requests == 0);
            CHECK(rig.bfq.bic_of(2)->requests == 1);
            rig.insert(1, 1000, 8);
            rig.insert(2, 1016, 8);
            REQUIRE(&rig.q(1) == &rig.q(2));
            CHECK(rig.bfq.bic_of(1)->requests == 1);
            CHECK(rig.bfq.bic_of(2)->requests == 2);
            CHECK(rig.q(1).entity.allocated == 2);
            rig.complete(rig.dispatch());
            rig.complete(rig.dispatch());
            CHECK(rig.bfq.bic_of(1)->requests == 0);
            CHECK(rig.bfq.bic_of(2)->requests == 1);
            CHECK(rig.q(1).entity.allocated == 0);
        }
        if (close) {
            // Task 2's bio may now merge into task 1's request: they share the queue.
            Bio bio;
            bio.sector = 72;
            bio.nr_sectors = 8;
            bio.pid = 2;
            Request* a = rig.insert(1, 64, 8);
            Request* into = nullptr;
            CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::BACK_MERGE);
            CHECK(into == a);
        }
    }
}

// A shared queue found seeky at its expiration (BFQQF_split_coop) is split at each task's
// next request: the task gets a queue of its own again (bfq_split_bfqq()).
TEST_CASE("bfq: a shared queue gone seeky is split at its tasks' next requests", "[bfq]") {
    Rig rig(Rig::no_wr());
    for (uint64_t s = 0; s < 64; s += 16)
        rig.insert(1, s, 8);
    Request* r = rig.dispatch();
    REQUIRE(r != nullptr);
    rig.insert(2, 8, 8);
    rig.insert(2, 24, 8);
    REQUIRE(&rig.q(1) == &rig.q(2));
    rig.complete(r);
    // Both tasks now seek all over the disk: the shared queue's history fills with seeks.
    uint64_t far = 10'000'000;
    for (int i = 0; i < 40; ++i) {
        while (Request* d = rig.dispatch())
            rig.complete(d);
        rig.insert(1 + i % 2, far, 8);
        far = far * 7 % 900'000'000 + 5'000'000;
    }
    while (Request* d = rig.dispatch())
        rig.complete(d);
    rig.advance(50_ms);  // the idle slice ends: the queue expires, seeky and shared
    while (Request* d = rig.dispatch())
        rig.complete(d);
    rig.insert(1, 123'456, 8);
    rig.insert(2, 654'321'000, 8);
    CHECK(&rig.q(1) != &rig.q(2));
    CHECK(rig.bfq.stats().queue_splits >= 1);
    CHECK(!rig.q(1).coop);
    CHECK(!rig.q(2).coop);
}

TEST_CASE("bfq: with nomerges=1 a bio merges through the one-hit cache only", "[bfq]") {
    Rig rig(Rig::no_wr());
    rig.bfq.set_noxmerges(true);
    Request* a = rig.insert(1000, 100, 8);  // the first insert becomes q->last_merge
    rig.insert(1000, 200, 8);
    Bio bio;
    bio.nr_sectors = 8;
    bio.pid = 1000;
    Request* into = nullptr;
    bio.sector = 108;  // behind a: the one-hit cache
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::BACK_MERGE);
    CHECK(into == a);
    bio.sector = 208;  // behind the other request: the hash, which nomerges=1 skips
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::NO_MERGE);
    bio.sector = 192;  // in front of it: the sort tree, skipped too
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::NO_MERGE);
    rig.bfq.set_noxmerges(false);
    CHECK(rig.bfq.bio_merge(bio, 2560, &into) == sched::ElvMerge::FRONT_MERGE);
}

TEST_CASE("bfq: depth limits: sync reads get every tag, sync writes 3/4 (6/16 while raised)", "[bfq]") {
    // sbitmap words: 256 tags are 4 words of 64, 64 tags 4 of 16, 62 tags 8 of 8 (the last 6).
    CHECK(Bfq::bfq_shallow_depth(256, false, true) == 192);
    CHECK(Bfq::bfq_shallow_depth(256, false, false) == 128);
    CHECK(Bfq::bfq_shallow_depth(256, true, true) == 96);
    CHECK(Bfq::bfq_shallow_depth(256, true, false) == 48);
    CHECK(Bfq::bfq_shallow_depth(64, false, true) == 48);
    CHECK(Bfq::bfq_shallow_depth(62, false, true) == 7 * 6 + 6);
    CHECK(Bfq::bfq_shallow_depth(2, false, true) == 2);
    Rig rig;  // low_latency on
    CHECK(rig.bfq.limit_depth(true, 256) == 256);
    CHECK(rig.bfq.limit_depth(false, 256) == 192);
    // A new task is weight-raised (interactive): the limits tighten while it is busy.
    rig.insert(1000, 0, 8);
    CHECK(rig.bfq.wr_busy_queues() == 1);
    CHECK(rig.q(1000).wr_coeff == sched::BFQ_WR_COEFF);
    CHECK(rig.bfq.limit_depth(false, 256) == 96);
    CHECK(rig.bfq.limit_depth(true, 256) == 256);
}

TEST_CASE("bfq: weight raising: a new task is raised x30 until it has had 120000 sectors", "[bfq]") {
    Rig rig;  // low_latency on
    rig.insert(1000, 0, 256);
    CHECK(rig.q(1000).wr_coeff == 30);
    CHECK(rig.q(1000).entity.weight == 40 * 30);
    CHECK(rig.bfq.stats().wr_interactive == 1);
    // Served sequentially at 256 sectors a time; raising ends after max_service_from_wr.
    uint64_t sector = 256;
    int n = 0;
    while (rig.q(1000).wr_coeff > 1 && n < 2000) {
        Request* d = rig.dispatch();
        REQUIRE(d != nullptr);
        rig.insert(1000, sector, 256);
        sector += 256;
        rig.advance(200_us);
        rig.complete(d);
        ++n;
    }
    CHECK(rig.q(1000).wr_coeff == 1);
    CHECK(rig.q(1000).entity.weight == 40);
    CHECK(rig.q(1000).service_from_wr >= 120000u);
    CHECK(n * 256 == Approx(120000).margin(2 * 256));
    // A task with an explicit priority (not the default weight) is never raised.
    rig.insert(1001, 1ull << 30, 8, 2, 3);
    CHECK(rig.q(1001).wr_coeff == 1);
    // low_latency=0 ends raising at once and starts none.
    Rig off;
    off.insert(1000, 0, 8);
    REQUIRE(off.q(1000).wr_coeff == 30);
    BfqTunables t = off.bfq.tunables();
    t.low_latency = 0;
    off.bfq.set_tunables(t);
    CHECK(off.q(1000).wr_coeff == 1);
    CHECK(off.bfq.wr_busy_queues() == 0);
}

TEST_CASE("bfq: eight tasks starting within 180 ms are a large burst and are not raised", "[bfq]") {
    Rig rig;  // low_latency on
    for (uint32_t p = 0; p < 10; ++p) {
        rig.insert(1000 + p, p * (1ull << 24), 8);
        rig.advance(10_ms);
    }
    for (uint32_t p = 0; p < 7; ++p)
        CHECK(rig.q(1000 + p).in_large_burst);
    // From the eighth on the burst is large: no raising for the later ones.
    for (uint32_t p = 7; p < 10; ++p) {
        CHECK(rig.q(1000 + p).in_large_burst);
        CHECK(rig.q(1000 + p).wr_coeff == 1);
    }
    // Queues created far apart are not a burst.
    Rig apart;
    for (uint32_t p = 0; p < 10; ++p) {
        apart.insert(1000 + p, p * (1ull << 24), 8);
        apart.advance(200_ms);
    }
    for (uint32_t p = 0; p < 10; ++p)
        CHECK_FALSE(apart.q(1000 + p).in_large_burst);
}

TEST_CASE("bfq: strict_guarantees: one request in the device at a time, slice_idle at least 8 ms", "[bfq]") {
    BfqTunables t = Rig::no_wr();
    t.strict_guarantees = 1;
    t.slice_idle = 1_ms;
    Rig rig(t, false);
    CHECK(rig.bfq.tunables().slice_idle == 8_ms);
    for (int i = 0; i < 4; ++i)
        rig.insert(1000, i * 8ull, 8);
    Request* d = rig.dispatch();
    REQUIRE(d != nullptr);
    CHECK(rig.dispatch() == nullptr);
    rig.complete(d);
    CHECK(rig.dispatch() != nullptr);
}

TEST_CASE("bfq: soft real-time raising for a periodic low-rate task, not for one that comes back at once",
          "[bfq]") {
    // One 4 KiB read at a time; after each, the queue idles (20 ms: it is raised) and expires
    // empty, which sets soft_rt_next_start = now + slice_idle + 4 jiffies (24 ms). A task whose
    // next read comes 100 ms after the previous one is deemed soft real-time: x3000 for 300 ms
    // windows. One that comes back 10 ms after the expiry stays interactive (x30).
    for (const int64_t period_ms : {100, 10}) {
        Rig rig;  // low_latency on
        uint64_t sector = 0;
        for (int i = 0; i < 3; ++i) {
            Request* r = rig.insert(1000, sector, 8);
            sector += 8;
            REQUIRE(rig.dispatch() == r);
            rig.advance(1_ms);
            rig.complete(r);
            REQUIRE(rig.bfq.idle_timer_armed());
            CHECK(rig.bfq.idle_timer_expires() - rig.eq.now() == 20_ms);  // at least 20 ms when raised
            rig.advance(21_ms);  // the timer fires: expired too idle
            REQUIRE(rig.bfq.in_service_queue() == nullptr);
            rig.advance(sim::Duration::ns(period_ms * 1'000'000));
        }
        INFO("period " << period_ms << " ms");
        if (period_ms == 100) {
            CHECK(rig.q(1000).wr_coeff == 30 * 100);
            CHECK(rig.bfq.stats().wr_soft_rt >= 1);
        } else {
            CHECK(rig.q(1000).wr_coeff == 30);
            CHECK(rig.bfq.stats().wr_soft_rt == 0);
        }
        CHECK(rig.bfq.stats().wr_interactive == 1);
    }
}
