#include "tools/experiment/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

// Boost.Math is header-only and part of Debian's libboost-dev, which the build already needs
// (Boost.Graph): its quantile is exact to double precision for any dof, unlike a short table.
#include <boost/math/distributions/students_t.hpp>

namespace blksim::experiment {

double t_quantile(double p, double dof) {
    if (!(dof >= 1.0) || !(p > 0.0 && p < 1.0))
        throw std::invalid_argument("t_quantile: need dof >= 1 and 0 < p < 1");
    const boost::math::students_t dist(dof);
    return boost::math::quantile(dist, p);
}

MeanCi mean_ci(std::span<const double> v, double confidence) {
    if (v.size() < 2)
        throw std::invalid_argument("mean_ci: need at least two samples");
    MeanCi ci;
    ci.n = v.size();
    const double n = static_cast<double>(ci.n);
    // Welford: one pass, no cancellation.
    double mean = 0.0, m2 = 0.0;
    for (std::size_t i = 0; i < ci.n; ++i) {
        const double delta = v[i] - mean;
        mean += delta / static_cast<double>(i + 1);
        m2 += delta * (v[i] - mean);
    }
    ci.mean = mean;
    ci.sd = std::sqrt(std::max(0.0, m2) / (n - 1.0));
    ci.half_width = t_quantile(0.5 + confidence / 2.0, n - 1.0) * ci.sd / std::sqrt(n);
    return ci;
}

PairedCi paired_ci(std::span<const double> a, std::span<const double> b, double confidence) {
    if (a.size() != b.size() || a.size() < 2)
        throw std::invalid_argument("paired_ci: need two samples of the same size >= 2");
    PairedCi ci;
    ci.n = a.size();
    const double n = static_cast<double>(ci.n);
    // The interval of the differences' mean, and plain means of each side.
    std::vector<double> d(ci.n);
    double sum_a = 0.0, sum_b = 0.0;
    for (std::size_t i = 0; i < ci.n; ++i) {
        sum_a += a[i];
        sum_b += b[i];
        d[i] = b[i] - a[i];
    }
    const MeanCi m = mean_ci(d, confidence);
    ci.mean_a = sum_a / n;
    ci.mean_b = sum_b / n;
    ci.diff = m.mean;
    ci.diff_sd = m.sd;
    ci.half_width = m.half_width;
    return ci;
}

}  // namespace blksim::experiment
