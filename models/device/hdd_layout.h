// A measured drive's recording layout and seek curve, as disk characterisation tools
// (DIXtrac) extract them and DiskSim's "dm_layout_g1" / "dm_mech_g1" describe them: explicit
// zones with their own sectors per track, track and cylinder skews, spare and slipped
// sectors, and a table of measured seek times. Optional: HddConfig::layout; without it the
// HDD model derives an idealised layout from datasheet figures (hdd_mechanics.h).
//
// LBA -> physical. Within a zone, physical sectors are numbered track by track (every
// surface of a cylinder, then the next cylinder) from the zone's first cylinder. The zone's
// LBAs start after `front_space` unused sectors; a slipped sector (a defect found at format
// time) holds no LBA: every LBA from it on moves one sector further. Spare sectors hold no
// LBA either: at the end of the zone (sparing "at end" / "per zone"), or at the end of
// every range of `range_cyls` cylinders ("per range"). With the serpentine mapping the
// heads are visited in reverse order on every other cylinder, so a cylinder switch stays on
// the same surface.
//
// Angles. Sector s of a track starts at (s + skew) sector widths from the index, where the
// skew accumulates `track_skew` per track switch and `cyl_skew` per cylinder switch since
// the zone's first track (DiskSim's g1 layout). A sequential transfer across a track
// boundary thus loses the skew, not a whole revolution, unless the head switch or seek needs
// longer than the skew allows.
#pragma once

#include <cstdint>
#include <vector>

namespace blksim::dev {

struct HddZoneSpec {
    uint32_t first_cyl = 0, last_cyl = 0;  // inclusive
    uint32_t spt = 0;                      // physical sectors per track
    double first_offset = 0;               // angle of the zone's first sector, in sectors
    uint32_t front_space = 0;              // unused sectors at the zone's front
    double track_skew = 0, cyl_skew = 0;   // in sectors
    uint32_t spares = 0;                   // per zone, or per range (sparing = PER_RANGE)
    std::vector<uint64_t> slips;           // zone-relative physical sector numbers, ascending
};

struct HddLayoutSpec {
    enum class Sparing : uint8_t { AT_ZONE_END, PER_RANGE };
    uint32_t surfaces = 0;
    uint32_t cylinders = 0;
    uint64_t blocks = 0;     // LBAs the drive reports
    Sparing sparing = Sparing::AT_ZONE_END;
    uint32_t range_cyls = 1;  // PER_RANGE: cylinders per sparing range
    bool serpentine = false;  // reverse the heads on every other cylinder of a zone
    std::vector<HddZoneSpec> zones;
    // Measured seek time (ns) by distance (cylinders), ascending; interpolated linearly
    // between points, extrapolated from the last two. Empty: use the datasheet curve.
    std::vector<std::pair<uint32_t, int64_t>> seek_table;
};

// Checks a layout and builds its per-zone LBA ranges. Throws std::invalid_argument naming
// the zone and field when the description is inconsistent (zones out of order, skews or
// slips outside the zone, fewer LBAs than `blocks`).
class HddLayout {
public:
    HddLayout(const HddLayoutSpec& spec, int64_t rev_ns);

    struct Place {
        uint32_t zone = 0, cylinder = 0, head = 0;
        uint32_t sector = 0;   // physical sector on its track
        uint32_t angle_ns = 0; // when that sector's start passes under the head
    };
    Place locate(uint64_t lba) const;
    uint32_t zone_of(uint64_t lba) const;
    uint64_t zone_first_lba(uint32_t z) const { return zone_[z].first_lba; }
    uint64_t zone_lbas(uint32_t z) const { return zone_[z].lbas; }
    uint64_t capacity() const { return spec_.blocks; }
    const HddLayoutSpec& spec() const { return spec_; }

    // Media time of LBAs [lba, lba + n) once the head is on the first: sector times, the
    // gaps the skews and slips leave, and a whole revolution more at a boundary where the
    // head switch (switch_ns) or a one-cylinder seek (seek1_ns) is longer than the gap.
    int64_t media_ns(uint64_t lba, uint64_t n, int64_t switch_ns, int64_t seek1_ns) const;

    int64_t seek_ns(uint32_t d) const;  // the table, interpolated (d >= 1)

private:
    struct Zone {
        uint64_t first_lba = 0, lbas = 0;
        uint64_t phys = 0;  // physical sectors in the zone
    };
    uint64_t physical(uint32_t z, uint64_t off) const;  // zone-relative LBA -> physical sector

    HddLayoutSpec spec_;
    int64_t rev_ns_;
    std::vector<Zone> zone_;
};

}  // namespace blksim::dev
