// The kernel's jiffies clock, for policies that count time in ticks of 1/HZ s (mq-deadline's
// expire times, kyber's timer and percentile window, bfq's budget timeouts and
// weight-raising periods). jiffies(t) = floor(t * HZ); msecs_to_jiffies()
// rounds up, as the kernel's does, so that a timeout never fires early by its own rounding.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/time.h"

namespace blksim::sched {

struct Jiffies {
    static constexpr int64_t NSEC_PER_SEC = 1'000'000'000;
    int32_t hz = 250;  // CONFIG_HZ

    int64_t at(sim::Time t) const {
        const int64_t ns = t.ns();
        return (ns / NSEC_PER_SEC) * hz + ((ns % NSEC_PER_SEC) * hz) / NSEC_PER_SEC;
    }
    // The first nanosecond at which at() reads j.
    sim::Time to_time(int64_t j) const {
        const int64_t whole = j / hz, part = j % hz;
        return sim::Time::from_ns(whole * NSEC_PER_SEC + (part * NSEC_PER_SEC + hz - 1) / hz);
    }
    int64_t msecs_to_jiffies(int64_t ms) const {
        const int64_t m = std::max<int64_t>(ms, 0);
        return (m / 1000) * hz + ((m % 1000) * hz + 999) / 1000;
    }
    // msecs_to_jiffies() of a duration: rounds up to the nanosecond.
    int64_t duration_to_jiffies(sim::Duration d) const {
        const int64_t ns = std::max<int64_t>(d.count(), 0);
        return (ns / NSEC_PER_SEC) * hz + ((ns % NSEC_PER_SEC) * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
    }
    int64_t jiffies_to_msecs(int64_t j) const { return j * 1000 / hz; }
    int64_t nsecs_to_jiffies(int64_t ns) const { return ns / (NSEC_PER_SEC / hz); }
};

}  // namespace blksim::sched
