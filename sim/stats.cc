#include "sim/stats.h"

#include <algorithm>
#include <cmath>

namespace blksim::sim {

void RunningStat::merge(const RunningStat& o) {
    if (o.n_ == 0)
        return;
    if (n_ == 0) {
        *this = o;
        return;
    }
    // fio's sum_stat(): the same arithmetic, so merged figures print fio's last digits.
    const double n1 = static_cast<double>(n_), n2 = static_cast<double>(o.n_);
    const double delta = mean_ - o.mean_;
    const double mean = (mean_ * n1 + o.mean_ * n2) / (n1 + n2);
    m2_ = m2_ + o.m2_ + std::pow(delta, 2) * (n1 * n2) / (n1 + n2);
    mean_ = mean;
    n_ += o.n_;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
}

void SumStat::merge(const SumStat& o) {
    if (o.n_ == 0)
        return;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
    n_ += o.n_;
    sum_ += o.sum_;
}

uint64_t LatencyHistogram::idx_to_val(unsigned idx) {
    if (idx < (PLAT_VAL << 1))
        return idx;
    const unsigned error_bits = (idx >> PLAT_BITS) - 1;
    const uint64_t base = uint64_t{1} << (error_bits + PLAT_BITS);
    const uint64_t k = idx % PLAT_VAL;
    // fio: base + ((k + 0.5) * (1 << error_bits)), truncated to an integer.
    return base + static_cast<uint64_t>((static_cast<double>(k) + 0.5) *
                                        static_cast<double>(uint64_t{1} << error_bits));
}

uint64_t* LatencyHistogram::new_group(unsigned g) {
    groups_[g] = std::make_unique<uint64_t[]>(PLAT_VAL);
    return groups_[g].get();
}

LatencyHistogram& LatencyHistogram::operator=(const LatencyHistogram& o) {
    if (this == &o)
        return *this;
    for (unsigned g = 0; g < PLAT_GROUP_NR; ++g) {
        if (o.groups_[g] == nullptr)
            groups_[g].reset();
        else
            std::copy_n(o.groups_[g].get(), PLAT_VAL, groups_[g] ? groups_[g].get() : new_group(g));
    }
    total_ = o.total_;
    return *this;
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
    for (unsigned g = 0; g < PLAT_GROUP_NR; ++g) {
        const uint64_t* from = o.groups_[g].get();
        if (from == nullptr)
            continue;
        uint64_t* to = groups_[g] ? groups_[g].get() : new_group(g);
        for (unsigned i = 0; i < PLAT_VAL; ++i)
            to[i] += from[i];
    }
    total_ += o.total_;
}

std::span<const double> LatencyHistogram::default_percentiles() {
    static constexpr double list[] = {1.0,  5.0,  10.0, 20.0, 30.0, 40.0, 50.0,  60.0,  70.0,
                                      80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99};
    return list;
}

std::vector<uint64_t> LatencyHistogram::percentiles(std::span<const double> plist) const {
    std::vector<uint64_t> out(plist.size(), 0);
    if (total_ == 0 || plist.empty())
        return out;
    // fio's calc_clat_percentiles(): walk the buckets, and every time the running count
    // reaches p% of the total, the current bucket's midpoint is that percentile.
    uint64_t sum = 0;
    std::size_t j = 0;
    for (unsigned i = 0; i < PLAT_NR && j < plist.size(); ++i) {
        sum += bin(i);
        while (j < plist.size() &&
               static_cast<long double>(sum) >=
                   static_cast<long double>(plist[j]) / 100.0L * static_cast<long double>(total_)) {
            out[j] = idx_to_val(i);
            ++j;
        }
    }
    return out;
}

std::vector<uint64_t> LatencyHistogram::percentiles_within(std::span<const double> plist, uint64_t lo,
                                                           uint64_t hi) const {
    std::vector<uint64_t> out = percentiles(plist);
    if (total_ != 0)
        for (uint64_t& v : out)
            v = std::clamp(v, lo, hi);
    return out;
}

}  // namespace blksim::sim
