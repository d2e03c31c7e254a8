// Tests of the streaming statistics: RunningStat (fio's Welford add_stat_sample and the
// parallel merge), LatencyHistogram (fio's plat_val_to_idx / plat_idx_to_val layout and
// calc_clat_percentiles), checked by hand and against a real fio 3.33 --output-format=json+
// run, and IntervalSampler windows.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/random.h"
#include "sim/stats.h"
#include "sim/time.h"


using namespace blksim::sim;
using namespace blksim::sim::literals;

// ---------------------------------------------------------------------------------------
// SumStat (btt's stages)

TEST_CASE("SumStat: count, exact mean, min and max, and merging two streams", "[sim]") {
    SumStat empty;
    CHECK(empty.count() == 0);
    CHECK(empty.mean() == 0.0);
    CHECK(empty.min() == 0.0);
    CHECK(empty.max() == 0.0);
    SumStat a, b;
    for (int64_t v : {30, 10, 20})
        a.add(v);
    CHECK(a.count() == 3);
    CHECK(a.mean() == 20.0);
    CHECK(a.min() == 10.0);
    CHECK(a.max() == 30.0);
    // Past 2^53 summed a double sum would have dropped the odd nanoseconds.
    const int64_t big = (int64_t{1} << 53) + 1;
    b.add(big);
    b.add(1);
    CHECK(b.sum() == static_cast<double>(big + 1));
    CHECK(b.mean() == static_cast<double>((big + 1) / 2));
    SumStat m = a;
    m.merge(b);
    m.merge(empty);
    CHECK(m.count() == 5);
    CHECK(m.min() == 1.0);
    CHECK(m.max() == static_cast<double>(big));
    CHECK(m.sum() == static_cast<double>(big + 61));
}

// ---------------------------------------------------------------------------------------
// RunningStat

TEST_CASE("RunningStat: empty and single-sample values", "[sim]") {
    RunningStat s;
    CHECK(s.count() == 0);
    CHECK(s.mean() == 0.0);
    CHECK(s.stddev() == 0.0);
    CHECK(s.min() == 0.0);
    CHECK(s.max() == 0.0);
    s.add(7.0);
    CHECK(s.count() == 1);
    CHECK(s.mean() == 7.0);
    CHECK(s.stddev() == 0.0);  // fio: dev = 0 when n == 1
    CHECK(s.min() == 7.0);
    CHECK(s.max() == 7.0);
    CHECK(s.sum() == 7.0);
}

TEST_CASE("RunningStat: mean, sample stddev, min, max by hand", "[sim]") {
    RunningStat s;
    for (double v : {4.0, 2.0, 4.0, 9.0, 4.0, 5.0, 7.0, 5.0})
        s.add(v);
    // sum 40, mean 5, squared deviations 1+9+1+16+1+0+4+0 = 32, sample variance 32/7.
    CHECK(s.count() == 8);
    CHECK(s.mean() == Approx(5.0).epsilon(1e-14));
    CHECK(s.sum() == Approx(40.0).epsilon(1e-14));
    CHECK(s.stddev() == Approx(std::sqrt(32.0 / 7.0)).epsilon(1e-14));
    CHECK(s.min() == 2.0);
    CHECK(s.max() == 9.0);
}

TEST_CASE("RunningStat: zero and negative samples", "[sim]") {
    RunningStat s;
    s.add(0.0);  // first sample equal to the initial mean
    s.add(-3.0);
    s.add(3.0);
    // mean 0, squared deviations 0 + 9 + 9 = 18, variance 18/2 = 9.
    CHECK(s.mean() == Approx(0.0).margin(1e-15));
    CHECK(s.stddev() == Approx(3.0).epsilon(1e-14));
    CHECK(s.min() == -3.0);
    CHECK(s.max() == 3.0);
}

TEST_CASE("RunningStat: no catastrophic cancellation on large offsets", "[sim]") {
    // A sum / sum-of-squares implementation loses the variance of 1e9 + {1,2,3}
    // (squares ~1e18 exceed 2^53); Welford keeps it: mean 1e9 + 2, stddev 1.
    RunningStat s;
    for (int rep = 0; rep < 1000; ++rep)
        for (double d : {1.0, 2.0, 3.0})
            s.add(1e9 + d);
    // (Welford's running mean itself drifts by a few ulps per update: ~3e-6 here.)
    CHECK(s.mean() == Approx(1e9 + 2.0).margin(1e-4));
    CHECK(s.stddev() == Approx(std::sqrt(2000.0 / 2999.0)).epsilon(1e-6));
}

// fio's add_stat_sample() as written (stat.c), branch on delta included: RunningStat::add
// leaves that branch out and must still give the same bits.
struct FioStat {
    uint64_t n = 0;
    double mean = 0.0, S = 0.0, min = 0.0, max = 0.0;
    void add(double v) {
        if (n == 0 || v < min)
            min = v;
        if (n == 0 || v > max)
            max = v;
        const double delta = v - mean;
        if (delta) {
            mean += delta / (static_cast<double>(n) + 1.0);
            S += delta * (v - mean);
        }
        ++n;
    }
};

TEST_CASE("RunningStat: add() is bit-identical to fio's add_stat_sample", "[sim]") {
    Rng r(11, "test.stats.fio_form");
    RunningStat s;
    FioStat f;
    for (int i = 0; i < 200'000; ++i) {
        // Repeats of the mean (delta exactly 0), zeros, small integers and wide values, as
        // latencies in ns are: whole numbers from 0 to hours.
        double v;
        switch (i % 5) {
        case 0: v = f.n ? f.mean : 0.0; break;
        case 1: v = 0.0; break;
        case 2: v = static_cast<double>(r.below(16)); break;
        case 3: v = static_cast<double>(r.below(1ull << (1 + r.below(50)))); break;
        default: v = 1e3 + static_cast<double>(r.below(1000)); break;
        }
        s.add(v);
        f.add(v);
        REQUIRE(s.count() == f.n);
        REQUIRE(std::signbit(s.mean()) == std::signbit(f.mean));
        REQUIRE(s.mean() == f.mean);
        REQUIRE(s.min() == f.min);
        REQUIRE(s.max() == f.max);
        REQUIRE(s.stddev() == (f.n > 1 ? std::sqrt(f.S / static_cast<double>(f.n - 1)) : 0.0));
    }
}

TEST_CASE("RunningStat: merge equals adding all samples to one", "[sim]") {
    Rng r(5, "test.stats.merge");
    RunningStat all, a, b, c;
    for (int i = 0; i < 30'000; ++i) {
        // Three differently distributed parts so the merge's cross term matters.
        double v;
        RunningStat* part;
        if (i % 3 == 0) {
            v = 1000.0 + 50.0 * r.uniform();
            part = &a;
        } else if (i % 3 == 1) {
            v = 5.0e5 * r.uniform();
            part = &b;
        } else {
            v = 2.0e6 + static_cast<double>(r.below(1000));
            part = &c;
        }
        all.add(v);
        part->add(v);
    }
    RunningStat m;
    m.merge(RunningStat{});  // empty into empty
    CHECK(m.count() == 0);
    m.merge(a);  // into empty: a copy
    CHECK(m.count() == a.count());
    CHECK(m.mean() == a.mean());
    CHECK(m.stddev() == a.stddev());
    m.merge(b);
    m.merge(RunningStat{});  // empty into non-empty: no change
    m.merge(c);

    CHECK(m.count() == all.count());
    CHECK(m.min() == all.min());
    CHECK(m.max() == all.max());
    CHECK(m.mean() == Approx(all.mean()).epsilon(1e-12));
    CHECK(m.stddev() == Approx(all.stddev()).epsilon(1e-12));
    CHECK(m.sum() == Approx(all.sum()).epsilon(1e-12));
}

// ---------------------------------------------------------------------------------------
// LatencyHistogram: bucket layout

using H = LatencyHistogram;

TEST_CASE("LatencyHistogram: layout constants are fio's", "[sim]") {
    CHECK(H::PLAT_BITS == 6);
    CHECK(H::PLAT_VAL == 64);
    CHECK(H::PLAT_GROUP_NR == 29);
    CHECK(H::PLAT_NR == 1856);
}

TEST_CASE("LatencyHistogram: val_to_idx by hand", "[sim]") {
    // Below 128 ns (msb <= PLAT_BITS) every value has its own bucket.
    for (uint64_t v = 0; v < 128; ++v)
        REQUIRE(H::val_to_idx(v) == v);
    // msb 7: error_bits 1, base 2 << 6 = 128, offset (v >> 1) & 63.
    CHECK(H::val_to_idx(128) == 128);
    CHECK(H::val_to_idx(129) == 128);
    CHECK(H::val_to_idx(130) == 129);
    CHECK(H::val_to_idx(255) == 191);
    // msb 8: error_bits 2, base 192.
    CHECK(H::val_to_idx(256) == 192);
    CHECK(H::val_to_idx(259) == 192);
    CHECK(H::val_to_idx(260) == 193);
    CHECK(H::val_to_idx(511) == 255);
    // msb 9: error_bits 3, base 256; 1000 >> 3 = 125, & 63 = 61.
    CHECK(H::val_to_idx(512) == 256);
    CHECK(H::val_to_idx(1000) == 317);
    CHECK(H::val_to_idx(1023) == 319);
    CHECK(H::val_to_idx(1024) == 320);
    // The last group is msb 33 ([2^33, 2^34) ns, ~8.6 s to ~17.2 s): error_bits 27, base 1792.
    CHECK(H::val_to_idx(uint64_t{1} << 33) == 1792);
    CHECK(H::val_to_idx((uint64_t{1} << 34) - 1) == 1855);
    // Everything above is clamped into the last bucket.
    CHECK(H::val_to_idx(uint64_t{1} << 34) == 1855);
    CHECK(H::val_to_idx(uint64_t{1} << 40) == 1855);
    CHECK(H::val_to_idx(UINT64_MAX) == 1855);
}

TEST_CASE("LatencyHistogram: add() counts a value in val_to_idx's bucket", "[sim]") {
    // add() computes the bucket its own way (no branch below the clamp): every value below
    // 2^16, then both edges and inner points of every power-of-two range, must land where
    // val_to_idx says.
    std::vector<uint64_t> values;
    for (uint64_t v = 0; v < (uint64_t{1} << 16); ++v)
        values.push_back(v);
    for (unsigned b = 16; b < 64; ++b) {
        const uint64_t lo = uint64_t{1} << b;
        values.insert(values.end(), {lo, lo + 1, lo + lo / 3, lo + lo / 2 + 7, lo + (lo - 1)});
    }
    values.push_back(UINT64_MAX);
    for (uint64_t v : values) {
        H h;
        h.add(v);
        const unsigned idx = H::val_to_idx(v);
        INFO("value " << v << " bucket " << idx);
        REQUIRE(h.bin(idx) == 1);
        REQUIRE(h.total() == 1);
    }
}

TEST_CASE("LatencyHistogram: idx_to_val (bucket midpoints) by hand", "[sim]") {
    // fio: base + (k + 0.5) * 2^error_bits, truncated; below 128 the index itself.
    CHECK(H::idx_to_val(0) == 0);
    CHECK(H::idx_to_val(1) == 1);
    CHECK(H::idx_to_val(127) == 127);
    CHECK(H::idx_to_val(128) == 129);  // bucket [128, 130)
    CHECK(H::idx_to_val(129) == 131);  // [130, 132)
    CHECK(H::idx_to_val(191) == 255);  // [254, 256)
    CHECK(H::idx_to_val(192) == 258);  // [256, 260)
    CHECK(H::idx_to_val(255) == 510);  // [508, 512)
    CHECK(H::idx_to_val(256) == 516);  // [512, 520)
    CHECK(H::idx_to_val(317) == 1004);  // [1000, 1008)
    CHECK(H::idx_to_val(1792) == 8657043456ULL);   // 2^33 + 0.5 * 2^27
    CHECK(H::idx_to_val(1855) == 17112760320ULL);  // 2^33 + 63.5 * 2^27
}

TEST_CASE("LatencyHistogram: every midpoint maps back to its bucket, in increasing order", "[sim]") {
    uint64_t prev = 0;
    for (unsigned idx = 0; idx < H::PLAT_NR; ++idx) {
        const uint64_t v = H::idx_to_val(idx);
        INFO("idx " << idx << " value " << v);
        REQUIRE(H::val_to_idx(v) == idx);
        if (idx > 0)
            REQUIRE(v > prev);
        prev = v;
    }
}

TEST_CASE("LatencyHistogram: buckets are contiguous with relative error <= 1/128", "[sim]") {
    // Exhaustive over [0, 2^22): indices never skip or go back, and the reported midpoint is
    // within half a bucket (2^(error_bits-1) <= v / 128) of the value.
    unsigned prev_idx = 0;
    for (uint64_t v = 0; v < (uint64_t{1} << 22); ++v) {
        const unsigned idx = H::val_to_idx(v);
        if (idx != prev_idx && !(v > 0 && idx == prev_idx + 1)) {
            FAIL("index jumps from " << prev_idx << " to " << idx << " at " << v);
        }
        prev_idx = idx;
        const uint64_t mid = H::idx_to_val(idx);
        const uint64_t err = mid > v ? mid - v : v - mid;
        if (err * 128 > v) {
            FAIL("value " << v << " reported as " << mid);
        }
    }
    // Sparse above: around every power of two up to the top of the range.
    Rng r(1, "test.stats.sweep");
    for (unsigned p = 22; p < 34; ++p) {
        for (int i = 0; i < 2000; ++i) {
            const uint64_t v = (uint64_t{1} << p) + r.below(uint64_t{1} << p);
            const uint64_t mid = H::idx_to_val(H::val_to_idx(v));
            const uint64_t err = mid > v ? mid - v : v - mid;
            REQUIRE(err * 128 <= v);
        }
        CHECK(H::val_to_idx(uint64_t{1} << p) == H::val_to_idx((uint64_t{1} << p) - 1) + 1);
    }
}

// ---------------------------------------------------------------------------------------
// LatencyHistogram: percentiles

TEST_CASE("LatencyHistogram: default percentile list is fio's", "[sim]") {
    const auto p = H::default_percentiles();
    CHECK(std::vector<double>(p.begin(), p.end()) ==
          std::vector<double>{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99});
}

TEST_CASE("LatencyHistogram: empty histogram gives zeros", "[sim]") {
    H h;
    CHECK(h.total() == 0);
    const auto v = h.percentiles(H::default_percentiles());
    CHECK(v == std::vector<uint64_t>(17, 0));
    CHECK(h.percentiles({}).empty());
}

TEST_CASE("LatencyHistogram: percentiles of 1..100 ns follow fio's arithmetic", "[sim]") {
    H h;
    for (uint64_t v = 1; v <= 100; ++v)
        h.add(v);
    CHECK(h.total() == 100);
    const auto v = h.percentiles(H::default_percentiles());
    // fio: the first bucket where sum >= (long double)p / 100.0 * N. With one sample per
    // value that is the smallest integer >= that threshold. On x86-64 (80-bit long double)
    // 30/100*100 evaluates to 30 + 2^-59 and 60/100*100 to 60 + 2^-58, so fio itself
    // reports p30 = 31 and p60 = 61 for this data; 99.9 etc. round up to 100.
    std::vector<uint64_t> expect{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100, 100, 100, 100};
    if (LDBL_MANT_DIG == 64) {
        expect[4] = 31;
        expect[7] = 61;
    }
    CHECK(v == expect);
    // Exact thresholds in any format.
    CHECK(h.percentiles(std::vector<double>{50.0, 99.0, 100.0}) == std::vector<uint64_t>{50, 99, 100});
}

TEST_CASE("LatencyHistogram: percentiles above 128 ns are bucket midpoints", "[sim]") {
    H h;
    for (int i = 0; i < 10; ++i)
        h.add(1000);  // bucket 317, midpoint 1004
    for (int i = 0; i < 10; ++i)
        h.add(5000);  // msb 12, error_bits 6: bucket 7*64 + 14 = 462, midpoint 4096 + 14.5*64 = 5024
    CHECK(H::val_to_idx(5000) == 462);
    CHECK(h.bin(317) == 10);
    CHECK(h.bin(462) == 10);
    const auto v = h.percentiles(H::default_percentiles());
    // Threshold p/100 * 20: up to p50 (10) the 1000 ns bucket suffices.
    std::vector<uint64_t> expect{1004, 1004, 1004, 1004, 1004, 1004, 1004, 5024, 5024,
                                 5024, 5024, 5024, 5024, 5024, 5024, 5024, 5024};
    CHECK(v == expect);
}

TEST_CASE("LatencyHistogram: huge latencies land in the last bucket", "[sim]") {
    H h;
    h.add(100);
    h.add(uint64_t{60} * 1000 * 1000 * 1000);  // 60 s
    CHECK(h.bin(1855) == 1);
    CHECK(h.percentiles(std::vector<double>{50.0, 100.0}) == std::vector<uint64_t>{100, 17112760320ULL});
}

TEST_CASE("LatencyHistogram: merge equals adding all samples to one", "[sim]") {
    Rng r(9, "test.stats.hist_merge");
    H all, a, b;
    for (int i = 0; i < 50'000; ++i) {
        const uint64_t v = r.below(uint64_t{1} << (1 + r.below(34)));
        all.add(v);
        (i % 3 ? a : b).add(v);
    }
    H m;
    m.merge(a);
    m.merge(b);
    CHECK(m.total() == all.total());
    for (unsigned idx = 0; idx < H::PLAT_NR; ++idx)
        REQUIRE(m.bin(idx) == all.bin(idx));
    CHECK(m.percentiles(H::default_percentiles()) == all.percentiles(H::default_percentiles()));
}

namespace {

// Re-bin fio's json+ "bins" (midpoint value -> count) and compare our percentiles with the
// "percentile" object fio printed from the same histogram.
void check_fio_latency_object(const nlohmann::json& lat, const std::string& where) {
    INFO(where);
    REQUIRE(lat.contains("bins"));
    REQUIRE(lat.contains("percentile"));
    H h;
    uint64_t n = 0;
    for (const auto& [key, count] : lat["bins"].items()) {
        const uint64_t value = std::stoull(key);
        const unsigned idx = H::val_to_idx(value);
        INFO("bin " << key);
        // fio printed plat_idx_to_val(i) as the key: it must be one of our midpoints.
        REQUIRE(H::idx_to_val(idx) == value);
        REQUIRE(h.bin(idx) == 0);  // distinct keys are distinct buckets
        for (uint64_t i = 0, c = count.get<uint64_t>(); i < c; ++i)
            h.add(value);
        n += count.get<uint64_t>();
    }
    CHECK(n == lat["N"].get<uint64_t>());
    CHECK(h.total() == n);

    const auto plist = H::default_percentiles();
    const auto ours = h.percentiles(plist);
    REQUIRE(lat["percentile"].size() == plist.size());
    for (std::size_t i = 0; i < plist.size(); ++i) {
        char key[64];
        std::snprintf(key, sizeof key, "%f", plist[i]);  // fio's key format
        INFO("percentile " << key);
        REQUIRE(lat["percentile"].contains(key));
        CHECK(ours[i] == lat["percentile"][key].get<uint64_t>());
    }
}

}  // namespace

TEST_CASE("LatencyHistogram: reproduces fio 3.33 json+ percentiles from its bins", "[sim]") {
    // The real run, copied into test/fixtures from the shared fixtures.
    const std::string path = std::string(BLKSIM_SOURCE_DIR) +
                             "/test/fixtures/real-linux-6.18/fio/cmdprio10rt_mq-deadline.jsonplus.json";
    std::ifstream f(path);
    INFO(path);
    REQUIRE(f.good());
    const auto doc = nlohmann::json::parse(f);
    REQUIRE(doc["jobs"].size() == 2);

    const auto& clat0 = doc["jobs"][0]["read"]["clat_ns"];
    CHECK(clat0["N"].get<uint64_t>() == 733949);
    check_fio_latency_object(clat0, "jobs[0].read.clat_ns");

    // The rest of the file: the second job and the per-priority histograms of both jobs.
    check_fio_latency_object(doc["jobs"][1]["read"]["clat_ns"], "jobs[1].read.clat_ns");
    for (std::size_t j = 0; j < doc["jobs"].size(); ++j) {
        const auto& prios = doc["jobs"][j]["read"]["prios"];
        for (std::size_t p = 0; p < prios.size(); ++p)
            check_fio_latency_object(prios[p]["clat_ns"],
                                     "jobs[" + std::to_string(j) + "].read.prios[" + std::to_string(p) + "]");
    }
}

// ---------------------------------------------------------------------------------------
// IntervalSampler

TEST_CASE("IntervalSampler: closes windows at their end and averages per second", "[sim]") {
    const Time t0 = Time::zero();
    IntervalSampler s(t0, 1_s);
    s.add(t0 + 500_ms, 100);
    s.add(t0 + 999'999'999_ns, 50);
    CHECK(s.samples().count() == 0);  // first window [0, 1 s) still open

    s.add(t0 + 1_s, 10);  // exactly at the boundary: closes [0,1) and counts in [1,2)
    CHECK(s.samples().count() == 1);
    CHECK(s.samples().max() == 150.0);

    s.add(t0 + 3_s + 500_ms, 7);  // closes [1,2) with 10 and [2,3) with nothing
    CHECK(s.samples().count() == 3);
    CHECK(s.samples().min() == 0.0);
    CHECK(s.samples().mean() == Approx(160.0 / 3.0));

    s.roll(t0 + 3_s + 999_ms);
    CHECK(s.samples().count() == 3);
    s.roll(t0 + 4_s);  // closes [3,4) with 7
    CHECK(s.samples().count() == 4);
    CHECK(s.samples().mean() == Approx(167.0 / 4.0));
    CHECK(s.samples().max() == 150.0);
    CHECK(s.samples().min() == 0.0);
}

TEST_CASE("IntervalSampler: sub-second windows scale to per-second rates", "[sim]") {
    const Time start = Time::zero() + 5_s;  // windows are aligned to the start, not to zero
    IntervalSampler s(start, 100_ms);
    s.add(start + 10_ms, 3);
    s.add(start + 90_ms, 2);
    s.roll(start + 99_ms);
    CHECK(s.samples().count() == 0);
    s.roll(start + 100_ms);
    REQUIRE(s.samples().count() == 1);
    CHECK(s.samples().mean() == Approx(50.0));  // 5 per 100 ms
    s.add(start + 250_ms, 1);  // closes [100,200) with 0
    CHECK(s.samples().count() == 2);
    s.roll(start + 300_ms);  // closes [200,300) with 1 -> 10/s
    CHECK(s.samples().count() == 3);
    CHECK(s.samples().max() == Approx(50.0));
    CHECK(s.samples().mean() == Approx(60.0 / 3.0));
}

TEST_CASE("IntervalSampler: a default-constructed sampler records nothing", "[sim]") {
    IntervalSampler s;
    s.add(Time::zero() + 10_s, 5);
    s.roll(Time::zero() + 100_s);
    CHECK(s.samples().count() == 0);
}

TEST_CASE("LatencyHistogram: buckets filled in any order survive copy, assignment, move and merge", "[sim]") {
    // Samples over many power-of-two ranges (and none in others), each bucket's count known.
    std::vector<uint64_t> want(H::PLAT_NR, 0);
    H h;
    uint64_t n = 0;
    for (uint64_t v : {0ULL, 5ULL, 127ULL, 128ULL, 1000ULL, 70'000ULL, 5'000'000ULL, 123'456'789'012ULL, ~0ULL - 10}) {
        for (uint64_t k = 0; k < 3 + v % 5; ++k) {
            h.add(v + k);
            ++want[H::val_to_idx(v + k)];
            ++n;
        }
    }
    const auto same = [&](const H& x, uint64_t times) {
        REQUIRE(x.total() == n * times);
        for (unsigned i = 0; i < H::PLAT_NR; ++i)
            REQUIRE(x.bin(i) == want[i] * times);
    };
    same(h, 1);
    H copy(h);
    same(copy, 1);
    H assigned;
    assigned.add(3'000);  // a bucket the source does not have: assignment drops it
    assigned = h;
    same(assigned, 1);
    H merged;
    merged.merge(h);
    merged.merge(copy);
    same(merged, 2);
    same(h, 1);  // merge reads its argument only
    const H moved(std::move(copy));
    same(moved, 1);
    // Percentiles of the copy are the original's, bucket for bucket.
    CHECK(assigned.percentiles(H::default_percentiles()) == h.percentiles(H::default_percentiles()));
    CHECK(H().percentiles(H::default_percentiles()) == std::vector<uint64_t>(H::default_percentiles().size(), 0));
}
