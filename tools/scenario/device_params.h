// Each device model's "params" object, read into its config struct
// (models/device/device_config.h). Times take fio's value syntax ("70us"; a bare number is
// nanoseconds), rates MB/s (10^6 bytes); a key left out keeps the model's default.
#pragma once

#include <cstdint>
#include <string>

#include "models/topology/machine_config.h"
#include "tools/scenario/decode_state.h"

namespace blksim::scenario {

inline constexpr uint64_t kNullBlkGb = 1000ULL * 1000 * 1000;  // null_blk's "gb" is 10^9 bytes

// Reads one params object: each setter changes `out` only when the key is there. rep names
// the file the object came from (the scenario, or a device profile).
struct ParamReader {
    const json& p;
    const std::string& ptr;
    const Reporter& rep;
    uint32_t nr_cpus = 1;  // the host's, for irq_cpu

    void time(const char* key, sim::Duration& out) const {
        if (p.contains(key)) out = parse_time_at(p[key], child(ptr, key), units::TimeUnit::NSEC, rep);
    }
    void flag(const char* key, bool& out) const {
        if (p.contains(key)) out = p[key].is_boolean() ? p[key].get<bool>() : p[key].get<int>() != 0;
    }
    void u32(const char* key, uint32_t& out) const {
        if (p.contains(key)) out = p[key].get<uint32_t>();
    }
    void mbps(const char* key, uint64_t& out) const {
        if (p.contains(key)) out = p[key].get<uint64_t>() * 1'000'000;
    }
    // A device's completion interrupt CPU (irq_cpu) must exist on the host.
    void check_irq_cpu(uint32_t cpu) const;
};

dev::NullBlkConfig decode_null_blk(const ParamReader& r);
dev::NvmeConfig decode_nvme(const ParamReader& r);
dev::HddConfig decode_hdd(const ParamReader& r);
dev::SataSsdConfig decode_sata_ssd(const ParamReader& r);
dev::RaidConfig decode_raid(const ParamReader& r);

}  // namespace blksim::scenario
