// The statistics of `blksim compare`: a Student-t confidence interval of the mean of paired
// differences (docs/compare.md explains the choice and common random numbers).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>

namespace blksim::experiment {

// The p-quantile of Student's t distribution with `dof` degrees of freedom (dof >= 1),
// e.g. t_quantile(0.975, 9) = 2.262 for a two-sided 95 % interval from 10 pairs.
double t_quantile(double p, double dof);

// The Student-t confidence interval of the mean of independent samples (blksim reproduce:
// one figure over N seeds).
struct MeanCi {
    std::size_t n = 0;
    double mean = 0.0;
    double sd = 0.0;          // sample standard deviation (n - 1 in the denominator)
    double half_width = 0.0;  // t_{1-alpha/2, n-1} * sd / sqrt(n)
};

// v.size() >= 2. confidence e.g. 0.95.
MeanCi mean_ci(std::span<const double> v, double confidence = 0.95);

// Replication i of A and replication i of B form pair i; d_i = b_i - a_i.
struct PairedCi {
    std::size_t n = 0;
    double mean_a = 0.0, mean_b = 0.0;
    double diff = 0.0;          // mean of d_i (= mean_b - mean_a)
    double diff_sd = 0.0;       // sample standard deviation of d_i (n - 1 in the denominator)
    double half_width = 0.0;    // t_{1-alpha/2, n-1} * diff_sd / sqrt(n)
    double lo() const { return diff - half_width; }
    double hi() const { return diff + half_width; }
    // The interval excludes 0. A zero-width interval at 0 (identical runs) is not.
    bool significant() const { return lo() > 0.0 || hi() < 0.0; }
    // Every pair differed by the same amount (to within rounding; deterministic service
    // times do this): an interval of zero width away from 0 is "significant" without any
    // variation to judge the difference by.
    bool zero_width() const { return diff != 0.0 && half_width <= 1e-9 * std::fabs(diff); }
    // diff relative to mean_a, in percent; 0 when mean_a is 0.
    double rel_change_pct() const { return mean_a != 0.0 ? 100.0 * diff / mean_a : 0.0; }
};

// a.size() == b.size() >= 2. confidence e.g. 0.95.
PairedCi paired_ci(std::span<const double> a, std::span<const double> b, double confidence = 0.95);

}  // namespace blksim::experiment
