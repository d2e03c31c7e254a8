// cpu::OsJitter: the scheduler tick, other tasks preempting a busy core and the wake-up
// latency. Identical jobs drift apart with it and run in lockstep without it; a CPU-bound run
// loses only the CPU share it takes; the same seed gives the same run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

#include "models/cpu/os_jitter.h"
#include "models/device/null_blk_config.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// Four identical psync jobs reading the same offsets on a 10 us timer null_blk, 2000 I/Os
// each: how long each job took, in ns.
std::vector<int64_t> lockstep_jobs(bool jitter, uint64_t seed) {
    auto m = testing::timer_nullb(4, 10_us, "none", seed);
    m.host.os_jitter = jitter;
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::READ);
    j.numjobs = 4;
    j.number_ios = 2000;
    m.jobs.push_back(j);
    topology::Machine machine(m);
    auto r = machine.run();
    std::vector<int64_t> took;
    for (const auto& jr : r.jobs) {
        REQUIRE(jr.dir[0].total_ios == 2000);
        took.push_back(jr.runtime.count());
    }
    return took;
}

bool all_equal(const std::vector<int64_t>& v) {
    return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
}

// One CPU-bound psync job per CPU on a null_blk that completes inline: IOPS.
double cpu_bound_iops(bool jitter) {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::NONE;
    auto m = testing::nullb_machine(2, nb, "none", 3);
    m.host.os_jitter = jitter;
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.numjobs = 2;
    j.runtime = 100_ms;
    j.time_based = true;
    m.jobs.push_back(j);
    topology::Machine machine(m);
    auto r = machine.run();
    uint64_t ios = 0;
    for (const auto& jr : r.jobs)
        ios += jr.dir[0].total_ios;
    return static_cast<double>(ios) / r.sim_time.seconds();
}

}  // namespace

TEST_CASE("os_jitter: identical jobs on the same offsets drift apart, and stay in lockstep without it",
          "[models][os_jitter]") {
    CHECK(all_equal(lockstep_jobs(false, 1)));
    const auto drift = lockstep_jobs(true, 1);
    CHECK_FALSE(all_equal(drift));
    // Same seed, same run; another seed, another drift.
    CHECK(lockstep_jobs(true, 1) == drift);
    CHECK(lockstep_jobs(true, 2) != drift);
}

TEST_CASE("os_jitter: a CPU-bound run loses only the share of the CPU it takes", "[models][os_jitter]") {
    const double quiet = cpu_bound_iops(false);
    const double jittered = cpu_bound_iops(true);
    CHECK(jittered < quiet);
    CHECK(jittered > 0.98 * quiet);
}

TEST_CASE("os_jitter: a busy core takes every tick and the preemptions, an idle one none", "[models][os_jitter]") {
    const cpu::OsJitterParams p;
    cpu::OsJitter busy(7, 0);
    sim::Duration tick, other;
    const sim::Time start = sim::Time::zero();
    const sim::Time end = busy.take(start, start + 1_s, tick, other);
    CHECK(end == start + 1_s + tick + other);
    // One tick per jiffy of the (extended) step: 250 or 251 in a second at HZ=250.
    CHECK(tick.count() / p.tick_cost.count() >= 250);
    CHECK(tick.count() / p.tick_cost.count() <= 251);
    CHECK(tick.count() % p.tick_cost.count() == 0);
    // ~100 arrivals of 20 us on average: 2 ms, well inside 1..3.5 ms.
    CHECK(other > 1_ms);
    CHECK(other < sim::Duration::ns(3'500'000));
    CHECK(busy.next() >= end);

    // Ten idle seconds, then a 1 us step: the ticks and arrivals of the idle gap are skipped.
    cpu::OsJitter idle(7, 0);
    sim::Duration idle_tick, idle_other;
    const sim::Time wake = start + sim::Duration::ns(10'000'000'000);
    idle.take(wake, wake + 1_us, idle_tick, idle_other);
    CHECK(idle_tick <= p.tick_cost);
    CHECK(idle_other < 1_ms);
    CHECK(idle.next() >= wake);

    // A core woken by an interrupt after a long idle gap: the interrupt's work is charged on
    // the core before the task's step, and the arrivals drawn for the gap are still not the
    // step's (a psync fsync after a 15 ms write took 0.7 us, 8 us on average when they were).
    cpu::OsJitter irq(7, 0);
    sim::Duration irq_tick, irq_other;
    const sim::Time step = wake + 3_us;  // 3 us of interrupt work before it
    irq.take(step, step + 1_us, irq_tick, irq_other);
    CHECK(irq_other == sim::Duration());
    CHECK(irq.next() >= step);
}
