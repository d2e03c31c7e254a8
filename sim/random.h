// Named random streams. Each stream is seeded from (scenario seed, stream name) alone, so
// adding a component or a draw elsewhere never changes the numbers another stream gives:
// two variants of a scenario then see the same offsets (common random numbers).
// Generator: xoshiro256** (Blackman & Vigna), seeded through splitmix64.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace blksim::sim {

class Rng {
public:
    Rng() : Rng(0, "default") {}
    Rng(uint64_t seed, std::string_view name);

    uint64_t next() {
        const uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). Inline, the
    // common draw; out of line, the rejection loop, which a draw enters with probability
    // n / 2^64 (its low word below n).
    uint64_t below(uint64_t n) {
        const __uint128_t m = static_cast<__uint128_t>(next()) * n;
        if (static_cast<uint64_t>(m) < n) [[unlikely]]
            return below_slow(n, m);
        return static_cast<uint64_t>(m >> 64);
    }
    // Exponentially distributed with mean `mean` (inverse transform).
    double exponential(double mean) { return -mean * std::log1p(-uniform()); }

private:
    uint64_t below_slow(uint64_t n, __uint128_t m);
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t s_[4];
};

// FNV-1a, exposed for tests and for deriving sub-seeds.
uint64_t hash_name(std::string_view name);

}  // namespace blksim::sim
