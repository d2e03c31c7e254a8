#include "models/cpu/os_jitter.h"

#include <fmt/format.h>

namespace blksim::cpu {

OsJitter::OsJitter(uint64_t seed, uint32_t cpu, const OsJitterParams& p)
    : rng_(seed, fmt::format("cpu{}.os_jitter", cpu)), rng_wake_(seed, fmt::format("cpu{}.wake", cpu)),
      tick_period_(p.tick_period), tick_cost_(p.tick_cost), preempt_gap_ns_(1e9 / p.preempt_per_s),
      preempt_mean_ns_(static_cast<double>(p.preempt_mean.count())),
      wake_mean_ns_(static_cast<double>(p.wake_mean.count())) {
    // One jiffy boundary for every core (skew_tick=0): the phase comes from a stream that
    // no core owns.
    sim::Rng phase(seed, "os_jitter.tick");
    next_tick_ = sim::Time::zero() + sim::Duration::ns(static_cast<int64_t>(phase.below(
                                         static_cast<uint64_t>(tick_period_.count()))));
    next_preempt_ = sim::Time::zero() + draw(rng_, preempt_gap_ns_);
}

sim::Time OsJitter::take(sim::Time start, sim::Time end, sim::Duration& tick, sim::Duration& other) {
    for (sim::Time t = next(); t < end; t = next()) {
        // Before the step: the core was idle, or busy with interrupt work charged on it
        // (which ran with interrupts off, or which the jitter does not stretch). Every
        // instant before the previous step's end was taken when that step was booked.
        const bool idle = t < start;
        if (next_tick_ <= next_preempt_) {
            if (idle) {
                // NO_HZ_IDLE: the next tick is the first jiffy boundary at or after `start`.
                const int64_t p = tick_period_.count();
                next_tick_ += tick_period_ * (((start - next_tick_).count() + p - 1) / p);
                continue;
            }
            tick += tick_cost_;
            end += tick_cost_;
            next_tick_ += tick_period_;
        } else {
            if (idle) {
                // Arrivals are memoryless: the next one after an idle gap is as far from its
                // end as from anywhere.
                next_preempt_ = start + draw(rng_, preempt_gap_ns_);
                continue;
            }
            const sim::Duration d = draw(rng_, preempt_mean_ns_);
            other += d;
            end += d;
            next_preempt_ += draw(rng_, preempt_gap_ns_);
        }
    }
    return end;
}

}  // namespace blksim::cpu
