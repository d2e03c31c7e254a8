// The read segments' scans (models/device/hdd_segments.h) in each form: the one-at-a-time
// scans are the reference, and the AVX2 scans must return the same segment, so that no
// output depends on the CPU the simulation runs on; and the reference scans do what the
// drive's cache needs (the first segment that matches, the least recently used to replace).
#include <catch2/catch.hpp>

#include <cstdint>

#include "models/device/hdd_segments.h"
#include "sim/random.h"

using namespace blksim;

namespace {

// A cache as a drive's reads leave it: some empty segments, ranges that overlap or touch
// (a range ending where another starts), last uses that tie (including the empty ones'),
// and any count from 1 to 64, so that the wide forms' last step of four is partly past n.
dev::HddSegments random_segments(sim::Rng& g) {
    dev::HddSegments s;
    s.set_count(1 + static_cast<uint32_t>(g.below(dev::HddSegments::kMax)));
    for (uint32_t i = 0; i < s.n; ++i) {
        if (g.below(5) == 0)
            continue;  // empty
        const uint64_t start = g.below(4) == 0 && i > 0 ? s.end[i - 1] : g.below(4096);
        s.set(i, start, start + 1 + g.below(512), static_cast<int64_t>(g.below(64)));
    }
    return s;
}

// A sector near the segments' ends and starts, where the comparisons decide.
uint64_t probe(sim::Rng& g, const dev::HddSegments& s) {
    const uint32_t i = static_cast<uint32_t>(g.below(s.n));
    switch (g.below(4)) {
    case 0: return s.start[i] + g.below(3) - (s.start[i] > 0 ? 1 : 0);
    case 1: return s.end[i] + g.below(3) - (s.end[i] > 0 ? 1 : 0);
    default: return g.below(4700);
    }
}

}  // namespace

TEST_CASE("HDD read segments: the AVX2 scans find the segment the one-at-a-time scans find", "[hdd][device]") {
    sim::Rng g(11, "segments");
    uint32_t held = 0, continued = 0, extended = 0, replaced = 0, tied = 0;
    for (int round = 0; round < 20000; ++round) {
        const dev::HddSegments s = random_segments(g);
        const uint64_t lba = probe(g, s);
        const uint64_t end = lba + 1 + g.below(64);
        INFO("round " << round << ", " << s.n << " segments, lba " << lba << ", end " << end);

        const int h = s.holding_scalar(lba, end);
        CHECK(s.holding(lba, end) == h);
        held += h >= 0;

        const bool c = s.continued_by_scalar(lba);
        if (lba > 0)
            CHECK(s.continued_by(lba) == c);
        continued += c;

        uint32_t v_ref = 99, v = 98;
        const int x = s.extended_by_scalar(lba, v_ref);
        CHECK(s.extended_by(lba, v) == x);
        if (x < 0) {
            CHECK(v == v_ref);
            ++replaced;
            for (uint32_t i = v_ref + 1; i < s.n; ++i)
                tied += s.last_use[i] == s.last_use[v_ref];
        } else {
            ++extended;
        }
#if defined(__x86_64__)
        if (dev::rpo_have_avx2()) {
            CHECK(s.holding_avx2(lba, end) == h);
            if (lba > 0)
                CHECK(s.continued_by_avx2(lba) == c);
            uint32_t w = 97;
            CHECK(s.extended_by_avx2(lba, w) == x);
            if (x < 0)
                CHECK(w == v_ref);
        }
#endif
    }
    // The rounds reached each answer, and least recently used segments that tie (the first
    // must be the one replaced).
    CHECK(held > 1000);
    CHECK(continued > 1000);
    CHECK(extended > 1000);
    CHECK(replaced > 1000);
    CHECK(tied > 1000);
}

TEST_CASE("HDD read segments: the scans answer as the drive's cache needs", "[hdd][device]") {
    dev::HddSegments s;
    s.set_count(6);
    s.set(1, 100, 200, 50);
    s.set(2, 150, 300, 40);
    s.set(3, 500, 600, 40);
    s.set(4, 700, 800, 60);
    // [0] and [5] are empty: [0, 0), last use -1.

    CHECK(s.holding(150, 200) == 1);  // the first of two that hold it
    CHECK(s.holding(160, 250) == 2);
    CHECK(s.holding(190, 310) == -1);  // past every segment's end
    CHECK(s.holding(0, 1) == -1);      // an empty segment holds nothing

    CHECK(s.continued_by(600));
    CHECK_FALSE(s.continued_by(601));

    uint32_t victim = 99;
    CHECK(s.extended_by(300, victim) == 2);  // a read from a segment's end extends it
    CHECK(s.extended_by(50, victim) == -1);
    CHECK(victim == 0);  // an empty segment before any in use, the first of the two
    s.set(0, 900, 950, 40);
    s.set(5, 960, 970, 45);
    CHECK(s.extended_by(50, victim) == -1);
    CHECK(victim == 0);  // 0, 2 and 3 were used last at 40: the first of them
    s.clear(2);
    CHECK(s.extended_by(180, victim) == 1);
    CHECK(s.extended_by(260, victim) == -1);  // [2] was cleared
    CHECK(victim == 2);
}
