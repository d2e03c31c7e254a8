// Replays a validation trace on the HDD model alone, the way it was measured: one request
// at a time, each issued when the previous one has completed plus the recorded idle gap
// (so the platter turns on during the gap and the drive destages or prefetches in it).
// The device is driven directly, as test/device/device_rig.h does: no block layer, no host
// CPU, the service time is the drive's (command to completion).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/device/hdd_config.h"
#include "tools/disksim/validation_trace.h"

namespace blksim::disksim {

struct ReplayResult {
    std::vector<double> simulated_ms;  // per request, in trace order
    std::vector<uint8_t> simulated_hit;  // 1: served from the buffer (read hit, write-back)
    uint64_t read_hits = 0, read_misses = 0, write_back = 0, write_through = 0;
    double seek_ms_mean = 0, rotation_ms_mean = 0, transfer_ms_mean = 0;  // per media op
    double wall_s = 0;                 // host time the replay took
};

// DisksimError (naming the trace line) for a request beyond the drive's capacity.
ReplayResult replay_trace(const dev::HddConfig& cfg, const std::vector<TraceRecord>& trace, const std::string& file);

}  // namespace blksim::disksim
