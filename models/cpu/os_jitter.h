// What takes a CPU from the task running on it besides the I/O path: the scheduler tick and
// other tasks (kworkers, daemons, RCU callbacks) that preempt it, and the scheduler's wake-up
// latency. It is what makes identical jobs drift apart on a real machine (docs/model.md,
// "OS jitter").
//
// The tick and the preemptions are CPU time taken on the core's timeline, as interrupt work
// is: a task step they fall into ends later by their cost, so a CPU-bound run loses their
// share of the CPU (about 0.3 %) and no more. They are applied lazily, when a step is booked
// (Cpu::book): no event of their own, and one comparison per step when none is due. An idle
// core takes no tick (NO_HZ_IDLE) and another task that ran on it delayed nobody: instants
// that fall while the core is idle are skipped.
//
// On a virtual machine the host takes the vCPU away as well (host.vcpu_preemption, VcpuStall):
// the vCPU alternates between running and stalled, the stalls arriving while it runs and
// lasting an exponentially distributed time of their class's mean, in the host's time
// whatever the guest is doing. Unlike the guest's own preemptions, a stall matters even when
// it begins while the core is idle: a step granted during it ends that much later. Like them
// it stretches task steps only (interrupt work and lock sections charged on the core are not
// stretched, a simplification: a lock holder's stall does not hold the lock longer).
//
// Each core draws from its own random streams, named after the core ("cpu<N>.os_jitter" for
// the preemptions, "cpu<N>.wake" for the wake-ups, "cpu<N>.vcpu_preemption" for the host's
// stalls): deterministic per seed, and independent of everything else in the run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/cpu/cpu_config.h"
#include "sim/random.h"
#include "sim/time.h"

namespace blksim::cpu {

// The figures, with where they come from.
struct OsJitterParams {
    // CONFIG_HZ=250 (Debian's and most distributions' kernels; the real-Linux fixtures' VM
    // too): one tick every 4 ms. All cores tick at the same jiffy boundary (the kernel's
    // default, skew_tick=0); where that boundary falls relative to the run's start is drawn
    // from the seed.
    sim::Duration tick_period = sim::Duration::ns(4'000'000);
    // tick_sched_timer -> update_process_times (scheduler_tick, RCU, timer wheel) and the
    // local APIC timer interrupt around it. An estimate: 1-2 us is what ftrace's
    // function_graph shows for the handler on current x86 servers; not measured here.
    sim::Duration tick_cost = sim::Duration::ns(1'500);
    // Other tasks and kworkers (vmstat_update, RCU, writeback, journald, ...) taking a busy
    // core: Poisson arrivals, exponentially distributed run times. An estimate sized to a
    // fraction of a percent of a CPU (100/s x 20 us = 0.2 %) on an otherwise quiet machine.
    double preempt_per_s = 100.0;
    sim::Duration preempt_mean = sim::Duration::ns(20'000);
    // ttwu -> the woken task running on its core (IPI, idle exit, pick_next_task), beyond
    // the context switch the cost profile already charges: exponentially distributed. The
    // largest mean the real-Linux 6.18 loop fixtures allow: psync QD1 under none, quietest
    // run, clat p99 - p50 = 1.5 us, and an exponential's p99 - p50 is 3.9 x its mean
    // (docs/validation.md, "Drift"). The mean adds to every synchronous wait's latency.
    sim::Duration wake_mean = sim::Duration::ns(350);
};

class OsJitter {
public:
    // `guest`: the tick, other tasks and the wake-up latency (host.os_jitter); `stalls`: the
    // host's preemption of this vCPU (host.vcpu_preemption), none if empty.
    OsJitter(uint64_t seed, uint32_t cpu, bool guest, std::span<const VcpuStall> stalls,
             const OsJitterParams& p = {});

    // The next instant at which something is due on this core.
    sim::Time next() const { return sim::min(sim::min(next_tick_, next_preempt_), stall_start_); }

    // What fell on a step booked from `start` to `end`: the tick and other tasks at
    // instants before `start` (the core idle, or in interrupt work since the last step) are
    // skipped, the others are taken; a host stall is taken for the part of it after `start`.
    // Returns the step's new end; `tick`, `other` and `stolen` get the time taken by each kind.
    sim::Time take(sim::Time start, sim::Time end, sim::Duration& tick, sim::Duration& other,
                   sim::Duration& stolen);

    // The scheduler's latency for a task woken onto this core.
    sim::Duration wake_latency() { return guest_ ? draw(rng_wake_, wake_mean_ns_) : sim::Duration(); }

private:
    static sim::Duration draw(sim::Rng& r, double mean_ns) {
        return sim::Duration::ns(static_cast<int64_t>(r.exponential(mean_ns)));
    }
    // The vCPU's next stall: it runs an exponential time (all classes' arrivals together),
    // then stalls for a draw of the class the arrival belongs to.
    void next_stall(sim::Time from);

    sim::Rng rng_;
    sim::Rng rng_wake_;
    sim::Duration tick_period_;
    sim::Duration tick_cost_;
    double preempt_gap_ns_;  // mean gap between arrivals
    double preempt_mean_ns_;
    double wake_mean_ns_;
    sim::Time next_tick_ = sim::Time::never();
    sim::Time next_preempt_ = sim::Time::never();
    bool guest_;
    // The host's stalls: classes by cumulative share of the arrivals, with their mean.
    struct StallClass {
        double cumulative;
        double mean_ns;
    };
    std::vector<StallClass> stall_classes_;
    double stall_gap_ns_ = 0;  // mean running time between stalls
    sim::Rng rng_stall_;
    sim::Time stall_start_ = sim::Time::never();
    sim::Time stall_end_ = sim::Time::never();
};

}  // namespace blksim::cpu
