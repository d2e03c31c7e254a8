// The pure mechanics of a hard disk, no events: where an LBA lies (zone, cylinder, head,
// angle), how long a seek takes, where the platter is at a given instant, how long the head
// needs to read a run of sectors. models/device/hdd.h builds the drive's behaviour on it.
//
// Layout. `zones` bands of equal radial width, outer first (LBA 0 on the outermost
// cylinder). A zone's sectors per track follow from its sustained rate, which falls
// linearly from outer_bytes_per_s to inner_bytes_per_s (track length ∝ radius). Within a
// zone, LBAs fill a track, then the next head of the cylinder, then the next cylinder.
// Tracks are skewed so that a sequential transfer loses exactly the head-switch (or
// track-to-track seek) time at each boundary: the sustained rate, as datasheets define it.
//
// Rotation. The platter turns at a constant rate from angle 0 at t = 0, so its position is
// a function of simulated time: phase(t) = t mod revolution. An angle is kept as the time
// offset within one revolution at which a sector's start passes under the head.
//
// Seek curve (Ruemmler & Wilkes 1994, the form DiskSim uses): for a distance of d >= 1
// cylinders, a + b·√d below a boundary and c + e·d from it on. The four coefficients and the
// boundary are fitted so that the curve is continuous with a continuous slope at the
// boundary and reproduces the datasheet's three figures: single track (d = 1), full stroke
// (d = cylinders - 1) and the weighted average over all seek lengths, which datasheets
// define as Σ (max + 1 - n) T(n) / Σ (max + 1 - n), n = 1..max (uniform cylinder pairs).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/device/hdd_config.h"
#include "models/device/hdd_layout.h"
#include "sim/time.h"

namespace blksim::dev {

// Where one LBA lies.
struct HddPosition {
    uint32_t zone = 0;
    uint32_t cylinder = 0;
    uint32_t head = 0;
    uint32_t sector = 0;     // index on its track, in LBA order
    uint32_t angle_ns = 0;   // when the sector's start passes under the head, mod revolution
};

class HddMechanics {
public:
    // Throws std::invalid_argument naming the parameter when the figures do not describe a
    // drive (e.g. an average seek no curve of this form can reach).
    explicit HddMechanics(const HddConfig& cfg);

    uint64_t capacity_sectors() const { return capacity_; }
    uint32_t cylinders() const { return cylinders_; }
    uint32_t heads() const { return heads_; }
    uint32_t zones() const { return static_cast<uint32_t>(zone_->size()); }
    int64_t revolution_ns() const { return rev_ns_; }
    int64_t head_switch_ns() const { return head_switch_ns_; }

    // Zone z: sectors per track, first LBA, first cylinder.
    uint32_t zone_sectors_per_track(uint32_t z) const { return (*zone_)[z].spt; }
    uint64_t zone_first_lba(uint32_t z) const { return (*zone_)[z].first_lba; }
    uint32_t zone_first_cylinder(uint32_t z) const { return (*zone_)[z].first_cyl; }
    uint32_t zone_of(uint64_t lba) const;
    // The zone's sustained rate as built (whole sectors per track, whole-sector skews), B/s.
    double zone_sustained_bytes_per_s(uint32_t z) const;

    HddPosition locate(uint64_t lba) const;

    // Seek time for a move of `d` cylinders (d >= 1), settling included; 0 for d = 0.
    int64_t seek_ns(uint32_t d) const {
        if (d == 0) return 0;
        if (layout_) return layout_->seek_ns(d);  // a measured drive's table
        const float fd = static_cast<float>(d);
        return d < boundary_ ? static_cast<int64_t>(a_ + b_ * __builtin_sqrtf(fd))
                             : static_cast<int64_t>(c_ + e_ * fd);
    }
    // Moving from (cyl0, head0) to (cyl1, head1): a seek, a head switch or nothing.
    int64_t move_ns(uint32_t cyl0, uint32_t head0, uint32_t cyl1, uint32_t head1) const {
        if (cyl0 != cyl1) return seek_ns(cyl0 > cyl1 ? cyl0 - cyl1 : cyl1 - cyl0);
        return head0 != head1 ? head_switch_ns_ : 0;
    }
    // The datasheet's weighted average over the fitted curve (what the fit matched).
    double weighted_average_seek_ns() const;

    // Rotational position at `t` and the wait from `t` until angle `angle_ns` is under the head.
    int64_t phase_ns(sim::Time t) const { return t.ns() % rev_ns_; }
    int64_t rotational_wait_ns(sim::Time t, uint32_t angle_ns) const {
        int64_t w = static_cast<int64_t>(angle_ns) - phase_ns(t);
        return w < 0 ? w + rev_ns_ : w;
    }

    // Time the head needs to read or write sectors [lba, lba + n) once it is on the first
    // one: n sector times plus the skew at each track boundary crossed (and a rotational
    // realignment at a zone boundary, taken as one head switch).
    int64_t media_ns(uint64_t lba, uint64_t n) const;
    // How many sectors from `lba` on the head has read `elapsed_ns` after starting on it,
    // staying within lba's zone (the inverse of media_ns, rounded down).
    // At most `max` are counted.
    uint64_t sectors_in(uint64_t lba, int64_t elapsed_ns, uint64_t max) const;

    // The fitted curve, for tests and the docs.
    double a() const { return a_; }
    double b() const { return b_; }
    double c() const { return c_; }
    double e() const { return e_; }
    uint32_t boundary() const { return boundary_; }

private:
    struct Zone {
        uint64_t first_lba = 0;
        uint64_t sectors = 0;      // in this zone
        uint32_t first_cyl = 0;
        uint32_t spt = 0;          // sectors per track
        uint32_t head_skew = 0;    // sectors lost at a head switch
        uint32_t cyl_skew = 0;     // sectors lost at a cylinder switch
    };
    void fit_seek_curve(const HddConfig& cfg);
    // A measured drive (cfg.layout): zones from the layout, the seek table, and a
    // sqrt curve fitted to the table for the RPO scan's estimates.
    void init_layout(const HddConfig& cfg);

    std::shared_ptr<const HddLayout> layout_;  // null: the datasheet layout below

    int64_t rev_ns_;
    uint32_t heads_;
    uint32_t cylinders_ = 0;
    uint64_t capacity_;
    int64_t head_switch_ns_;
    int64_t track_switch_ns_;  // single-track seek
    // Shared by the copies (every drive of a profile holds one): one table for them all, which
    // stays in the cache however many drives a machine has (docs/performance.md, Cost per
    // device). Built by the constructor, never changed after.
    std::shared_ptr<const std::vector<Zone>> zone_;
    float a_ = 0, b_ = 0, c_ = 0, e_ = 0;
    uint32_t boundary_ = 0;
};

}  // namespace blksim::dev
