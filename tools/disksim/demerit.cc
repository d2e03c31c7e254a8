#include "tools/disksim/demerit.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace blksim::disksim {

double demerit(std::vector<double> a, std::vector<double> b) {
    if (a.empty() || b.empty())
        return 0.0;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
    // Walk the merged breakpoints i/na and j/nb: on each interval both quantiles are constant.
    size_t i = 0, j = 0;
    double p = 0, sum = 0;
    while (i < a.size() && j < b.size()) {
        const double pa = static_cast<double>(i + 1) / na, pb = static_cast<double>(j + 1) / nb;
        const double q = std::min(pa, pb);
        const double d = a[i] - b[j];
        sum += d * d * (q - p);
        p = q;
        if (pa <= q)
            ++i;
        if (pb <= q)
            ++j;
    }
    return std::sqrt(sum);
}

Summary summarize(std::vector<double> v) {
    Summary s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (const double x : v)
        sum += x;
    s.mean = sum / static_cast<double>(v.size());
    double ss = 0;
    for (const double x : v)
        ss += (x - s.mean) * (x - s.mean);
    s.stddev = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
    s.min = v.front();
    s.max = v.back();
    const auto pct = [&](double p) {
        const size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
        return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
    };
    s.p10 = pct(10);
    s.p25 = pct(25);
    s.p50 = pct(50);
    s.p75 = pct(75);
    s.p90 = pct(90);
    s.p99 = pct(99);
    return s;
}

std::string cdf_csv(std::vector<double> measured, std::vector<double> simulated, size_t points) {
    std::sort(measured.begin(), measured.end());
    std::sort(simulated.begin(), simulated.end());
    std::string out = "fraction,measured_ms,simulated_ms\n";
    if (measured.empty() || simulated.empty())
        return out;
    const size_t n = std::max<size_t>(1, std::min(points, std::max(measured.size(), simulated.size())));
    const auto q = [](const std::vector<double>& v, double f) {
        const size_t k = static_cast<size_t>(std::ceil(f * static_cast<double>(v.size())));
        return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
    };
    for (size_t k = 1; k <= n; ++k) {
        const double f = static_cast<double>(k) / static_cast<double>(n);
        out += fmt::format("{:.6f},{:.6f},{:.6f}\n", f, q(measured, f), q(simulated, f));
    }
    return out;
}

}  // namespace blksim::disksim
