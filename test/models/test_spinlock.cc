// The spinlock timeline against the formula it must produce.
#include <catch2/catch.hpp>

#include <memory>
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
        const auto s = lock->acquire(core->id(), now + outside, hold);
        core->account_spin(s.spin);
        ++sections;
        eq->at<&Locker::again>(core->book(now, s.end - now), this);
    }
    void again(uint64_t) { core->step_end(this, eq->now(), true); }
};

}  // namespace

TEST_CASE("uncontended: no spin, no hand-off on the same core", "[models][spinlock]") {
    cpu::Spinlock l("l", 200_ns);
    auto a = l.acquire(0, sim::Time::from_ns(1000), 100_ns);
    auto b = l.acquire(0, sim::Time::from_ns(5000), 100_ns);
    CHECK(a.spin.count() == 0);
    CHECK(b.spin.count() == 0);
    CHECK(b.end.ns() == 5100);
    // Another core pays the cache-line hand-off only if it arrives before that completes.
    auto c = l.acquire(1, sim::Time::from_ns(5150), 100_ns);
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
