#include "models/device/build_cache.h"

#include "models/device/hdd_mechanics.h"

namespace blksim::dev {

namespace {

// The figures HddMechanics is built from: two configs equal in these have equal mechanics.
bool same_mechanics(const HddConfig& a, const HddConfig& b) {
    return a.size_bytes == b.size_bytes && a.rpm == b.rpm && a.heads == b.heads && a.zones == b.zones &&
           a.outer_bytes_per_s == b.outer_bytes_per_s && a.inner_bytes_per_s == b.inner_bytes_per_s &&
           a.seek_track_to_track == b.seek_track_to_track && a.seek_average == b.seek_average &&
           a.seek_full_stroke == b.seek_full_stroke && a.head_switch == b.head_switch && a.layout == b.layout;
}

}  // namespace

BuildCache::BuildCache() = default;
BuildCache::~BuildCache() = default;

const HddMechanics& BuildCache::hdd_mechanics(const HddConfig& cfg) {
    for (const auto& [c, mech] : hdd_)
        if (same_mechanics(c, cfg))
            return *mech;
    auto mech = std::make_unique<const HddMechanics>(cfg);
    return *hdd_.emplace_back(cfg, std::move(mech)).second;
}

}  // namespace blksim::dev
