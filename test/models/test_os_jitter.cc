// cpu::OsJitter: the scheduler tick, other tasks preempting a busy core and the wake-up
// latency. Identical jobs drift apart with it and run in lockstep without it; a CPU-bound run
// loses only the CPU share it takes; the same seed gives the same run. And the host's stalls
// of a vCPU (host.vcpu_preemption): the share of a busy vCPU they take, what is left of one
// in progress when a step starts, and the tail they give a synchronous job's latency.
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

// One psync job at QD1 on a 2-CPU timer null_blk (10 us), 20000 I/Os: its clat p50 and p99
// (ns), with or without the host's stalls.
std::pair<uint64_t, uint64_t> qd1_p50_p99(std::vector<cpu::VcpuStall> stalls) {
    auto m = testing::timer_nullb(2, 10_us, "none", 5);
    m.host.vcpu_preemption = std::move(stalls);
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.number_ios = 20000;
    m.jobs.push_back(j);
    topology::Machine machine(m);
    auto r = machine.run();
    REQUIRE(r.jobs.at(0).dir[0].total_ios == 20000);
    const double plist[] = {50.0, 99.0};
    const auto p = r.jobs[0].dir[0].clat_hist.percentiles(plist);
    return {p[0], p[1]};
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
    cpu::OsJitter busy(7, 0, true, {});
    sim::Duration tick, other, stolen;
    const sim::Time start = sim::Time::zero();
    const sim::Time end = busy.take(start, start + 1_s, tick, other, stolen);
    CHECK(stolen == sim::Duration());
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
    cpu::OsJitter idle(7, 0, true, {});
    sim::Duration idle_tick, idle_other, idle_stolen;
    const sim::Time wake = start + sim::Duration::ns(10'000'000'000);
    idle.take(wake, wake + 1_us, idle_tick, idle_other, idle_stolen);
    CHECK(idle_tick <= p.tick_cost);
    CHECK(idle_other < 1_ms);
    CHECK(idle.next() >= wake);

    // A core woken by an interrupt after a long idle gap: the interrupt's work is charged on
    // the core before the task's step, and the arrivals drawn for the gap are still not the
    // step's (a psync fsync after a 15 ms write took 0.7 us, 8 us on average when they were).
    cpu::OsJitter irq(7, 0, true, {});
    sim::Duration irq_tick, irq_other, irq_stolen;
    const sim::Time step = wake + 3_us;  // 3 us of interrupt work before it
    irq.take(step, step + 1_us, irq_tick, irq_other, irq_stolen);
    CHECK(irq_other == sim::Duration());
    CHECK(irq.next() >= step);
}

TEST_CASE("vcpu_preemption: a busy vCPU loses per_s x mean of its running time, and nothing else of the jitter "
          "without os_jitter", "[models][os_jitter]") {
    // 1000 stalls a second of 30 us: 30 ms per second of work (Poisson count, sd about 1.3 ms).
    const cpu::VcpuStall stall{1000.0, 30_us};
    cpu::OsJitter host(7, 0, false, std::span(&stall, 1));
    sim::Duration tick, other, stolen;
    const sim::Time start = sim::Time::zero();
    const sim::Time end = host.take(start, start + 1_s, tick, other, stolen);
    CHECK(tick == sim::Duration());
    CHECK(other == sim::Duration());
    CHECK(end == start + 1_s + stolen);
    CHECK(stolen > 25_ms);
    CHECK(stolen < 35_ms);
    CHECK(host.wake_latency() == sim::Duration());
    // Two classes: the arrivals add up, and the long class dominates the time taken.
    const cpu::VcpuStall two[] = {{1000.0, 30_us}, {2.0, 5_ms}};
    cpu::OsJitter both(7, 0, false, two);
    sim::Duration t2, o2, s2;
    both.take(start, start + sim::Duration::ns(10'000'000'000), t2, o2, s2);
    // 10 s: 300 ms of short stalls and 20 x 5 ms = 100 ms of long ones (sd about 25 ms).
    CHECK(s2 > 300_ms);
    CHECK(s2 < 500_ms);
}

TEST_CASE("vcpu_preemption: a stall in progress delays a step by what is left of it, one over before it by nothing",
          "[models][os_jitter]") {
    const cpu::VcpuStall stall{100.0, 200_us};
    // The first stall starts at s0 and lasts d (from a step that begins with it).
    cpu::OsJitter probe(11, 0, false, std::span(&stall, 1));
    const sim::Time s0 = probe.next();
    sim::Duration tick, other, d;
    probe.take(s0, s0 + 1_ns, tick, other, d);
    REQUIRE(d > sim::Duration());
    // The same stream, stepped into at three instants: its start, its middle, its end.
    auto stolen_from = [&](sim::Time at) {
        cpu::OsJitter j(11, 0, false, std::span(&stall, 1));
        sim::Duration t, o, st;
        const sim::Time end = j.take(at, at + 1_ns, t, o, st);
        CHECK(end == at + 1_ns + st);
        return st;
    };
    const sim::Duration half = sim::Duration::ns(d.count() / 2);
    CHECK(stolen_from(s0) == d);
    CHECK(stolen_from(s0 + half) == d - half);
    CHECK(stolen_from(s0 + d) == sim::Duration());
    // Another core draws its own stalls.
    cpu::OsJitter other_cpu(11, 1, false, std::span(&stall, 1));
    CHECK(other_cpu.next() != s0);
}

TEST_CASE("vcpu_preemption: the host's stalls give a synchronous job's latency a tail and leave its median",
          "[models][os_jitter]") {
    const auto [p50, p99] = qd1_p50_p99({});
    // 2000 stalls a second of 50 us each (a tenth of the vCPU's time): an I/O that meets one
    // on either core waits for it.
    const auto [s50, s99] = qd1_p50_p99({{2000.0, 50_us}});
    CHECK(s50 < p50 * 11 / 10);
    CHECK(s50 >= p50);
    CHECK(s99 > p99 + 20'000);
    // Deterministic per seed.
    CHECK(qd1_p50_p99({{2000.0, 50_us}}) == std::make_pair(s50, s99));
}
