// Comparing a measured and a simulated service-time distribution.
//
// The demerit figure (Ruemmler & Wilkes, "An introduction to disk drive modeling", 1994;
// DiskSim's validation measure): the root mean square of the horizontal distance between
// the two cumulative distributions, i.e. sqrt(∫0..1 (Qm(p) - Qs(p))² dp) over the quantile
// functions. For samples of equal size it is the RMS of the differences of the sorted
// values; two identical distributions give 0, one shifted by x gives |x|.
#pragma once

#include <string>
#include <vector>

namespace blksim::disksim {

// Quantile functions are the samples' step functions (the i-th smallest of n on
// ((i-1)/n, i/n]); the integral is exact. Empty input: 0.
double demerit(std::vector<double> a, std::vector<double> b);

struct Summary {
    double mean = 0, stddev = 0, min = 0, max = 0;
    double p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0, p99 = 0;
};
// Percentiles by nearest rank; stddev is the sample standard deviation.
Summary summarize(std::vector<double> v);

// Both CDFs as CSV: "fraction,measured_ms,simulated_ms", one row per quantile point
// (at most `points`), for scripts/plot-disk-cdf.py.
std::string cdf_csv(std::vector<double> measured, std::vector<double> simulated, size_t points = 1000);

}  // namespace blksim::disksim
