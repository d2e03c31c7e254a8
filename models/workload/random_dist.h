// fio's random_distribution= (io_u.c get_next_rand_offset(), lib/zipf.c, lib/gauss.c): the
// block of the region a random I/O goes to. random (the default) is uniform; zipf, pareto
// and normal draw a rank with fio's formulas and scatter the ranks over the region with
// fio's multiplicative hash (__hash_u64) and offset (a random one, or `center` of the
// region); zoned and zoned_abs pick a zone by its share of the accesses, then a block in it
// uniformly. The uniform draws come from the job's offsets stream, so a run is the same
// for the same seed (fio's own generator is not reproduced, only its formulas).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/random.h"

namespace blksim::workload {

struct RandomDistConfig {
    enum class Kind : uint8_t { RANDOM, ZIPF, PARETO, NORMAL, ZONED, ZONED_ABS };
    Kind kind = Kind::RANDOM;
    double value = 0.0;    // zipf theta, pareto h, normal: the deviation in % of the region
    double center = -1.0;  // fio's ":center" in [0, 1]; -1: a random offset (zipf, pareto), none (normal)
    // zoned / zoned_abs, per direction: the share of the accesses (%) and the zone's size
    // (% of the region for zoned, bytes for zoned_abs), in the order given.
    struct Zone {
        uint32_t access = 0;
        uint64_t size = 0;
        bool operator==(const Zone&) const = default;
    };
    std::vector<Zone> zones[2];
    bool operator==(const RandomDistConfig&) const = default;
};

class RandomDist {
public:
    // `blocks`: the region's blocks (fio's nranges / last_block()), `align` their size.
    RandomDist(const RandomDistConfig& cfg, uint64_t blocks, uint64_t align, sim::Rng& rng);
    // A block index in [0, blocks) for a random I/O of direction `ddir`.
    uint64_t next(unsigned ddir, sim::Rng& rng) const;

private:
    uint64_t scatter(uint64_t rank) const;
    uint64_t zoned(unsigned ddir, sim::Rng& rng) const;

    const RandomDistConfig& cfg_;
    uint64_t n_;
    uint64_t align_;
    uint64_t rand_off_ = 0;
    double zetan_ = 0.0, zeta2_ = 0.0;  // zipf
    double pareto_pow_ = 0.0;
    uint64_t stddev_ = 0;               // normal, in blocks
};

}  // namespace blksim::workload
