// The drive's read segments: the part of its buffer that caches what the head read, cut into
// cfg.cache_segments ranges of sectors, each replaced least recently used first. Every read
// scans them three times (does one hold it, Hdd::find_hit; does it continue one, a stream,
// Hdd::stream_ahead; which one it extends or replaces, Hdd::insert_read), and a random read
// misses every segment, so each scan runs to the end: about 500 of the HDD benchmark's 4,514
// instructions per I/O, 16 segments. Kept as three arrays (start, end, last use) they are
// compared four at a time where the CPU has AVX2 (hdd_segments_avx2.cc). Every form returns
// the same index (the first that matches; the first of the least recently used), so the
// outputs do not depend on the CPU (test/device/test_hdd_segments.cc).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

#include "models/device/hdd_rpo.h"

namespace blksim::dev {

struct HddSegments {
    static constexpr uint32_t kMax = 64;
    static constexpr int64_t kEmpty = -1;  // last_use of a segment holding nothing
    // Segment i caches sectors [start[i], end[i]); an empty one is [0, 0) (it holds no range,
    // and a range from sector 0 continues none). Past n the arrays hold empty segments that
    // are never the least recently used (last_use the largest), so that a scan may read whole
    // steps of four.
    alignas(32) std::array<uint64_t, kMax> start{};
    alignas(32) std::array<uint64_t, kMax> end{};
    alignas(32) std::array<int64_t, kMax> last_use;
    uint32_t n = 0;

    HddSegments() {
        last_use.fill(std::numeric_limits<int64_t>::max());
#if defined(__x86_64__)
        avx2_ = rpo_have_avx2();
#endif
    }
    void set_count(uint32_t count) {
        n = count;
        for (uint32_t i = 0; i < n; ++i)
            clear(i);
    }
    void clear(uint32_t i) {
        start[i] = end[i] = 0;
        last_use[i] = kEmpty;
    }
    void set(uint32_t i, uint64_t s, uint64_t e, int64_t used) {
        start[i] = s;
        end[i] = e;
        last_use[i] = used;
    }
    // Segment i keeps at most `len` sectors, those before its end (a segment's capacity).
    void keep_last(uint32_t i, uint64_t len) { start[i] = std::max(start[i], end[i] > len ? end[i] - len : 0); }

    // The first segment that holds all of [lba, e), or -1.
    int holding(uint64_t lba, uint64_t e) const {
#if defined(__x86_64__)
        if (avx2_)
            return holding_avx2(lba, e);
#endif
        return holding_scalar(lba, e);
    }
    // Whether a segment ends at lba (> 0): a read from there continues a stream.
    bool continued_by(uint64_t lba) const {
#if defined(__x86_64__)
        if (avx2_)
            return continued_by_avx2(lba);
#endif
        return continued_by_scalar(lba);
    }
    // The first segment that holds sector lba or ends there (a read from lba extends it), or
    // -1; then `victim` is the first least recently used one (an empty one first).
    int extended_by(uint64_t lba, uint32_t& victim) const {
#if defined(__x86_64__)
        if (avx2_)
            return extended_by_avx2(lba, victim);
#endif
        return extended_by_scalar(lba, victim);
    }

    // The forms, each alone, for the tests that hold them to the same answers.
    int holding_scalar(uint64_t lba, uint64_t e) const {
        for (uint32_t i = 0; i < n; ++i)
            if (start[i] <= lba && e <= end[i])
                return static_cast<int>(i);
        return -1;
    }
    bool continued_by_scalar(uint64_t lba) const {
        bool any = false;
        for (uint32_t i = 0; i < n; ++i)
            any |= end[i] == lba;
        return any;
    }
    int extended_by_scalar(uint64_t lba, uint32_t& victim) const {
        victim = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (start[i] <= lba && lba <= end[i] && end[i] != 0)
                return static_cast<int>(i);
            if (last_use[i] < last_use[victim])
                victim = i;
        }
        return -1;
    }
#if defined(__x86_64__)
    // Only where the CPU has AVX2 (rpo_have_avx2()).
    int holding_avx2(uint64_t lba, uint64_t e) const;
    bool continued_by_avx2(uint64_t lba) const;
    int extended_by_avx2(uint64_t lba, uint32_t& victim) const;

private:
    bool avx2_ = false;
#endif
};

}  // namespace blksim::dev
