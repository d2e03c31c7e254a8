// Streaming statistics. Memory is fixed whatever the number of samples.
//
// RunningStat follows fio's add_stat_sample(): Welford's update of mean and sum of squared
// deviations, min, max and count, so that mean/stddev print the same digits fio would.
// LatencyHistogram is fio's log-linear layout (stat.h: FIO_IO_U_PLAT_BITS = 6,
// FIO_IO_U_PLAT_GROUP_NR = 29, 1856 buckets over nanoseconds): values below 128 ns have a
// bucket each, then every power-of-two range is split into 64 buckets, giving <= 1/64
// relative error. Percentiles are computed as fio's calc_clat_percentiles() does, from
// bucket midpoints.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/time.h"

namespace blksim::sim {

class RunningStat {
public:
    // Per completion three times (clat, lat, slat), so it is kept branch-light. fio skips the
    // update when delta is 0; here it runs anyway, which leaves mean_ and m2_ as they were
    // (both add a zero, and neither can be -0.0: they start at +0.0, and a sum is -0.0 only
    // when both terms are), so the figures are fio's to the last bit. The count converts as
    // a signed integer (one instruction; unsigned needs a branch for the top bit, which a
    // count of samples never reaches).
    void add(double v) {
        if (n_ == 0 || v < min_)
            min_ = v;
        if (n_ == 0 || v > max_)
            max_ = v;
        const double delta = v - mean_;
        mean_ += delta / (static_cast<double>(static_cast<int64_t>(n_)) + 1.0);
        m2_ += delta * (v - mean_);
        ++n_;
    }
    // Combine two independent streams (fio's sum_stat(), Chan et al. parallel update).
    void merge(const RunningStat& o);

    uint64_t count() const { return n_; }
    double mean() const { return n_ ? mean_ : 0.0; }
    double min() const { return n_ ? min_ : 0.0; }
    double max() const { return n_ ? max_ : 0.0; }
    double sum() const { return mean_ * static_cast<double>(n_); }
    double stddev() const { return n_ > 1 ? std::sqrt(m2_ / static_cast<double>(n_ - 1)) : 0.0; }

private:
    uint64_t n_ = 0;
    double mean_ = 0.0, m2_ = 0.0, min_ = 0.0, max_ = 0.0;
};

// The cheap sibling of RunningStat for hot paths that do not need fio's exact digits
// (btt-style stage latencies: count, mean, min and max; their spread comes from the
// histogram beside it): an integer sum instead of Welford's per-sample division.
class SumStat {
public:
    void add(int64_t v) {
        min_ = std::min(min_, v);
        max_ = std::max(max_, v);
        sum_ += v;
        ++n_;
    }
    void merge(const SumStat& o);
    uint64_t count() const { return n_; }
    double mean() const { return n_ ? static_cast<double>(sum_) / static_cast<double>(n_) : 0.0; }
    double min() const { return n_ ? static_cast<double>(min_) : 0.0; }
    double max() const { return n_ ? static_cast<double>(max_) : 0.0; }
    double sum() const { return static_cast<double>(sum_); }

private:
    uint64_t n_ = 0;
    int64_t sum_ = 0;  // exact to 2^63 ns (292 years) of summed latency
    // Empty: above and below every sample, so that add() needs no first-sample case.
    int64_t min_ = INT64_MAX, max_ = INT64_MIN;
};

// The buckets are kept in groups of 64 (one power-of-two range each), a group allocated
// when its first sample arrives: a run's latencies usually span a few ranges, so a
// histogram holds a few KB where all 1856 buckets would take 14.8 KB, and a machine keeps
// several per queue and per job.
class LatencyHistogram {
public:
    static constexpr unsigned PLAT_BITS = 6;
    static constexpr unsigned PLAT_VAL = 1u << PLAT_BITS;
    static constexpr unsigned PLAT_GROUP_NR = 29;
    static constexpr unsigned PLAT_NR = PLAT_GROUP_NR * PLAT_VAL;  // 1856

    static unsigned val_to_idx(uint64_t val) {
        const unsigned msb = val == 0 ? 0 : 63u - static_cast<unsigned>(__builtin_clzll(val));
        if (msb <= PLAT_BITS)
            return static_cast<unsigned>(val);
        const unsigned error_bits = msb - PLAT_BITS;
        const unsigned base = (error_bits + 1) << PLAT_BITS;
        const unsigned offset = (PLAT_VAL - 1) & static_cast<unsigned>(val >> error_bits);
        return std::min(base + offset, PLAT_NR - 1);
    }
    static uint64_t idx_to_val(unsigned idx);  // bucket midpoint, as fio reports it

    LatencyHistogram() = default;
    LatencyHistogram(const LatencyHistogram& o) { *this = o; }
    LatencyHistogram& operator=(const LatencyHistogram& o);
    LatencyHistogram(LatencyHistogram&&) noexcept = default;
    LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;

    // val_to_idx() split into the group (idx / 64) and the bucket within it, without a
    // branch but the clamp: with msb the top bit's position, a value below 64 is group 0 at
    // itself, and above that the group is msb - 5 and the bucket the 6 bits below the top one
    // (below 128 those are the value's own low bits).
    void add(uint64_t ns) {
        const unsigned msb = static_cast<unsigned>(__builtin_clzll(ns | 1)) ^ 63u;
        unsigned group = std::max(msb, PLAT_BITS - 1) - (PLAT_BITS - 1);
        unsigned at = static_cast<unsigned>(ns >> (std::max(msb, PLAT_BITS) - PLAT_BITS)) & (PLAT_VAL - 1);
        if (group >= PLAT_GROUP_NR) [[unlikely]] {
            group = PLAT_GROUP_NR - 1;
            at = PLAT_VAL - 1;
        }
        uint64_t* g = groups_[group].get();
        if (g == nullptr) [[unlikely]]
            g = new_group(group);
        ++g[at];
        ++total_;
    }
    void merge(const LatencyHistogram& o);
    uint64_t total() const { return total_; }
    uint64_t bin(unsigned idx) const {
        const uint64_t* g = groups_[idx >> PLAT_BITS].get();
        return g != nullptr ? g[idx & (PLAT_VAL - 1)] : 0;
    }

    // fio's default percentile list: 1 5 10 20 30 40 50 60 70 80 90 95 99 99.5 99.9 99.95 99.99
    static std::span<const double> default_percentiles();
    // One value (ns) per requested percentile, `plist` ascending as fio sorts it; all zero
    // when the histogram is empty. The thresholds are computed in long double as fio does,
    // so results are fio's on x86-64 (80-bit long double) — see docs/model.md.
    std::vector<uint64_t> percentiles(std::span<const double> plist) const;
    // The same, kept within the samples' exact [lo, hi]: for blksim's own tables, where a
    // bucket midpoint above the maximum (or, for equal samples, off the mean) would read as
    // a measurement. fio's sections print the midpoints as fio does.
    std::vector<uint64_t> percentiles_within(std::span<const double> plist, uint64_t lo, uint64_t hi) const;

private:
    uint64_t* new_group(unsigned g);

    // The count first: an add() touches it and one group's pointer, and the first groups
    // (below 512 ns) then share its cache line.
    uint64_t total_ = 0;
    std::array<std::unique_ptr<uint64_t[]>, PLAT_GROUP_NR> groups_{};
};

// Per-interval accumulation (fio's bw/iops logging at bwavgtime/iopsavgtime): adds are
// summed into the current window; each closed window contributes one sample of
// sum/window-length (per second) to `samples`.
class IntervalSampler {
public:
    IntervalSampler() = default;
    IntervalSampler(Time start, Duration interval) : next_(start + interval), interval_(interval) {}
    void add(Time now, uint64_t amount) {
        roll(now);
        acc_ += amount;
    }
    // Close every window that ended at or before `now`.
    void roll(Time now) {
        while (interval_.count() > 0 && now >= next_) {
            samples_.add(static_cast<double>(acc_) / interval_.seconds());
            acc_ = 0;
            next_ += interval_;
        }
    }
    const RunningStat& samples() const { return samples_; }

private:
    Time next_;
    Duration interval_;
    uint64_t acc_ = 0;
    RunningStat samples_;
};

}  // namespace blksim::sim
