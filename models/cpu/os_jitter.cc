#include "models/cpu/os_jitter.h"

#include <fmt/format.h>

namespace blksim::cpu {

OsJitter::OsJitter(uint64_t seed, uint32_t cpu, bool guest, std::span<const VcpuStall> stalls,
                   const OsJitterParams& p)
    : rng_(seed, fmt::format("cpu{}.os_jitter", cpu)), rng_wake_(seed, fmt::format("cpu{}.wake", cpu)),
      tick_period_(p.tick_period), tick_cost_(p.tick_cost), preempt_gap_ns_(1e9 / p.preempt_per_s),
      preempt_mean_ns_(static_cast<double>(p.preempt_mean.count())),
      wake_mean_ns_(static_cast<double>(p.wake_mean.count())), guest_(guest),
      rng_stall_(seed, fmt::format("cpu{}.vcpu_preemption", cpu)) {
    if (guest_) {
        // One jiffy boundary for every core (skew_tick=0): the phase comes from a stream that
        // no core owns.
        sim::Rng phase(seed, "os_jitter.tick");
        next_tick_ = sim::Time::zero() + sim::Duration::ns(static_cast<int64_t>(phase.below(
                                             static_cast<uint64_t>(tick_period_.count()))));
        next_preempt_ = sim::Time::zero() + draw(rng_, preempt_gap_ns_);
    }
    double per_s = 0;
    for (const VcpuStall& c : stalls)
        per_s += c.per_s;
    if (per_s > 0) {
        double cumulative = 0;
        for (const VcpuStall& c : stalls) {
            cumulative += c.per_s / per_s;
            stall_classes_.push_back({cumulative, static_cast<double>(c.mean.count())});
        }
        stall_classes_.back().cumulative = 1.0;
        stall_gap_ns_ = 1e9 / per_s;
        next_stall(sim::Time::zero());
    }
}

void OsJitter::next_stall(sim::Time from) {
    stall_start_ = from + draw(rng_stall_, stall_gap_ns_);
    const double u = rng_stall_.uniform();
    const StallClass* c = &stall_classes_.front();
    while (u >= c->cumulative && c != &stall_classes_.back())
        ++c;
    stall_end_ = stall_start_ + draw(rng_stall_, c->mean_ns);
}

sim::Time OsJitter::take(sim::Time start, sim::Time end, sim::Duration& tick, sim::Duration& other,
                         sim::Duration& stolen) {
    for (sim::Time t = next(); t < end; t = next()) {
        if (t == stall_start_ && t < sim::min(next_tick_, next_preempt_)) {
            // The host's time, whatever the core did: a stall over before the step began
            // delayed nothing; one in progress at its start delays it by what is left of it;
            // one inside it by all of it. The next one follows the stall's end.
            if (stall_end_ > start) {
                const sim::Duration d = stall_end_ - sim::max(stall_start_, start);
                stolen += d;
                end += d;
            }
            next_stall(stall_end_);
            continue;
        }
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
