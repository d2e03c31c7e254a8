// The spinlock timeline against the formula it must produce.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

#include "models/cpu/cpu.h"
#include "models/cpu/spinlock.h"
#include "sim/event_queue.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// A thread that loops: some work outside the lock, then a critical section.
struct Locker final : cpu::Task {
    sim::EventQueue* eq;
    cpu::Cpu* core;
    cpu::Spinlock* lock;
    sim::Duration outside, hold;
    sim::Time until;
    uint64_t sections = 0;

    void run_step(sim::Time now) override {
        if (now >= until) {
            core->release(now);
            return;
        }
        const auto s = lock->acquire(core->id(), now + outside, hold, now);
        core->account_spin(s.spin);
        ++sections;
        eq->at<&Locker::again>(core->book(now, s.end - now), this);
    }
    void again(uint64_t) { core->step_end(this, eq->now(), true); }
};

}  // namespace

TEST_CASE("uncontended: no spin, no hand-off on the same core", "[models][spinlock]") {
    cpu::Spinlock l("l", 200_ns);
    auto a = l.acquire(0, sim::Time::from_ns(1000), 100_ns, sim::Time::zero());
    auto b = l.acquire(0, sim::Time::from_ns(5000), 100_ns, sim::Time::zero());
    CHECK(a.spin.count() == 0);
    CHECK(b.spin.count() == 0);
    CHECK(b.end.ns() == 5100);
    // Another core pays the cache-line hand-off only if it arrives before that completes.
    auto c = l.acquire(1, sim::Time::from_ns(5150), 100_ns, sim::Time::zero());
    CHECK(c.start.ns() == 5300);
    CHECK(c.spin.count() == 150);
    CHECK(l.contended() == 1);
}

TEST_CASE("a lock wanted by 10 CPUs gives 1/(hold + hand-off) and the spin is CPU busy time", "[models][spinlock]") {
    sim::EventQueue eq;
    const auto hold = 500_ns, handoff = 100_ns, outside = 300_ns;
    cpu::Spinlock lock("dd->lock", handoff);
    std::vector<std::unique_ptr<cpu::Cpu>> cores;
    std::vector<std::unique_ptr<Locker>> threads;
    const sim::Time until = sim::Time::zero() + 10_ms;
    for (uint32_t c = 0; c < 10; ++c) {
        cores.push_back(std::make_unique<cpu::Cpu>(eq, c));
        auto t = std::make_unique<Locker>();
        t->eq = &eq;
        t->core = cores.back().get();
        t->lock = &lock;
        t->outside = outside;
        t->hold = hold;
        t->until = until;
        threads.push_back(std::move(t));
    }
    for (auto& t : threads)
        t->core->wake(t.get(), sim::Time::zero());
    eq.run_until(until + 1_ms);

    uint64_t sections = 0;
    for (auto& t : threads)
        sections += t->sections;
    // Saturated: every section costs hold + hand-off of lock time (the next holder is always
    // another core), so throughput = 1 / 600 ns, whatever the work outside the lock.
    const double expect = 10e-3 / 600e-9;
    CHECK(static_cast<double>(sections) == Approx(expect).epsilon(0.01));
    // Each core is 100 % busy, and most of it is spinning: per section a core works
    // outside + hold = 800 ns of its 10 × 600 ns cycle.
    for (auto& c : cores) {
        CHECK(c->busy().count() >= 9'900'000);
        const double spin_share = static_cast<double>(c->spin().count()) / static_cast<double>(c->busy().count());
        CHECK(spin_share == Approx(1.0 - 800.0 / 6000.0).epsilon(0.02));
    }
    CHECK(lock.contended() > sections * 9 / 10);
}

// Arrival order. A step charges its work ahead of the event queue, so a core can ask for
// the lock at an instant later than another core's request that comes after it in call
// order. A queued spinlock serves the one that arrives first.
TEST_CASE("a caller that arrives first is served first, even after a section given out ahead of time", "[models][spinlock][fifo]") {
    const auto at = [](int64_t ns) { return sim::Time::from_ns(ns); };
    cpu::Spinlock l("l", 100_ns);
    // Core 0 is 6.5 us into a step (->queue_rq) when it takes the lock at 10 us.
    const auto a = l.acquire(0, at(10'000), 500_ns, sim::Time::zero());
    // Core 1 reaches the lock at 2 us: it is free until 10 us, so core 1 takes it at once.
    const auto b = l.acquire(1, at(2'000), 500_ns, sim::Time::zero());
    CHECK(b.start.ns() == 2'000);
    CHECK(b.spin.count() == 0);
    // At 9.5 us its section (and the cache line's trip back) no longer fits before core 0's:
    // it waits for that one and the hand-off.
    const auto c = l.acquire(1, at(9'500), 500_ns, sim::Time::zero());
    CHECK(c.start == a.end + 100_ns);
    CHECK(c.spin.count() == 1'100);
    // At 9 us it still fits (9.0-9.5 us, 0.1 us for the line to move back to core 0).
    const auto d = l.acquire(1, at(9'000), 500_ns, sim::Time::zero());
    CHECK(d.start.ns() == 9'000);
    CHECK(l.contended() == 1);
}

TEST_CASE("10 CPUs: served in arrival order whatever the call order, each waits at most 9 (hold + hand-off)", "[models][spinlock][fifo]") {
    const auto hold = 500_ns, handoff = 100_ns;
    const auto at = [](int64_t ns) { return sim::Time::from_ns(ns); };
    SECTION("arrivals far enough apart: nobody waits") {
        cpu::Spinlock l("l", handoff);
        std::vector<cpu::Spinlock::Section> s(10);
        for (uint32_t c = 10; c-- > 0;)  // the last to arrive asks first
            s[c] = l.acquire(c, at(1'000 * c), hold, sim::Time::zero());
        for (uint32_t c = 0; c < 10; ++c) {
            CHECK(s[c].start.ns() == 1'000 * c);
            CHECK(s[c].spin.count() == 0);
        }
    }
    SECTION("all arrive while core 0 holds the lock: a queue") {
        cpu::Spinlock l("l", handoff);
        const auto first = l.acquire(0, at(0), hold, sim::Time::zero());
        for (uint32_t c = 1; c < 10; ++c) {
            const auto s = l.acquire(c, at(10 * c), hold, sim::Time::zero());
            // Ahead of core c: core 0's section and c - 1 others, each with its hand-off.
            CHECK(s.start == first.end + (hold + handoff) * (c - 1) + handoff);
            CHECK(s.spin <= (hold + handoff) * 9);
        }
    }
}

namespace {

// Lockers whose work before the section differs from core to core: each core's request for
// the lock is made at the start of its step but is for the instant the work is done, so
// requests reach the lock out of their arrival order.
struct Run {
    struct Logged {
        uint32_t cpu;
        size_t call;  // the order in which sections were asked for
        sim::Time arrival;
        cpu::Spinlock::Section s;
    };
    std::vector<Logged> log;
    sim::Duration hold, handoff;
};

struct LoggingLocker final : cpu::Task {
    sim::EventQueue* eq;
    cpu::Cpu* core;
    cpu::Spinlock* lock;
    Run* run;
    sim::Duration outside;
    sim::Time until;

    void run_step(sim::Time now) override {
        if (now >= until) {
            core->release(now);
            return;
        }
        const sim::Time arrival = now + outside;
        const auto s = lock->acquire(core->id(), arrival, run->hold, now);
        core->account_spin(s.spin);
        run->log.push_back({core->id(), run->log.size(), arrival, s});
        eq->at<&LoggingLocker::again>(core->book(now, s.end - now), this);
    }
    void again(uint64_t) { core->step_end(this, eq->now(), true); }
};

// `n` cores, core c working outside[c % size] before each section.
Run contend(uint32_t n, const std::vector<sim::Duration>& outside, sim::Duration hold, sim::Duration handoff) {
    sim::EventQueue eq;
    Run run;
    run.hold = hold;
    run.handoff = handoff;
    cpu::Spinlock lock("l", handoff);
    std::vector<std::unique_ptr<cpu::Cpu>> cores;
    std::vector<std::unique_ptr<LoggingLocker>> threads;
    const sim::Time until = sim::Time::zero() + 2_ms;
    for (uint32_t c = 0; c < n; ++c) {
        cores.push_back(std::make_unique<cpu::Cpu>(eq, c));
        auto t = std::make_unique<LoggingLocker>();
        t->eq = &eq;
        t->core = cores.back().get();
        t->lock = &lock;
        t->run = &run;
        t->outside = outside[c % outside.size()];
        t->until = until;
        threads.push_back(std::move(t));
    }
    for (auto& t : threads)
        t->core->wake(t.get(), sim::Time::zero());
    eq.run_until(until + 1_ms);
    REQUIRE(lock.acquisitions() == run.log.size());
    CHECK(lock.spin_total() == std::accumulate(run.log.begin(), run.log.end(), sim::Duration(),
                                               [](sim::Duration d, const Run::Logged& l) { return d + l.s.spin; }));
    return run;
}

// The textbook properties of a FIFO lock shared by n cores. A section given out ahead of
// time cannot move, so a caller that arrives just before one and cannot finish first waits
// for it too: with `ahead` (some cores reserve their sections ahead) a wait may also hold
// free stretches too short for the caller's section, but never one long enough, and never
// two sections of the same core.
void check_fifo(const Run& run, uint32_t n, bool ahead) {
    REQUIRE(run.log.size() > 100);
    const sim::Duration bound = (run.hold + run.handoff) * (n - 1);
    sim::Duration wait, held, worst;
    uint64_t contended = 0;
    for (const auto& l : run.log) {
        wait += l.s.spin;
        held += l.s.end - l.s.start;
        worst = std::max(worst, l.s.spin);
        contended += l.s.spin.count() > 0;
    }
    INFO(n << " CPUs: " << run.log.size() << " sections, " << contended << " contended, worst wait "
           << worst.count() << " ns, total wait " << wait.count() << " ns, held " << held.count() << " ns");
    // Each waits for at most one section (and hand-off) of every other core; reserved
    // sections may add a stretch shorter than hold + 2 hand-offs before each.
    CHECK(worst <= (ahead ? (run.hold + run.handoff * 2) * n : bound));
    // All the waiting together is at most (n - 1) (1 + hand-off / hold) times the holding.
    CHECK(wait.count() * run.hold.count() <= held.count() * bound.count());
    std::vector<Run::Logged> timeline = run.log;
    std::sort(timeline.begin(), timeline.end(), [](const auto& a, const auto& b) { return a.s.start < b.s.start; });
    for (size_t i = 1; i < timeline.size(); ++i)
        REQUIRE(timeline[i].s.start >= timeline[i - 1].s.end);  // sections never overlap
    // Nobody spins while the lock stays free long enough for its section (with the cache
    // line's trips there and back), and nobody waits for two sections of one core that were
    // given out before it asked (later ones may fill gaps too short for it: no delay).
    uint64_t idle_while_waiting = 0, twice_behind = 0;
    for (const auto& l : run.log) {
        if (l.s.spin.count() == 0)
            continue;
        auto it = std::lower_bound(timeline.begin(), timeline.end(), l.arrival,
                                   [](const auto& x, sim::Time t) { return x.s.end <= t; });
        sim::Time free_from = l.arrival;
        std::vector<bool> seen(n);
        for (; it != timeline.end() && it->s.start < l.s.start; ++it) {
            if (it->s.start - sim::max(free_from, l.arrival) >= run.hold + run.handoff * 2)
                ++idle_while_waiting;
            if (it->call < l.call) {
                if (seen[it->cpu] || it->cpu == l.cpu)
                    ++twice_behind;
                seen[it->cpu] = true;
            }
            free_from = it->s.end;
        }
    }
    CHECK(idle_while_waiting == 0);
    CHECK(twice_behind == 0);
}

}  // namespace

TEST_CASE("2 CPUs, one reserving its sections ahead: FIFO, waits bounded by the other core's sections", "[models][spinlock][fifo]") {
    // Core 0 takes the lock 6.5 us into its step (after a ->queue_rq), core 1 at once.
    check_fifo(contend(2, {6500_ns, 0_ns}, 500_ns, 100_ns), 2, true);
    // Both at the same point of their steps: a wait is at most the other's section.
    check_fifo(contend(2, {300_ns}, 500_ns, 100_ns), 2, false);
}

TEST_CASE("10 CPUs reaching the lock at different points of their steps: FIFO properties", "[models][spinlock][fifo]") {
    for (const auto hold : {200_ns, 500_ns, 2000_ns}) {
        INFO("hold " << hold.count() << " ns");
        check_fifo(contend(10, {0_ns, 3000_ns, 700_ns, 6500_ns, 150_ns}, hold, 100_ns), 10, true);
        check_fifo(contend(10, {300_ns}, hold, 100_ns), 10, false);
    }
}

namespace {

// Every section ever given out, in time order, searched gap by gap: where a section goes
// when nothing is dropped or summarised.
struct WholeTimeline {
    struct Given {
        int64_t start, end;
        int64_t cpu;
    };
    int64_t handoff;
    std::vector<Given> all;

    int64_t h(int64_t from, int64_t to) const { return from >= 0 && from != to ? handoff : 0; }
    int64_t acquire(int64_t cpu, int64_t t, int64_t hold) {
        size_t k = all.size();
        while (k > 0 && all[k - 1].start > t)
            --k;
        int64_t start;
        for (;; ++k) {
            const Given prev = k > 0 ? all[k - 1] : Given{0, 0, -1};
            start = std::max(t, prev.end + h(prev.cpu, cpu));
            if (k == all.size() || start + hold + h(cpu, all[k].cpu) <= all[k].start)
                break;
        }
        all.insert(all.begin() + static_cast<std::ptrdiff_t>(k), Given{start, start + hold, cpu});
        return start;
    }
};

}  // namespace

TEST_CASE("the timeline kept around the clock places every section where the whole timeline would", "[models][spinlock][fifo]") {
    // Calls at a clock that moves on, each for an instant up to 3 us ahead of it (a step's
    // earlier work), from 6 cores with sections of 50 ns to 1 us: gaps of every size, some
    // next to the caller's own sections, many too short for it; with a hand-off as long as
    // a long section, most gaps fit only a core next to them.
    // Told the shortest hold (50 ns), the lock closes the gaps too short for it at once: the
    // sections must land where they do without that.
    for (const int64_t handoff : {100, 1200}) {
        for (const bool min_hold : {false, true}) {
            INFO("hand-off " << handoff << " ns, min hold told " << min_hold);
            WholeTimeline whole{handoff, {}};
            cpu::Spinlock lock("l", sim::Duration::ns(handoff));
            if (min_hold)
                lock.set_min_hold(sim::Duration::ns(50));
            std::mt19937_64 rng(42);
            int64_t now = 0;
            uint64_t contended = 0, ahead = 0;
            for (int i = 0; i < 20'000; ++i) {
                now += static_cast<int64_t>(rng() % 100);
                const auto cpu = static_cast<uint32_t>(rng() % 6);
                const int64_t t = now + static_cast<int64_t>(rng() % 4) * static_cast<int64_t>(rng() % 1000);
                const int64_t hold = 50 + static_cast<int64_t>(rng() % 20) * 50;
                const auto s = lock.acquire(cpu, sim::Time::from_ns(t), sim::Duration::ns(hold), sim::Time::from_ns(now));
                ahead += !whole.all.empty() && whole.all.back().start > t;
                INFO("call " << i << ": core " << cpu << " at " << t << " ns for " << hold << " ns, clock " << now);
                REQUIRE(s.start.ns() == whole.acquire(cpu, t, hold));
                contended += s.spin.count() > 0;
            }
            // The run must have had callers waiting and callers arriving before reserved sections.
            CHECK(contended > 2'000);
            CHECK(ahead > 2'000);
            CHECK(lock.contended() == contended);
        }
    }
}

TEST_CASE("a gap that holds the shortest section and its hand-off stays open", "[models][spinlock]") {
    // Told that no section is shorter than 50 ns, the lock closes a gap only if even such a
    // section with the hand-offs around it cannot fit: one that fits it exactly stays open.
    cpu::Spinlock l("l", 100_ns);
    l.set_min_hold(50_ns);
    const sim::Time zero = sim::Time::zero();
    CHECK(l.acquire(0, zero, 100_ns, zero).start == zero);                   // [0, 100)
    CHECK(l.acquire(1, zero + 1000_ns, 100_ns, zero).start == zero + 1000_ns);  // [1000, 1100)
    // Core 2 in the gap between them, leaving 150 ns after core 0's section: 50 ns and the
    // hand-off to core 2.
    CHECK(l.acquire(2, zero + 250_ns, 100_ns, zero).start == zero + 250_ns);
    // Core 0 back at 100 ns for 50 ns: it fits there, with no spin.
    const auto s = l.acquire(0, zero + 100_ns, 50_ns, zero);
    CHECK(s.start == zero + 100_ns);
    CHECK(s.spin == sim::Duration{});
}
