// The HDD's pure mechanics (models/device/hdd_mechanics.h): the seek curve against the
// datasheet figures it was fitted to, zoned recording, skew and the rotational position.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <stdexcept>

#include "models/device/build_cache.h"
#include "models/device/hdd_config.h"
#include "models/device/hdd_mechanics.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

dev::HddConfig drive() { return dev::HddConfig{}; }  // the hdd-7200-sata defaults

}  // namespace

TEST_CASE("HDD seek curve: monotonic, through the single-track, average and full-stroke figures", "[hdd][device]") {
    const dev::HddConfig cfg = drive();
    const dev::HddMechanics m(cfg);
    const uint32_t maxd = m.cylinders() - 1;
    REQUIRE(m.cylinders() > 100000);  // a 4 TB drive: a few hundred thousand cylinders

    CHECK(m.seek_ns(0) == 0);
    CHECK(static_cast<double>(m.seek_ns(1)) == Approx(cfg.seek_track_to_track.count()).epsilon(0.01));
    CHECK(static_cast<double>(m.seek_ns(maxd)) == Approx(cfg.seek_full_stroke.count()).epsilon(0.01));
    // The datasheet's weighted average over every seek length (exact sum), not the fit's integral.
    CHECK(m.weighted_average_seek_ns() == Approx(cfg.seek_average.count()).epsilon(0.01));

    // Grows with distance, everywhere (including across the sqrt/linear boundary).
    int64_t prev = m.seek_ns(1);
    for (uint32_t d = 2; d <= maxd; d += (d < 2000 ? 1 : 97)) {
        const int64_t s = m.seek_ns(d);
        INFO("d=" << d);
        REQUIRE(s >= prev);
        prev = s;
    }
    // Both pieces are used: the boundary lies strictly inside the stroke, and the curve is
    // concave below it (a 1/3-stroke seek costs well over a third of the full stroke).
    CHECK(m.boundary() > 2);
    CHECK(m.boundary() < maxd);
    CHECK(m.seek_ns(maxd / 3) > m.seek_ns(maxd) / 2);

    // A move within a cylinder is a head switch; none is free.
    CHECK(m.move_ns(10, 0, 10, 0) == 0);
    CHECK(m.move_ns(10, 0, 10, 3) == cfg.head_switch.count());
    CHECK(m.move_ns(10, 0, 11, 0) == m.seek_ns(1));
}

TEST_CASE("HDD seek curve: a different set of figures fits too, impossible ones are refused", "[hdd][device]") {
    dev::HddConfig cfg = drive();
    cfg.seek_track_to_track = 1_ms;
    cfg.seek_average = 12_ms;
    cfg.seek_full_stroke = 22_ms;
    const dev::HddMechanics m(cfg);
    CHECK(m.weighted_average_seek_ns() == Approx(12e6).epsilon(0.01));
    CHECK(static_cast<double>(m.seek_ns(m.cylinders() - 1)) == Approx(22e6).epsilon(0.01));

    // A 7.4 ms average with a 30 ms full stroke would need a convex curve: no sqrt/linear fits.
    cfg = drive();
    cfg.seek_full_stroke = 30_ms;
    CHECK_THROWS_WITH(dev::HddMechanics(cfg), Catch::Contains("seek_average") && Catch::Contains("cannot be reached"));
    cfg = drive();
    cfg.seek_average = 100_us;
    CHECK_THROWS_AS(dev::HddMechanics(cfg), std::invalid_argument);
}

TEST_CASE("HDD zones: sectors per track fall outer to inner, the sustained rates are the configured ones", "[hdd][device]") {
    const dev::HddConfig cfg = drive();
    const dev::HddMechanics m(cfg);
    REQUIRE(m.zones() == cfg.zones);
    for (uint32_t z = 1; z < m.zones(); ++z)
        CHECK(m.zone_sectors_per_track(z) < m.zone_sectors_per_track(z - 1));
    const double outer = m.zone_sustained_bytes_per_s(0), inner = m.zone_sustained_bytes_per_s(m.zones() - 1);
    CHECK(outer == Approx(static_cast<double>(cfg.outer_bytes_per_s)).epsilon(0.005));
    CHECK(inner == Approx(static_cast<double>(cfg.inner_bytes_per_s)).epsilon(0.005));
    CHECK(outer / inner == Approx(2.0).epsilon(0.05));
    // The zones hold exactly the capacity, in LBA order, outer first.
    CHECK(m.capacity_sectors() == cfg.size_bytes / 512);
    CHECK(m.zone_of(0) == 0);
    CHECK(m.zone_of(m.capacity_sectors() - 1) == m.zones() - 1);
    CHECK(m.locate(m.capacity_sectors() - 1).cylinder < m.cylinders());
    CHECK(m.locate(0).cylinder == 0);
}

TEST_CASE("HDD layout: LBAs fill a track, then the next head, then the next cylinder; skew hides the switch", "[hdd][device]") {
    const dev::HddMechanics m(drive());
    const uint32_t spt = m.zone_sectors_per_track(0);
    const int64_t rev = m.revolution_ns();
    const dev::HddPosition a = m.locate(0), b = m.locate(spt - 1), c = m.locate(spt), d = m.locate(uint64_t{spt} * m.heads());
    CHECK((a.cylinder == 0 && a.head == 0 && a.sector == 0));
    CHECK((b.cylinder == 0 && b.head == 0 && b.sector == spt - 1));
    CHECK((c.cylinder == 0 && c.head == 1 && c.sector == 0));
    CHECK((d.cylinder == 1 && d.head == 0));

    // One whole track is one revolution; crossing onto the next head adds the skew, which
    // is at least the head switch, so the transfer after it needs no extra revolution.
    CHECK(m.media_ns(0, spt) == Approx(static_cast<double>(rev)).margin(2));
    const int64_t across = m.media_ns(spt - 8, 16);
    const int64_t within = m.media_ns(0, 16);
    CHECK(across - within >= m.head_switch_ns());
    CHECK(across - within < m.head_switch_ns() + rev / spt + 2);
    // The next track's first sector comes round exactly when a stream over the boundary
    // gets there: last sector's angle + one sector + skew = first sector's angle.
    const int64_t end_of_last = (static_cast<int64_t>(b.angle_ns) + rev / spt) % rev;
    const int64_t gap = ((static_cast<int64_t>(c.angle_ns) - end_of_last) % rev + rev) % rev;
    CHECK(gap >= m.head_switch_ns() - 2);
    CHECK(gap < m.head_switch_ns() + 2 * rev / spt);

    // sectors_in is media_ns backwards.
    for (uint64_t n : {1u, 100u, spt - 1, spt + 50, 3 * spt}) {
        INFO("n=" << n);
        CHECK(m.sectors_in(0, m.media_ns(0, n) + 1, 1u << 30) == n);
    }
}

TEST_CASE("HDD rotation: the platter's position is a function of time", "[hdd][device]") {
    const dev::HddMechanics m(drive());
    const int64_t rev = m.revolution_ns();
    CHECK(rev == 8'333'333);  // 7200 rpm
    const dev::HddPosition p = m.locate(12345);
    const sim::Time t = sim::Time::from_ns(5 * rev + 17);
    const int64_t w = m.rotational_wait_ns(t, p.angle_ns);
    CHECK(w >= 0);
    CHECK(w < rev);
    CHECK(m.phase_ns(t + sim::Duration::ns(w)) == p.angle_ns);
    CHECK(m.rotational_wait_ns(t + sim::Duration::ns(w), p.angle_ns) == 0);
    CHECK(m.rotational_wait_ns(t + sim::Duration::ns(w + 1), p.angle_ns) == rev - 1);
}

TEST_CASE("HDD build cache: drives with the same figures share one fit, other figures get their own", "[hdd][device]") {
    dev::BuildCache cache;
    const dev::HddConfig a = drive();
    const dev::HddMechanics& first = cache.hdd_mechanics(a);
    dev::HddConfig b = a;
    b.cache_mb = 64;  // not a mechanical figure
    CHECK(&cache.hdd_mechanics(b) == &first);
    for (auto change : std::initializer_list<void (*)(dev::HddConfig&)>{
             [](dev::HddConfig& c) { c.seek_average = 8_ms; },
             [](dev::HddConfig& c) { c.rpm = 5400; },
             [](dev::HddConfig& c) { c.size_bytes /= 2; },
             [](dev::HddConfig& c) { c.zones = 12; },
             [](dev::HddConfig& c) { c.heads = 4; },
             [](dev::HddConfig& c) { c.head_switch = 300_us; },
         }) {
        dev::HddConfig c = a;
        change(c);
        const dev::HddMechanics& other = cache.hdd_mechanics(c);
        CHECK(&other != &first);
        // What the cache gives is what a drive of those figures builds for itself.
        const dev::HddMechanics own(c);
        CHECK(other.a() == own.a());
        CHECK(other.boundary() == own.boundary());
        CHECK(other.cylinders() == own.cylinders());
        CHECK(other.revolution_ns() == own.revolution_ns());
        CHECK(&cache.hdd_mechanics(c) == &other);
    }
    CHECK(&cache.hdd_mechanics(a) == &first);
    dev::HddConfig bad = a;
    bad.seek_average = 40_ms;  // beyond the full stroke: refused as HddMechanics refuses it
    CHECK_THROWS_AS(cache.hdd_mechanics(bad), std::invalid_argument);
}
