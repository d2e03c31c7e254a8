#include "tools/experiment/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

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

PairedCi paired_ci(std::span<const double> a, std::span<const double> b, double confidence) {
    if (a.size() != b.size() || a.size() < 2)
        throw std::invalid_argument("paired_ci: need two samples of the same size >= 2");
    PairedCi ci;
    ci.n = a.size();
    const double n = static_cast<double>(ci.n);
    // Welford over the differences, and plain means of each side.
    double mean_d = 0.0, m2 = 0.0, sum_a = 0.0, sum_b = 0.0;
    for (std::size_t i = 0; i < ci.n; ++i) {
        sum_a += a[i];
        sum_b += b[i];
        const double d = b[i] - a[i];
        const double delta = d - mean_d;
        mean_d += delta / static_cast<double>(i + 1);
        m2 += delta * (d - mean_d);
    }
    ci.mean_a = sum_a / n;
    ci.mean_b = sum_b / n;
    ci.diff = mean_d;
    ci.diff_sd = std::sqrt(std::max(0.0, m2) / (n - 1.0));
    ci.half_width = t_quantile(0.5 + confidence / 2.0, n - 1.0) * ci.diff_sd / std::sqrt(n);
    return ci;
}

}  // namespace blksim::experiment
