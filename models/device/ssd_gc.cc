#include "models/device/ssd_gc.h"

#include <algorithm>
#include <cmath>

#include <boost/math/special_functions/lambert_w.hpp>

namespace blksim::dev {

double greedy_valid_fraction(double alpha) {
    if (!(alpha > 1.0))
        return 1.0 - 1e-9;  // no spare (alpha ~ 1): every victim still full
    // v = -W(-alpha e^-alpha) / alpha on the principal branch W0, whose value lies in
    // (-1, 0) for this argument in (-1/e, 0); the other branch, W-1, gives -alpha: v = 1.
    return -boost::math::lambert_w0(-alpha * std::exp(-alpha)) / alpha;
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
