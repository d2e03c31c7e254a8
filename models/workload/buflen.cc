#include "models/workload/buflen.h"

#include <algorithm>
#include <limits>

namespace blksim::workload {

Buflen::Buflen(const JobConfig& cfg, unsigned ddir, uint64_t lbs, sim::Rng rng)
    : min_bs_(cfg.min_bs(ddir)), min_(min_bs_), max_(cfg.max_bs(ddir)),
      unit_(cfg.bs_unaligned ? lbs : min_bs_), split_(cfg.bs_range[ddir].split), rng_(rng) {
    // fio's bssplit_ddir() sorts the entries by percentage; the lookup walks them in that
    // order, so the smallest shares come first and the remainder falls to the last one.
    std::stable_sort(split_.begin(), split_.end(),
                     [](const BsSplitEntry& a, const BsSplitEntry& b) { return a.percent < b.percent; });
    if (unit_ == 0)
        unit_ = 512;
    // An entry left with 0 % (bssplit=4k/100:8k/) is never drawn: the smallest size that can
    // come out is the smallest of the others, and offsets must leave room for that one (fio
    // can redraw forever at an offset where only the 0 % size fits).
    if (!split_.empty() && !fixed()) {
        uint64_t smallest = max_;
        for (const BsSplitEntry& e : split_)
            if (e.percent != 0)
                smallest = std::min(smallest, round(e.bs));
        min_ = smallest;
    }
}

uint64_t Buflen::round(uint64_t len) const {
    len -= len % unit_;
    return std::min(len, max_);
}

uint64_t Buflen::draw(uint64_t room) {
    uint64_t len = 0;
    do {
        if (split_.empty()) {
            len = min_bs_ + static_cast<uint64_t>(static_cast<double>(max_) * rng_.uniform());
        } else {
            // fio: r / perc <= frand_max / 100 for the cumulative perc, i.e. the draw lies in
            // the first perc % of the generator's range; an entry that does not fit is passed
            // over for the next one that does.
            const uint64_t r = rng_.next();
            uint64_t perc = 0;
            for (const BsSplitEntry& e : split_) {
                if (e.percent == 0)
                    continue;
                len = e.bs;
                perc += e.percent;
                if (r / perc <= std::numeric_limits<uint64_t>::max() / 100 && len <= room)
                    break;
            }
        }
        len = round(len);
    } while (len > room);
    return len;
}

}  // namespace blksim::workload
