// The size of a job's next I/O in one direction, as fio 3.33's get_next_buflen() (io_u.c)
// draws it from bs, bsrange or bssplit.
//
//   bs        one size: no draw.
//   bsrange   min_bs + uniform [0, max_bs), rounded down to a multiple of min_bs and capped at
//             max_bs. So 4k-16k gives 4k, 8k, 12k, 16k a quarter each, but 3k-8k gives 3k
//             and 6k 3/8 each and 8k (the capped 9k) 2/8, as fio does.
//   bssplit   the first entry, in order of increasing percentage, whose cumulative
//             percentage covers the draw; what the percentages leave (they may add up to less
//             than 100) goes to the last, largest entry. The size is then rounded down to a
//             multiple of min_bs like a range's: fio turns bssplit=4k/10:6k/90 into all 4k.
//
// A size that would run past the end of the region is drawn again (fio's io_u_fits()
// loop); the smallest always fits, because offsets leave room for it.
//
// With blocksize_unaligned fio does not round at all and issues any byte count; blksim
// models direct I/O only, so it rounds to the device's logical block size instead.
//
// The draws come from the job's own named stream ("bs.read" / "bs.write"), so a job that
// gets a range does not move the offsets another draw would see.
#pragma once

#include <cstdint>
#include <vector>

#include "models/workload/job_config.h"
#include "sim/random.h"

namespace blksim::workload {

class Buflen {
public:
    // lbs: the device's logical block size (the rounding unit with bs_unaligned).
    Buflen(const JobConfig& cfg, unsigned ddir, uint64_t lbs, sim::Rng rng);

    // The smallest size a draw can give (fio's min_bs, or with bssplit the smallest entry
    // that has a share) and the largest (fio's max_bs).
    uint64_t min() const { return min_; }
    uint64_t max() const { return max_; }
    bool fixed() const { return min_bs_ == max_; }

    // The next size; `room` is the bytes left between the I/O's offset and the end of the
    // region, at least min().
    uint64_t next(uint64_t room) { return fixed() ? min_ : draw(room); }

private:
    uint64_t draw(uint64_t room);
    uint64_t round(uint64_t len) const;

    uint64_t min_bs_, min_, max_;
    uint64_t unit_;                    // sizes are multiples of this: min_bs, or the lbs
    std::vector<BsSplitEntry> split_;  // by increasing percentage, as fio sorts them
    sim::Rng rng_;
};

}  // namespace blksim::workload
