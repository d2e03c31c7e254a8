#include "models/device/hdd_mechanics.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace blksim::dev {

namespace {

double ms(double ns) { return ns / 1e6; }

}  // namespace

HddMechanics::HddMechanics(const HddConfig& cfg)
    : rev_ns_(static_cast<int64_t>(60'000'000'000ULL / std::max(1u, cfg.rpm))),
      heads_(std::max(1u, cfg.heads)),
      capacity_(cfg.size_bytes / 512),
      head_switch_ns_(cfg.head_switch.count()),
      track_switch_ns_(cfg.seek_track_to_track.count()) {
    if (cfg.rpm == 0 || cfg.zones == 0 || cfg.outer_bytes_per_s == 0 || cfg.inner_bytes_per_s == 0)
        throw std::invalid_argument("hdd: rpm, zones and the transfer rates must be positive");
    if (cfg.inner_bytes_per_s > cfg.outer_bytes_per_s)
        throw std::invalid_argument("hdd: inner_mbps must not exceed outer_mbps (LBA 0 is the outer, faster zone)");
    if (capacity_ == 0)
        throw std::invalid_argument("hdd: capacity must be at least one sector");
    if (cfg.layout) {
        init_layout(cfg);
        return;
    }

    // Sectors per track from each zone's sustained rate: one cylinder of `heads` tracks is
    // read in heads revolutions plus (heads - 1) head switches and one cylinder switch.
    const double rev = static_cast<double>(rev_ns_);
    const double switch_per_track =
        (static_cast<double>(heads_ - 1) * static_cast<double>(head_switch_ns_) + static_cast<double>(track_switch_ns_)) /
        static_cast<double>(heads_);
    const uint32_t nz = cfg.zones;
    auto zones = std::make_shared<std::vector<Zone>>(nz);
    zone_ = zones;
    uint64_t sectors_per_cylinder_all = 0;  // sum over zones of one cylinder each
    for (uint32_t z = 0; z < nz; ++z) {
        const double f = nz == 1 ? 0.0 : static_cast<double>(z) / static_cast<double>(nz - 1);
        const double rate = static_cast<double>(cfg.outer_bytes_per_s) +
                            (static_cast<double>(cfg.inner_bytes_per_s) - static_cast<double>(cfg.outer_bytes_per_s)) * f;
        Zone& zn = (*zones)[z];
        zn.spt = std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(rate * (rev + switch_per_track) * 1e-9 / 512.0)));
        const double st = rev / zn.spt;  // one sector passing under the head
        zn.head_skew = static_cast<uint32_t>(std::ceil(static_cast<double>(head_switch_ns_) / st));
        zn.cyl_skew = static_cast<uint32_t>(std::ceil(static_cast<double>(track_switch_ns_) / st));
        if (zn.head_skew >= zn.spt || zn.cyl_skew >= zn.spt)
            throw std::invalid_argument("hdd: head_switch and seek_track_to_track must be shorter than one revolution");
        sectors_per_cylinder_all += static_cast<uint64_t>(zn.spt) * heads_;
    }
    // Zones of equal radial width: the same number of cylinders each, enough for the
    // capacity; the last zone is the one left partly unused.
    const uint64_t cyl_per_zone = (capacity_ + sectors_per_cylinder_all - 1) / sectors_per_cylinder_all;
    uint64_t lba = 0;
    for (uint32_t z = 0; z < nz; ++z) {
        Zone& zn = (*zones)[z];
        zn.first_lba = lba;
        zn.first_cyl = static_cast<uint32_t>(cyl_per_zone * z);
        zn.sectors = std::min(capacity_ - lba, cyl_per_zone * heads_ * zn.spt);
        lba += zn.sectors;
    }
    cylinders_ = static_cast<uint32_t>(cyl_per_zone * nz);
    if (cylinders_ < 2)
        throw std::invalid_argument("hdd: the geometry leaves fewer than 2 cylinders; raise the capacity or lower the rates");
    fit_seek_curve(cfg);
}

void HddMechanics::fit_seek_curve(const HddConfig& cfg) {
    const double t1 = static_cast<double>(cfg.seek_track_to_track.count());
    const double ta = static_cast<double>(cfg.seek_average.count());
    const double tf = static_cast<double>(cfg.seek_full_stroke.count());
    const double maxd = static_cast<double>(cylinders_ - 1);
    if (!(t1 > 0 && t1 < ta && ta < tf))
        throw std::invalid_argument(fmt::format(
            "hdd: seek figures must grow: seek_track_to_track {} ms < seek_average {} ms < seek_full_stroke {} ms",
            ms(t1), ms(ta), ms(tf)));

    // Coefficients for a boundary B: T(1) = t1, T(maxd) = tf, value and slope continuous at B.
    struct Curve {
        double a, b, c, e, B;
        double at(double d) const { return d < B ? a + b * std::sqrt(d) : c + e * d; }
    };
    const auto make = [&](double B) {
        Curve k{};
        k.B = B;
        const double sb = std::sqrt(B);
        k.b = (tf - t1) / (sb - 1.0 + (maxd - B) / (2.0 * sb));
        k.a = t1 - k.b;
        k.e = k.b / (2.0 * sb);
        k.c = k.a + k.b * sb - k.e * B;
        return k;
    };
    // The weighted average Σ (maxd + 1 - n) T(n) / Σ (maxd + 1 - n), as an integral over
    // n = 1 + (maxd - 1) u² (dense where √ bends), composite Simpson.
    const auto average = [&](const Curve& k) {
        constexpr int N = 512;
        double num = 0, den = 0;
        for (int i = 0; i <= N; ++i) {
            const double u = static_cast<double>(i) / N;
            const double x = 1.0 + (maxd - 1.0) * u * u;
            const double w = (maxd + 1.0 - x) * 2.0 * u * (maxd - 1.0);  // weight · dx/du
            const double s = (i == 0 || i == N) ? 1.0 : (i % 2 ? 4.0 : 2.0);
            num += s * w * k.at(x);
            den += s * w;
        }
        return num / den;
    };
    double lo = 1.0 + 1e-6, hi = maxd;
    const double at_lo = average(make(lo)), at_hi = average(make(hi));
    if (ta < at_lo || ta > at_hi)
        throw std::invalid_argument(fmt::format(
            "hdd: seek_average {} ms cannot be reached by a sqrt/linear seek curve through seek_track_to_track "
            "{} ms and seek_full_stroke {} ms on {} cylinders (allowed: {:.2f} .. {:.2f} ms)",
            ms(ta), ms(t1), ms(tf), cylinders_, ms(at_lo), ms(at_hi)));
    for (int it = 0; it < 64; ++it) {
        const double mid = 0.5 * (lo + hi);
        (average(make(mid)) < ta ? lo : hi) = mid;
    }
    const Curve k = make(0.5 * (lo + hi));
    a_ = static_cast<float>(k.a);
    b_ = static_cast<float>(k.b);
    c_ = static_cast<float>(k.c);
    e_ = static_cast<float>(k.e);
    boundary_ = std::max<uint32_t>(2, static_cast<uint32_t>(std::ceil(k.B)));
}

double HddMechanics::weighted_average_seek_ns() const {
    // The datasheet's sum over every seek length n = 1..max, weight max + 1 - n.
    const uint64_t maxd = cylinders_ - 1;
    double num = 0, den = 0;
    for (uint64_t n = 1; n <= maxd; ++n) {
        const double w = static_cast<double>(maxd + 1 - n);
        num += w * static_cast<double>(seek_ns(static_cast<uint32_t>(n)));
        den += w;
    }
    return num / den;
}

uint32_t HddMechanics::zone_of(uint64_t lba) const {
    if (layout_)
        return layout_->zone_of(lba);
    // upper_bound on first_lba, minus one.
    uint32_t lo = 0, hi = static_cast<uint32_t>(zone_->size());
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        ((*zone_)[mid].first_lba <= lba ? lo : hi) = mid;
    }
    return lo;
}

double HddMechanics::zone_sustained_bytes_per_s(uint32_t z) const {
    const Zone& zn = (*zone_)[z];
    // One cylinder: heads tracks, (heads - 1) head switches, one cylinder switch.
    const double slots = static_cast<double>(heads_) * zn.spt + static_cast<double>(heads_ - 1) * zn.head_skew + zn.cyl_skew;
    const double ns = slots * static_cast<double>(rev_ns_) / zn.spt;
    return static_cast<double>(heads_) * zn.spt * 512.0 / (ns * 1e-9);
}

HddPosition HddMechanics::locate(uint64_t lba) const {
    HddPosition p;
    if (layout_) {
        const HddLayout::Place pl = layout_->locate(lba);
        return {pl.zone, pl.cylinder, pl.head, pl.sector, pl.angle_ns};
    }
    p.zone = zone_of(lba);
    const Zone& zn = (*zone_)[p.zone];
    const uint64_t off = lba - zn.first_lba;
    const uint64_t track = off / zn.spt;
    p.sector = static_cast<uint32_t>(off % zn.spt);
    p.cylinder = zn.first_cyl + static_cast<uint32_t>(track / heads_);
    p.head = static_cast<uint32_t>(track % heads_);
    // Each boundary before this track skews it by a head switch, or by a cylinder switch
    // where the cylinder changes.
    const uint64_t cyl_in_zone = track / heads_;
    const uint64_t skew = (track - cyl_in_zone) * zn.head_skew + cyl_in_zone * zn.cyl_skew;
    const uint64_t slot = (p.sector + skew) % zn.spt;
    p.angle_ns = static_cast<uint32_t>(slot * static_cast<uint64_t>(rev_ns_) / zn.spt);
    return p;
}

int64_t HddMechanics::media_ns(uint64_t lba, uint64_t n) const {
    if (layout_)
        return layout_->media_ns(lba, n, head_switch_ns_, seek_ns(1));
    int64_t total = 0;
    uint32_t z = zone_of(lba);
    while (n > 0) {
        const Zone& zn = (*zone_)[z];
        const uint64_t off0 = lba - zn.first_lba;
        const uint64_t here = std::min(n, zn.sectors - off0);
        const uint64_t tr0 = off0 / zn.spt, tr1 = (off0 + here - 1) / zn.spt;
        const uint64_t cyl_x = tr1 / heads_ - tr0 / heads_;
        const uint64_t head_x = (tr1 - tr0) - cyl_x;
        const uint64_t slots = here + head_x * zn.head_skew + cyl_x * zn.cyl_skew;
        total += static_cast<int64_t>(slots * static_cast<uint64_t>(rev_ns_) / zn.spt);
        n -= here;
        lba += here;
        if (n > 0) {
            total += track_switch_ns_;  // onto the next zone's first cylinder
            if (++z >= zone_->size())
                break;
        }
    }
    return total;
}

uint64_t HddMechanics::sectors_in(uint64_t lba, int64_t elapsed_ns, uint64_t max) const {
    if (elapsed_ns <= 0 || max == 0)
        return 0;
    if (layout_) {
        // The inverse of media_ns by bisection (skews and slips make it irregular).
        max = std::min(max, capacity_ - lba);
        uint64_t lo = 0, hi = max;
        while (lo < hi) {
            const uint64_t mid = (lo + hi + 1) / 2;
            if (media_ns(lba, mid) <= elapsed_ns)
                lo = mid;
            else
                hi = mid - 1;
        }
        return lo;
    }
    const Zone& zn = (*zone_)[zone_of(lba)];
    const uint64_t off = lba - zn.first_lba;
    max = std::min(max, zn.sectors - off);
    uint64_t slots = static_cast<uint64_t>(elapsed_ns) * zn.spt / static_cast<uint64_t>(rev_ns_);
    uint64_t track = off / zn.spt;
    uint64_t count = 0;
    uint64_t left_on_track = zn.spt - off % zn.spt;
    for (;;) {
        if (slots <= left_on_track || count + left_on_track >= max)
            return std::min(max, count + std::min(slots, left_on_track));
        count += left_on_track;
        slots -= left_on_track;
        ++track;
        const uint64_t skew = track % heads_ == 0 ? zn.cyl_skew : zn.head_skew;
        if (slots <= skew)
            return count;
        slots -= skew;
        left_on_track = zn.spt;
    }
}

}  // namespace blksim::dev

namespace blksim::dev {

void HddMechanics::init_layout(const HddConfig& cfg) {
    auto lay = std::make_shared<const HddLayout>(*cfg.layout, rev_ns_);
    const HddLayoutSpec& spec = lay->spec();
    heads_ = spec.surfaces;
    cylinders_ = spec.cylinders;
    capacity_ = spec.blocks;
    if (spec.seek_table.empty())
        throw std::invalid_argument("hdd: a layout needs its seek table");
    // Zones as the accessors report them (skews rounded up to whole sectors).
    auto zones = std::make_shared<std::vector<Zone>>();
    zone_ = zones;
    for (const HddZoneSpec& zs : spec.zones) {
        const uint32_t z = static_cast<uint32_t>(zones->size());
        if (z >= static_cast<uint32_t>(spec.zones.size()) || lay->zone_lbas(z) == 0)
            break;
        Zone zn;
        zn.first_lba = lay->zone_first_lba(z);
        zn.sectors = lay->zone_lbas(z);
        zn.first_cyl = zs.first_cyl;
        zn.spt = zs.spt;
        zn.head_skew = static_cast<uint32_t>(std::ceil(zs.track_skew));
        zn.cyl_skew = static_cast<uint32_t>(std::ceil(zs.cyl_skew));
        zones->push_back(zn);
        if (zn.first_lba + zn.sectors >= capacity_)
            break;
    }
    // The RPO scan estimates positioning with a + b*sqrt(d): least squares over the table.
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [d, t] : spec.seek_table) {
        const double x = std::sqrt(static_cast<double>(d)), y = static_cast<double>(t);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double n = static_cast<double>(spec.seek_table.size());
    const double den = n * sxx - sx * sx;
    b_ = den > 0 ? static_cast<float>((n * sxy - sx * sy) / den) : 0.0f;
    a_ = static_cast<float>((sy - b_ * sx) / n);
    c_ = a_;
    e_ = 0;
    boundary_ = cylinders_ + 1;  // sqrt all the way
    track_switch_ns_ = lay->seek_ns(1);
    layout_ = std::move(lay);
}

}  // namespace blksim::dev
