// A device's host link (the PCIe link of an NVMe drive, the SATA link): one transfer at a
// time, each moved as soon as its data is ready and the link is free.
//
// A command's completion instant is computed when it arrives (one event per command), so
// the link is booked then, ahead of time, in the order commands arrive. But commands do not
// become ready in that order: a read whose flash unit is busy is ready later than one that
// arrived after it on an idle unit. Booking `max(ready, end of the last booking)` would make
// every later read wait behind the slow one, though the link sits idle meanwhile (a queue of
// 4 KiB random reads over 64 units then completes in arrival order, at about half the rate
// the units give). So a booking takes the earliest gap, at or after its ready instant, that
// is long enough: what a real link does, moving whatever data is ready.
//
// Bookings are kept as disjoint busy intervals, sorted, adjacent ones merged: a saturated
// link is one interval that each booking extends; gaps exist only where the link idles
// between ready data. Intervals that ended before the clock are dropped. The vector grows to
// the most intervals ever pending (at most one per command in flight), then allocates no
// more.
#pragma once

#include <cstdint>
#include <vector>

namespace blksim::dev {

class Link {
public:
    // Books `len` ns of transfer ready at `ready` (ns); `now` is the clock (no booking ends
    // before it is dropped). Returns the instant the transfer ends.
    int64_t book(int64_t ready, int64_t len, int64_t now) {
        if (busy_.empty() || ready >= busy_.back().end) {
            // After everything booked: the common case, kept short.
            if (!busy_.empty() && ready == busy_.back().end)
                return busy_.back().end += len;
            drop_ended(now);
            busy_.push_back({ready, ready + len});
            return ready + len;
        }
        return book_gap(ready, len, now);
    }
    // The end of the last booking (0 when none): when the link is free for good.
    int64_t free_at() const { return busy_.empty() ? 0 : busy_.back().end; }

private:
    struct Span {
        int64_t start, end;
    };
    int64_t book_gap(int64_t ready, int64_t len, int64_t now);
    // Bookings that ended by `now` are dropped once there are many: they are behind every
    // `ready`, so they cost nothing but room, and dropping them moves the rest.
    void drop_ended(int64_t now) {
        if (busy_.size() >= 64 && busy_.front().end <= now)
            prune(now);
    }
    void prune(int64_t now);

    std::vector<Span> busy_;
};

}  // namespace blksim::dev
