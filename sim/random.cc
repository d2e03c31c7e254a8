#include "sim/random.h"

namespace blksim::sim {

uint64_t hash_name(std::string_view name) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : name) {
        h ^= c;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed, std::string_view name) {
    uint64_t h = hash_name(name);
    uint64_t x = seed ^ splitmix64(h);
    for (auto& w : s_)
        w = splitmix64(x);
}

// The low word fell below n: redraw while it is below 2^64 mod n (the biased values).
uint64_t Rng::below_slow(uint64_t n, __uint128_t m) {
    const uint64_t threshold = -n % n;
    auto low = static_cast<uint64_t>(m);
    while (low < threshold) {
        m = static_cast<__uint128_t>(next()) * n;
        low = static_cast<uint64_t>(m);
    }
    return static_cast<uint64_t>(m >> 64);
}

}  // namespace blksim::sim
