// The spread of a flash operation's time around its mean: a lognormal whose mean is the
// given time (mean x exp(sigma z - sigma^2 / 2), z standard normal), so a profile's figure
// stays the mean and sigma only adds the tail. Flash read and program times vary with the
// page type (lower/middle/upper page of a TLC cell), read retries, die temperature and the
// controller's other work; a lognormal is the usual fit of such positive, right-skewed
// service times (docs/model.md, "SSD service-time variance"; sources in the profiles).
// Drawn from the device's own random stream: deterministic per run seed.
#pragma once

#include <cmath>

#include "sim/random.h"
#include "sim/time.h"

namespace blksim::dev {

class ServiceSpread {
public:
    explicit ServiceSpread(double sigma = 0) : sigma_(sigma), shift_(-sigma * sigma / 2) {}
    bool off() const { return sigma_ == 0; }

    sim::Duration draw(sim::Duration mean, sim::Rng& rng) const {
        if (sigma_ == 0 || mean.count() <= 0)
            return mean;
        return sim::Duration::ns(std::llround(static_cast<double>(mean.count()) * std::exp(sigma_ * normal(rng) + shift_)));
    }

private:
    // Box-Muller: one standard normal from two uniforms (the second result is not kept, so a
    // draw always takes two numbers from the stream).
    static double normal(sim::Rng& rng) {
        const double u1 = 1.0 - rng.uniform();  // (0, 1]: log(u1) is finite
        const double u2 = rng.uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    double sigma_, shift_;
};

}  // namespace blksim::dev
