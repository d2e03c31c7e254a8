// DiskSim's validation traces (docs/references.md §10): one request
// per line, as measured on the real drive, one at a time:
//
//   R|W  Hit|Miss|Doub|Trip  first-block  blocks  service-us  idle-us
//
// (the drive cache's outcome as measured, 512 B blocks, the measured service time, then the
// idle gap before the next request was issued).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blksim::disksim {

enum class Outcome : uint8_t { HIT, MISS, DOUBLE, TRIPLE };
const char* outcome_name(Outcome o);

struct TraceRecord {
    bool write = false;
    Outcome outcome = Outcome::HIT;
    uint64_t lba = 0;
    uint32_t blocks = 0;
    double service_us = 0;  // measured
    double idle_us = 0;     // before the next request
    int line = 0;           // in the trace file
};

// Reads at most `limit` records (0 = all). DisksimError "FILE:LINE: field F (name) 'text':
// allowed ..." on a malformed line; an empty file is an error too.
std::vector<TraceRecord> read_validation_trace(const std::string& path, uint64_t limit = 0);
std::vector<TraceRecord> parse_validation_trace(const std::string& text, const std::string& file, uint64_t limit = 0);

}  // namespace blksim::disksim
