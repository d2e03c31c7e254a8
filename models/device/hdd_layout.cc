#include "models/device/hdd_layout.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace blksim::dev {

namespace {

[[noreturn]] void bad_zone(size_t z, const std::string& msg) {
    throw std::invalid_argument(fmt::format("hdd: layout zone {}: {}", z, msg));
}

}  // namespace

HddLayout::HddLayout(const HddLayoutSpec& spec, int64_t rev_ns) : spec_(spec), rev_ns_(rev_ns) {
    if (spec_.surfaces == 0 || spec_.cylinders == 0 || spec_.blocks == 0)
        throw std::invalid_argument("hdd: layout needs surfaces, cylinders and blocks > 0");
    if (spec_.zones.empty())
        throw std::invalid_argument("hdd: layout needs at least one zone");
    if (spec_.range_cyls == 0)
        throw std::invalid_argument("hdd: layout range_cyls must be >= 1");
    uint64_t lba = 0;
    uint32_t next_cyl = 0;
    for (size_t z = 0; z < spec_.zones.size(); ++z) {
        HddZoneSpec& zs = spec_.zones[z];
        if (zs.first_cyl < next_cyl || zs.last_cyl < zs.first_cyl || zs.last_cyl >= spec_.cylinders)
            bad_zone(z, fmt::format("cylinders {}..{} overlap the previous zone or lie outside 0..{}", zs.first_cyl,
                                    zs.last_cyl, spec_.cylinders - 1));
        if (zs.spt == 0)
            bad_zone(z, "blocks per track must be > 0");
        if (zs.track_skew < 0 || zs.cyl_skew < 0 || zs.first_offset < 0)
            bad_zone(z, "skews and the first block's offset must be >= 0 (sectors)");
        if (!std::is_sorted(zs.slips.begin(), zs.slips.end()))
            std::sort(zs.slips.begin(), zs.slips.end());
        next_cyl = zs.last_cyl + 1;
        const uint64_t ncyl = zs.last_cyl - zs.first_cyl + 1;
        const uint64_t per_cyl = static_cast<uint64_t>(zs.spt) * spec_.surfaces;
        Zone zn;
        zn.phys = ncyl * per_cyl;
        uint64_t lost = 0;  // sectors holding no LBA
        if (spec_.sparing == HddLayoutSpec::Sparing::PER_RANGE) {
            // Each range of range_cyls cylinders ends with `spares` sectors; slips within a
            // range use up its spares.
            const uint64_t ranges = (ncyl + spec_.range_cyls - 1) / spec_.range_cyls;
            lost = ranges * zs.spares;
        } else {
            // Spares at the zone's end; slips push LBAs into them (or past the zone's end
            // when there are fewer spares than slips).
            lost = std::max<uint64_t>(zs.spares, zs.slips.size());
        }
        lost += zs.front_space;
        if (!zs.slips.empty() && zs.slips.back() >= zn.phys)
            bad_zone(z, fmt::format("slip {} lies outside the zone's {} sectors", zs.slips.back(), zn.phys));
        if (lost >= zn.phys)
            bad_zone(z, "spares and front space leave no sector for data");
        zn.first_lba = lba;
        zn.lbas = zn.phys - lost;
        lba += zn.lbas;
        zone_.push_back(zn);
    }
    if (lba < spec_.blocks)
        throw std::invalid_argument(fmt::format(
            "hdd: layout zones hold {} LBAs, fewer than the drive's block count {}", lba, spec_.blocks));
    // The drive reports `blocks`: what lies beyond is unused (reserved cylinders).
    for (Zone& zn : zone_) {
        if (zn.first_lba >= spec_.blocks)
            zn.lbas = 0;
        else
            zn.lbas = std::min(zn.lbas, spec_.blocks - zn.first_lba);
    }
    while (zone_.back().lbas == 0)
        zone_.pop_back();
    auto& t = spec_.seek_table;
    for (size_t i = 0; i < t.size(); ++i)
        if (t[i].first == 0 || (i > 0 && t[i].first <= t[i - 1].first) || t[i].second <= 0)
            throw std::invalid_argument(fmt::format(
                "hdd: seek table entry {} (distance {}): distances must be >= 1 and ascending, times > 0", i,
                t[i].first));
}

uint32_t HddLayout::zone_of(uint64_t lba) const {
    uint32_t lo = 0, hi = static_cast<uint32_t>(zone_.size());
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        (zone_[mid].first_lba <= lba ? lo : hi) = mid;
    }
    return lo;
}

uint64_t HddLayout::physical(uint32_t z, uint64_t off) const {
    const HddZoneSpec& zs = spec_.zones[z];
    uint64_t p = off + zs.front_space;
    if (spec_.sparing == HddLayoutSpec::Sparing::PER_RANGE) {
        const uint64_t per_range = static_cast<uint64_t>(zs.spt) * spec_.surfaces * spec_.range_cyls;
        const uint64_t lbas_per_range = per_range - zs.spares;
        const uint64_t r = p / lbas_per_range;
        p = r * per_range + p % lbas_per_range;
        // Slips of this range move the LBAs after them one sector on.
        for (const uint64_t s : zs.slips)
            if (s / per_range == r && s <= p)
                ++p;
        return p;
    }
    for (const uint64_t s : zs.slips) {
        if (s > p)
            break;
        ++p;
    }
    return p;
}

HddLayout::Place HddLayout::locate(uint64_t lba) const {
    Place pl;
    lba = std::min(lba, spec_.blocks - 1);
    pl.zone = zone_of(lba);
    const HddZoneSpec& zs = spec_.zones[pl.zone];
    const uint64_t p = physical(pl.zone, lba - zone_[pl.zone].first_lba);
    const uint64_t track = p / zs.spt;
    pl.sector = static_cast<uint32_t>(p % zs.spt);
    const uint64_t cyl = track / spec_.surfaces;
    const uint32_t order = static_cast<uint32_t>(track % spec_.surfaces);  // position in the cylinder
    pl.cylinder = zs.first_cyl + static_cast<uint32_t>(cyl);
    pl.head = spec_.serpentine && (cyl % 2) ? spec_.surfaces - 1 - order : order;
    // Skew: track_skew per track switch, cyl_skew per cylinder switch (DiskSim's g1 layout:
    // (surfaces - 1) track switches and one cylinder switch per cylinder).
    const double skew = static_cast<double>(track - cyl) * zs.track_skew + static_cast<double>(cyl) * zs.cyl_skew;
    double a = std::fmod(zs.first_offset + static_cast<double>(pl.sector) + skew, static_cast<double>(zs.spt));
    pl.angle_ns = static_cast<uint32_t>(a / zs.spt * static_cast<double>(rev_ns_));
    return pl;
}

int64_t HddLayout::media_ns(uint64_t lba, uint64_t n, int64_t switch_ns, int64_t seek1_ns) const {
    if (n == 0)
        return 0;
    n = std::min(n, spec_.blocks - lba);
    int64_t total = 0;
    Place first = locate(lba);
    while (n > 0) {
        const HddZoneSpec& zs = spec_.zones[first.zone];
        const double st = static_cast<double>(rev_ns_) / zs.spt;
        // The LBAs of this run that stay on first's track (slips and spares may cut it short).
        uint64_t m = std::min<uint64_t>(n, zs.spt - first.sector);
        Place last = locate(lba + m - 1);
        while (m > 1 && (last.cylinder != first.cylinder || last.head != first.head)) {
            --m;
            last = locate(lba + m - 1);
        }
        total += static_cast<int64_t>((last.sector - first.sector + 1) * st);
        n -= m;
        lba += m;
        if (n == 0)
            break;
        const Place next = locate(lba);
        int64_t gap = static_cast<int64_t>(next.angle_ns) -
                      (static_cast<int64_t>(last.angle_ns) + static_cast<int64_t>(st));
        gap %= rev_ns_;
        if (gap < 0)
            gap += rev_ns_;
        if (next.cylinder != first.cylinder || next.head != first.head) {
            const uint32_t d = next.cylinder > first.cylinder ? next.cylinder - first.cylinder : first.cylinder - next.cylinder;
            const int64_t need = d == 0 ? switch_ns : (d == 1 ? seek1_ns : seek_ns(d));
            while (gap < need)
                gap += rev_ns_;
        }
        total += gap;
        first = next;
    }
    return total;
}

int64_t HddLayout::seek_ns(uint32_t d) const {
    const auto& t = spec_.seek_table;
    if (d == 0 || t.empty())
        return 0;
    if (d <= t.front().first)
        return t.front().second;
    const auto it = std::lower_bound(t.begin(), t.end(), d, [](const auto& e, uint32_t x) { return e.first < x; });
    if (it == t.end())
        return t.back().second;  // beyond the longest measured seek: the full stroke
    if (it->first == d)
        return it->second;
    const auto& lo = *(it - 1);
    const auto& hi = *it;
    const double f = static_cast<double>(d - lo.first) / static_cast<double>(hi.first - lo.first);
    return lo.second + static_cast<int64_t>(f * static_cast<double>(hi.second - lo.second));
}

}  // namespace blksim::dev
