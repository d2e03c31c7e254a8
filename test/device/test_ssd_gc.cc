// Garbage collection as work on the SATA SSD (models/device/ssd_gc.h, sata_ssd.h,
// free_pool_gc): the greedy valid fraction against a published figure, GC starting once the
// spare area is used, write throughput falling to the analytic steady state, reads waiting
// behind GC operations on the dies, and runs that never reach the watermark unchanged.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "models/device/sata_ssd.h"
#include "models/device/ssd_gc.h"
#include "models/result/device_report.h"

#include "test/device/device_rig.h"

using namespace blksim;

namespace {

struct Rig : testing::DeviceRig<dev::SataSsd> {
    explicit Rig(const dev::SataSsdConfig& cfg) : DeviceRig(cfg, "ssd-gc-test") {}
};

// A 1 GiB drive with 12 % spare: 30 blocks of 4 MiB, 28 usable above the watermark of 2.
dev::SataSsdConfig small_drive() {
    dev::SataSsdConfig c;
    c.size_bytes = 1ULL << 30;
    c.over_provisioning = 0.12;
    c.gc_low_blocks = 2;
    c.buffer_bytes = 16'000'000;
    return c;
}
// Bytes per second all dies program (the buffer's drain before GC): 301 MB/s by default.
double program_rate(const dev::SataSsdConfig& c) {
    return static_cast<double>(c.nr_dies() * c.page_bytes()) * 1e9 / static_cast<double>(c.program_latency.count());
}
double usable_bytes(const dev::SataSsdConfig& c) {
    return static_cast<double>((c.spare_blocks() - c.gc_low_blocks) * c.block_bytes());
}

// p99 of the 4 KiB reads that completed in [t0, t1) seconds.
double read_p99(const Rig& r, double t0, double t1) {
    std::vector<double> l;
    for (size_t i = 0; i < r.done_log.size(); ++i)
        if (r.done_log[i].second == 4096 && r.done_log[i].first >= t0 * 1e9 && r.done_log[i].first < t1 * 1e9)
            l.push_back(r.lat_log[i]);
    REQUIRE(l.size() > 200);
    std::sort(l.begin(), l.end());
    return l[l.size() * 99 / 100];
}

}  // namespace

TEST_CASE("SSD GC: greedy valid fraction follows Desnoyers' closed form", "[sata_ssd][ssd_gc]") {
    // Over-provisioning 0.3: write amplification 2.35 in Xiang & Kurkoski's simulation of
    // greedy GC under uniform random writes.
    const dev::GcCost c = dev::greedy_gc_cost(1.3, 4096, 0, 1, 0);
    CHECK(c.waf() == Approx(2.35).epsilon(0.01));
    // The fixed point holds, and more spare means emptier victims.
    const double v = dev::greedy_valid_fraction(1.1);
    CHECK(v == Approx(std::exp(-1.1 * (1 - v))).epsilon(1e-9));
    CHECK(v < 1.0 - 1e-3);
    CHECK(dev::greedy_valid_fraction(1.5) < dev::greedy_valid_fraction(1.2));
    CHECK(dev::greedy_valid_fraction(1.2) < v);
    // Die time per host page: the copies and the erase on top of the host page's program.
    const dev::GcCost g = dev::greedy_gc_cost(1.1, 256, 70, 870, 3800);
    CHECK(g.copies + g.freed == 256);
    CHECK(g.slowdown == Approx(1.0 + (g.copies * 940.0 + 3800.0) / (g.freed * 870.0)));
}

TEST_CASE("SSD GC: starts once the spare area is written, then writes fall to the steady state",
          "[sata_ssd][ssd_gc]") {
    const dev::SataSsdConfig c = small_drive();
    const double usable = usable_bytes(c);
    REQUIRE(usable == 28.0 * 4 * 1024 * 1024);
    const auto run = [&](double bytes) {
        auto r = std::make_unique<Rig>(c);
        r->log = true;
        r->mixed(256, 32);  // 128 KiB random writes only
        r->run(32, static_cast<uint64_t>(bytes / 131072));
        return r;
    };
    // The buffer holds up to 16 MB not yet programmed: GC cannot have started before the pool
    // was drained to the watermark, and must have once that much more was written.
    CHECK(run(usable - 8e6)->device.stats().gc_erases == 0);
    const auto r = run(usable + 16e6 + 8e6);
    CHECK(r->device.stats().gc_copies > 0);
    // Long enough for the steady state: the buffer full, the drain slowed by the GC's die time.
    const auto l = run(usable + 150e6);
    const double program = program_rate(c);
    const double alpha = 1.0 + usable / static_cast<double>(c.size_bytes);
    const dev::GcCost g = dev::greedy_gc_cost(alpha, c.pages_per_block, c.read_latency.count(),
                                              c.program_latency.count(), c.erase_latency.count());
    CHECK(l->rate_between(0.15, 0.35) == Approx(program).epsilon(0.03));  // buffer full, no GC yet
    CHECK(l->rate_between(0.8, 2.5) == Approx(program / g.slowdown).epsilon(0.03));
    CHECK(program / g.slowdown < 0.25 * program);  // (at 12 % spare: WAF ~4.8)
    result::DeviceReport rep;
    l->device.report(rep);
    double waf = 0;
    for (const auto& line : rep.lines)
        for (const auto& f : line)
            if (f.key == "gc_waf")
                waf = f.value;
    // Programmed / host bytes tends to the steady state's (pages copied per page freed).
    CHECK(waf > 2.0);
    CHECK(waf < g.waf());
    CHECK(l->device.stats().gc_copies == Approx(l->device.stats().gc_erases * g.copies).epsilon(0.01));
}

TEST_CASE("SSD GC: reads queue behind GC operations on the dies once GC runs, not before",
          "[sata_ssd][ssd_gc]") {
    dev::SataSsdConfig c = small_drive();
    c.buffer_bytes = 2'000'000'000;  // writes never wait for room: only the dies slow the reads
    Rig r(c);
    r.log = true;
    r.mixed(256, 1);  // one 128 KiB writer, three 4 KiB readers
    r.run(4, 40'000);
    const double gc_at = usable_bytes(c) / program_rate(c);
    const double before = read_p99(r, 0.0, gc_at - 0.05), after = read_p99(r, gc_at + 0.1, gc_at + 1.0);
    // Before: tR and the path, and at worst a 128 KiB write's 252 us on the link ahead.
    CHECK(before < 400e3);
    // After: a page copy (940 us) or an erase (3.8 ms) ahead on the die.
    CHECK(after > 3 * before);
    CHECK(after > 940e3);
    CHECK(r.device.stats().gc_erases > 0);
}

TEST_CASE("SSD GC: runs that do not reach the watermark are the same with it on or off",
          "[sata_ssd][ssd_gc]") {
    const auto lat = [](bool gc, uint32_t writers, uint64_t n) {
        dev::SataSsdConfig c = small_drive();
        c.free_pool_gc = gc;
        Rig r(c);
        r.log = true;
        r.mixed(256, writers);
        r.run(4, n);
        return std::make_pair(r.lat_log, r.device.stats().page_reads);
    };
    CHECK(lat(true, 0, 20'000) == lat(false, 0, 20'000));  // reads only
    CHECK(lat(true, 2, 800) == lat(false, 2, 800));        // 2 writers, ~50 MB: below the pool
    CHECK(lat(true, 2, 8'000) != lat(false, 2, 8'000));    // ...and past it they differ
}
