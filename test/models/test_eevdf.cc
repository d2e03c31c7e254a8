// EEVDF's run-queue bookkeeping (models/cpu/eevdf.h) against the rules of kernel/sched/fair.c.
#include <catch2/catch.hpp>

#include "models/cpu/cpu.h"
#include "models/cpu/eevdf.h"
#include "sim/event_queue.h"

using blksim::cpu::CfsRq;
using blksim::cpu::SchedEntity;

namespace {

constexpr int64_t kSlice = 1'500'000;  // 2 CPUs: 0.75 ms x 2
constexpr int64_t kTick = 4'000'000;   // HZ=250

int64_t lag(const CfsRq& rq, const SchedEntity& se) { return rq.avg_vruntime() - se.vruntime; }

// `se` runs for `ns` from `now` as the queue's current task; returns the new instant.
int64_t run(CfsRq& rq, SchedEntity& se, int64_t now, int64_t ns) {
    rq.set_curr(se, now);
    rq.update_curr(now + ns);
    return now + ns;
}

// cur and w queued; `ran`, one of them, runs 30 us; w sleeps; cur runs 5 us; w wakes.
// Returns whether w's sleep left it queued, delayed (the queue still holding both).
bool sleep_and_wake(CfsRq& rq, SchedEntity& cur, SchedEntity& w, SchedEntity& ran) {
    rq.enqueue(cur, 0);
    rq.enqueue(w, 0);
    const int64_t now = run(rq, ran, 0, 30'000);
    rq.dequeue_sleep(w);
    const bool delayed = w.delayed && rq.nr_queued() == 2;
    run(rq, cur, now, 5'000);
    rq.enqueue(w, 0);
    return delayed;
}

}  // namespace

TEST_CASE("EEVDF: a task keeps its lag through a sleep, and the lags of a queue sum to zero", "[eevdf]") {
    CfsRq rq(kSlice, kTick);
    SchedEntity a, b, c;
    rq.enqueue(a, 0);
    rq.enqueue(b, 0);
    int64_t now = run(rq, a, 0, 40'000);  // a runs, b waits: b is owed half of it
    CHECK(lag(rq, b) == 20'000);
    CHECK(lag(rq, a) == -20'000);
    rq.dequeue_sleep(b);  // eligible: it leaves with its lag
    CHECK(b.rq == nullptr);
    CHECK(b.vlag == 20'000);
    now = run(rq, a, now, 100'000);
    c.initial = true;  // a new task (Task::new_task()): no lag, half a slice to its deadline
    rq.enqueue(c, 0);
    CHECK(lag(rq, c) == 0);
    CHECK(c.deadline - c.vruntime == kSlice / 2);
    // A kernel thread that was there before the run: a whole slice at its first wake-up.
    SchedEntity k;
    rq.enqueue(k, 0);
    CHECK(k.deadline - k.vruntime == kSlice);
    rq.dequeue_sleep(k);
    rq.enqueue(b, 0);  // placed so that, once in, its lag is what it left with
    CHECK(lag(rq, b) == 20'000);
    CHECK(lag(rq, a) + lag(rq, b) + lag(rq, c) == 0);
    CHECK(b.deadline - b.vruntime == kSlice);
    // A lag is kept only up to two slices or a tick, whichever is more.
    CfsRq big(kSlice, kTick);
    SchedEntity x, y;
    big.enqueue(x, 0);
    big.enqueue(y, 0);
    run(big, x, 0, 20'000'000);
    big.dequeue_sleep(y);
    CHECK(y.vlag == kTick);
}

TEST_CASE("EEVDF: a woken task preempts when the running one is not eligible or its protected slice "
          "is over, and it has the earliest deadline",
          "[eevdf]") {
    SECTION("owed service: the running task, having had more than its share, is not eligible") {
        CfsRq rq(kSlice, kTick);
        SchedEntity cur, w;
        const bool delayed = sleep_and_wake(rq, cur, w, cur);  // w leaves owed 15 us
        CHECK_FALSE(delayed);
        CHECK_FALSE(rq.eligible(cur));
        CHECK(rq.wakeup_preempt(w));
    }
    SECTION("behind: the running task is eligible and inside its slice (RUN_TO_PARITY)") {
        CfsRq rq(kSlice, kTick);
        SchedEntity cur, w;
        // w had more than its share: it left delayed, and woken it is still behind, so it
        // keeps its vruntime.
        const bool delayed = sleep_and_wake(rq, cur, w, w);
        CHECK(delayed);
        CHECK_FALSE(w.delayed);
        CHECK(lag(rq, w) < 0);
        CHECK(rq.eligible(cur));
        CHECK_FALSE(rq.wakeup_preempt(w));
    }
    SECTION("at parity: equal lags leave the running task eligible and protected") {
        CfsRq rq(kSlice, kTick);
        SchedEntity cur, w;
        rq.enqueue(cur, 0);
        run(rq, cur, 0, 10'000);
        rq.enqueue(w, 0);  // no lag
        CHECK(rq.eligible(cur));
        CHECK_FALSE(rq.wakeup_preempt(w));
    }
    SECTION("the slice is over: an eligible running task is kept only with the earlier deadline") {
        CfsRq rq(kSlice, kTick);
        SchedEntity cur, w, owed;
        cur.initial = true;
        rq.enqueue(cur, 0);
        // Past its first deadline (half a slice for a new task): a new one a slice on; the
        // protection set at its switch-in ended at the old one.
        int64_t now = run(rq, cur, 0, 760'000);
        CHECK(cur.deadline == 760'000 + kSlice);
        now = run(rq, cur, now, 100'000);
        CHECK(cur.vruntime >= cur.vprot);
        rq.enqueue(w, 0);  // not a new task, no lag: eligible, its deadline a slice from V, after cur's
        CHECK(rq.eligible(cur));
        CHECK(w.deadline > cur.deadline);
        CHECK_FALSE(rq.wakeup_preempt(w));
        // A task owed service makes cur ineligible and preempts it.
        owed.vlag = 50'000;
        rq.enqueue(owed, 0);
        CHECK_FALSE(rq.eligible(cur));
        CHECK(rq.wakeup_preempt(owed));
    }
}

TEST_CASE("EEVDF: delayed dequeue holds a task that has had more than its share until the pick "
          "or its wake-up; DELAY_ZERO drops what it came to be owed meanwhile",
          "[eevdf]") {
    CfsRq rq(kSlice, kTick);
    SchedEntity a, b;
    rq.enqueue(a, 0);
    rq.enqueue(b, 0);
    int64_t now = run(rq, a, 0, 20'000);
    rq.dequeue_sleep(a);  // lag -10 us: delayed
    CHECK(a.delayed);
    CHECK(rq.nr_queued() == 2);
    // b runs long enough that a is owed service (V passes it); woken now, a starts again
    // from zero lag rather than with what it was owed.
    now = run(rq, b, now, 60'000);
    CHECK(lag(rq, a) == 20'000);
    rq.enqueue(a, 0);
    CHECK_FALSE(a.delayed);
    CHECK(lag(rq, a) == 0);
    // With nothing runnable the idle pick dequeues the delayed tasks.
    now = run(rq, a, now, 50'000);
    rq.dequeue_sleep(a);
    CHECK(a.delayed);
    rq.dequeue_sleep(b);  // eligible: it leaves at once, owed what it waited
    CHECK(b.rq == nullptr);
    CHECK(b.vlag == 25'000);
    rq.idle();
    CHECK(rq.nr_queued() == 0);
    CHECK(a.rq == nullptr);
    CHECK_FALSE(a.delayed);
}

TEST_CASE("EEVDF: a task that moves takes its lag and its deadline relative to its vruntime", "[eevdf]") {
    CfsRq from(kSlice, kTick), to(kSlice, kTick);
    SchedEntity a, b, m, c;
    from.enqueue(a, 0);
    from.enqueue(m, 0);
    run(from, a, 0, 40'000);  // m owed 20 us
    const int64_t rel = m.deadline - m.vruntime;
    to.enqueue(b, 0);
    run(to, b, 0, 1'000'000);
    to.enqueue(c, 0);
    to.enqueue(m, 0);  // leaves `from` (migrate_out) and is placed here
    CHECK(from.nr_queued() == 1);
    CHECK(to.nr_queued() == 3);
    CHECK(lag(to, m) == 20'000);
    CHECK(m.deadline - m.vruntime == rel);
}

TEST_CASE("EEVDF: a task delayed on one CPU and woken on another leaves the first without what it "
          "came to be owed there (DELAY_ZERO)",
          "[eevdf]") {
    CfsRq p(kSlice, kTick), q(kSlice, kTick);
    SchedEntity d, e, f;
    p.enqueue(d, 0);
    p.enqueue(e, 0);
    const int64_t now = run(p, d, 0, 20'000);
    p.dequeue_sleep(d);
    CHECK(d.delayed);
    run(p, e, now, 60'000);
    CHECK(lag(p, d) == 20'000);
    q.enqueue(f, 0);
    q.enqueue(d, 0);
    CHECK(p.nr_queued() == 1);
    CHECK_FALSE(d.delayed);
    CHECK(d.rq == &q);
    CHECK(lag(q, d) == 0);
}

// On a core (cpu::Cpu::set_eevdf): whether a wake-up sets need_resched (preempting_wakeups).
namespace {

using namespace blksim::sim::literals;
namespace cpu = blksim::cpu;
namespace sim = blksim::sim;

// Always runnable: steps of 10 us, one after another.
struct Hog final : cpu::Task {
    sim::EventQueue* q = nullptr;
    cpu::Cpu* core = nullptr;
    void run_step(sim::Time now) override { q->at<&Hog::done>(core->book(now, 10_us), this); }
    void done(uint64_t) { core->step_end(this, q->now(), true); }
};

// Goes back to sleep as soon as it runs; woken by an event at wake_at.
struct Sleeper final : cpu::Task {
    cpu::Cpu* core = nullptr;
    sim::EventQueue* q = nullptr;
    void run_step(sim::Time now) override { core->release(now); }
    void wake(uint64_t) { core->wake(this, q->now()); }
};

// The hog runs from 0; the sleeper is woken at 0 too (waiting behind the hog's first step,
// which makes it owed service) if `waited`, and again at 15 us while the hog runs.
uint64_t preempting_wakeups(bool eevdf, bool waited) {
    sim::EventQueue q;
    cpu::Cpu core(q, 0);
    if (eevdf)
        core.set_eevdf(sim::Duration::ns(kSlice), sim::Duration::ns(kTick));
    Hog hog;
    hog.q = &q;
    hog.core = &core;
    Sleeper s;
    s.q = &q;
    s.core = &core;
    core.wake(&hog, q.now());
    if (waited)
        core.wake(&s, q.now());
    const uint64_t before = core.preempting_wakeups();
    q.at<&Sleeper::wake>(sim::Time::from_ns(15'000), &s);
    q.run_until(sim::Time::from_ns(16'000));
    return core.preempting_wakeups() - before;
}

}  // namespace

TEST_CASE("EEVDF on a core: a wake-up preempts the running task only when the woken one is owed "
          "service; before 6.6 every one does",
          "[eevdf][cpu]") {
    // It waited 10 us while the hog ran and slept at once: owed 5 us, placed so that the hog
    // (alone before, lag 0) is no longer eligible.
    CHECK(preempting_wakeups(true, true) == 1);
    // It never waited: no lag, the hog eligible and inside its slice.
    CHECK(preempting_wakeups(true, false) == 0);
    CHECK(preempting_wakeups(false, true) == 1);
    CHECK(preempting_wakeups(false, false) == 1);
}

TEST_CASE("EEVDF: a core that went idle picks its delayed tasks off, unless a task is woken onto it "
          "at that same instant",
          "[eevdf]") {
    for (const int64_t gap : {0, 1}) {
        CfsRq rq(kSlice, kTick);
        SchedEntity a, b, c;
        rq.enqueue(a, 0);
        rq.enqueue(b, 0);
        int64_t now = run(rq, a, 0, 20'000);
        rq.dequeue_sleep(a);  // delayed
        now = run(rq, b, now, 4'000);
        rq.dequeue_sleep(b);  // eligible: leaves
        rq.went_idle(now);
        rq.enqueue(c, now + gap);
        // Woken at the instant the core went idle (blksim plays a waker's last wake-up after
        // its sleep), c joins a queue that still holds a, as in the kernel, where the waker
        // was still running; a moment later the idle pick has dequeued a.
        CHECK(a.delayed == (gap == 0));
        CHECK(rq.nr_queued() == (gap == 0 ? 2u : 1u));
    }
}
