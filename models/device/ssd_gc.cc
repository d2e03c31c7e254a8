#include "models/device/ssd_gc.h"

#include <algorithm>
#include <cmath>

namespace blksim::dev {

double greedy_valid_fraction(double alpha) {
    // f(v) = v - exp(-alpha (1 - v)) is < 0 at v = 0 and > 0 just below 1 (f(1) = 0 with slope
    // 1 - alpha < 0), so the root below 1 is bracketed by [0, hi) with f(hi) > 0.
    const auto f = [alpha](double v) { return v - std::exp(-alpha * (1.0 - v)); };
    double lo = 0.0, hi = 1.0 - 1e-9;
    if (!(alpha > 1.0) || f(hi) <= 0.0)
        return hi;  // no spare (alpha ~ 1): every victim still full
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        (f(mid) < 0.0 ? lo : hi) = mid;
    }
    return lo;
}

GcCost greedy_gc_cost(double alpha, uint32_t pages_per_block, int64_t read_ns, int64_t program_ns,
                      int64_t erase_ns) {
    GcCost c;
    const double v = greedy_valid_fraction(alpha);
    const auto copies = static_cast<uint32_t>(std::lround(v * pages_per_block));
    c.copies = std::min(copies, pages_per_block - 1);  // a victim frees at least one page
    c.freed = pages_per_block - c.copies;
    c.copy_ns = read_ns + program_ns;
    c.erase_ns = erase_ns;
    const double work = static_cast<double>(c.copies) * static_cast<double>(c.copy_ns) + static_cast<double>(erase_ns);
    c.slowdown = 1.0 + work / (static_cast<double>(c.freed) * static_cast<double>(std::max<int64_t>(1, program_ns)));
    return c;
}

}  // namespace blksim::dev
