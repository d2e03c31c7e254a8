#include "models/device/link.h"

#include <algorithm>

namespace blksim::dev {

// The transfer goes into the first gap at or after `ready` that holds it: past the bookings
// that end by then, then over each one that starts too soon after the gap's start.
int64_t Link::book_gap(int64_t ready, int64_t len, int64_t now) {
    drop_ended(now);
    // From the end: a read is mostly ready shortly before the last booking ends, so few
    // bookings lie after it (and few move for an insertion).
    auto it = busy_.end();
    while (it != busy_.begin() && std::prev(it)->end > ready)
        --it;
    int64_t t = ready;
    for (; it != busy_.end() && it->start < t + len; ++it)
        t = std::max(t, it->end);
    const int64_t end = t + len;
    const bool joins_prev = it != busy_.begin() && std::prev(it)->end == t;
    const bool joins_next = it != busy_.end() && it->start == end;
    if (joins_prev && joins_next) {
        std::prev(it)->end = it->end;
        busy_.erase(it);
    } else if (joins_prev) {
        std::prev(it)->end = end;
    } else if (joins_next) {
        it->start = t;
    } else {
        busy_.insert(it, Span{t, end});
    }
    return end;
}

// Bookings that ended by `now` can no longer hold anything up: every later one is ready at
// or after the clock.
void Link::prune(int64_t now) {
    busy_.erase(busy_.begin(),
                std::partition_point(busy_.begin(), busy_.end(), [now](const Span& s) { return s.end <= now; }));
}

}  // namespace blksim::dev
