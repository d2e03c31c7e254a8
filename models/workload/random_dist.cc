#include "models/workload/random_dist.h"

#include <algorithm>
#include <cmath>

namespace blksim::workload {

namespace {

constexpr uint64_t kGoldenRatio64 = 0x61C8864680B583EBull;  // fio's hash.h GOLDEN_RATIO_64
constexpr uint64_t kZipfMaxGen = 10'000'000;                // fio's ZIPF_MAX_GEN
constexpr int kGaussIters = 12;                             // fio's GAUSS_ITERS

// fio's zetan: sum over i = 1..min(n, 10^7) of i^-theta (zipf_update() stops there). Summed
// exactly up to 1000, the rest by Euler-Maclaurin (relative error far below a double's
// rounding), so a large region costs no more than a small one.
double zeta(uint64_t n, double theta) {
    n = std::min(n, kZipfMaxGen);
    const uint64_t m = std::min<uint64_t>(n, 1000);
    double sum = 0.0;
    for (uint64_t i = 1; i <= m; ++i)
        sum += std::pow(1.0 / static_cast<double>(i), theta);
    if (n == m)
        return sum;
    const double a = static_cast<double>(m), b = static_cast<double>(n);
    const auto f = [&](double x) { return std::pow(x, -theta); };
    const auto f1 = [&](double x) { return -theta * std::pow(x, -theta - 1.0); };
    const auto f3 = [&](double x) { return -theta * (theta + 1.0) * (theta + 2.0) * std::pow(x, -theta - 3.0); };
    const double integral = (std::pow(b, 1.0 - theta) - std::pow(a, 1.0 - theta)) / (1.0 - theta);
    return sum - f(a) + integral + (f(a) + f(b)) / 2.0 + (f1(b) - f1(a)) / 12.0 - (f3(b) - f3(a)) / 720.0;
}

// fio's __rand() / FRAND32_MAX: a uniform value in [0, 1].
double unit(sim::Rng& rng) { return static_cast<double>(rng.next() >> 32) / 4294967295.0; }

}  // namespace

RandomDist::RandomDist(const RandomDistConfig& cfg, uint64_t blocks, uint64_t align, sim::Rng& rng)
    : cfg_(cfg), n_(std::max<uint64_t>(1, blocks)), align_(align) {
    using K = RandomDistConfig::Kind;
    if (cfg.kind == K::ZIPF || cfg.kind == K::PARETO) {
        // shared_rand_init(): a random offset, or the center's.
        rand_off_ = cfg.center >= 0.0 ? static_cast<uint64_t>(static_cast<double>(n_) * cfg.center) : rng.next() >> 32;
        if (cfg.kind == K::ZIPF) {
            zeta2_ = std::pow(1.0, cfg.value) + std::pow(0.5, cfg.value);
            zetan_ = zeta(n_, cfg.value);
        } else {
            pareto_pow_ = std::log(cfg.value) / std::log(1.0 - cfg.value);
        }
    } else if (cfg.kind == K::NORMAL) {
        // gauss_init()
        if (cfg.value != 0.0)
            stddev_ = std::min<uint64_t>(static_cast<uint64_t>(std::ceil(static_cast<double>(n_) * cfg.value / 100.0)), n_ / 2);
        // nranges * (center - 0.5), negative below the middle: it wraps, as fio's unsigned sum does.
        rand_off_ = cfg.center >= 0.0
                        ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<double>(n_) * (cfg.center - 0.5)))
                        : 0;
    }
}

uint64_t RandomDist::scatter(uint64_t rank) const { return (rank * kGoldenRatio64 + rand_off_) % n_; }

uint64_t RandomDist::next(unsigned ddir, sim::Rng& rng) const {
    using K = RandomDistConfig::Kind;
    switch (cfg_.kind) {
    case K::RANDOM:
        return rng.below(n_);
    case K::ZIPF: {  // zipf_next()
        const double theta = cfg_.value, n = static_cast<double>(n_);
        const double alpha = 1.0 / (1.0 - theta);
        const double eta = (1.0 - std::pow(2.0 / n, 1.0 - theta)) / (1.0 - zeta2_ / zetan_);
        const double u = unit(rng);
        const double z = u * zetan_;
        uint64_t val;
        if (z < 1.0)
            val = 1;
        else if (z < 1.0 + std::pow(0.5, theta))
            val = 2;
        else
            val = 1 + static_cast<uint64_t>(n * std::pow(eta * u - eta + 1.0, alpha));
        return scatter(val - 1);
    }
    case K::PARETO:  // pareto_next()
        return scatter(static_cast<uint64_t>(static_cast<double>(n_ - 1) * std::pow(unit(rng), pareto_pow_)));
    case K::NORMAL: {  // gauss_next()
        uint64_t sum = 0;
        for (int i = 0; i < kGaussIters; ++i)
            sum += rng.below(n_ + 1);
        sum = (sum + kGaussIters - 1) / kGaussIters;
        if (stddev_) {
            // fio halves the deviation until the sum, in unsigned arithmetic, is inside the
            // region. When the mean rounded up to n_ itself (likely in a region of a few
            // blocks) and the deviation is not negative, no halving gets there: fio 3.33
            // spins here for ever (fio --size=8m --bs=4m --rw=randread
            // --random_distribution=normal:10 never ends). blksim stops at a deviation of 0
            // and keeps the rank n_, as fio does without a deviation (the scatter wraps it).
            int64_t dev = static_cast<int64_t>(static_cast<double>(stddev_) * unit(rng)) - static_cast<int64_t>(stddev_ / 2);
            while (dev != 0 && static_cast<uint64_t>(dev) + sum >= n_)
                dev /= 2;
            sum += static_cast<uint64_t>(dev);
        }
        return scatter(sum);
    }
    case K::ZONED:
    case K::ZONED_ABS:
        return zoned(ddir, rng);
    }
    return 0;
}

// __get_next_rand_offset_zoned() / _zoned_abs(): v in 1..100 picks the zone whose share of
// the accesses covers it; the block is uniform in that zone.
uint64_t RandomDist::zoned(unsigned ddir, sim::Rng& rng) const {
    const std::vector<RandomDistConfig::Zone>& zones = cfg_.zones[ddir];
    if (zones.empty())
        return rng.below(n_);
    const uint64_t v = 1 + rng.below(100);
    uint64_t access = 0, start = 0;  // start: the zone's first block
    for (const RandomDistConfig::Zone& z : zones) {
        const bool abs = cfg_.kind == RandomDistConfig::Kind::ZONED_ABS;
        uint64_t first, len;
        if (abs) {
            first = start;
            len = z.size / align_;
            start += len;
        } else {
            first = start * n_ / 100;
            len = n_ * z.size / 100;
            start += z.size;
        }
        access += z.access;
        if (v <= access || &z == &zones.back())
            return std::min(first + (len ? rng.below(len) : 0), n_ - 1);
    }
    return rng.below(n_);
}

}  // namespace blksim::workload
