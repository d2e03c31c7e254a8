// fio's verify= on a block device, modelled as what it costs (docs/fio.md, Verify): each
// write fills its buffer and stores a checksum of it (populate_verify_io_u()), each read the
// job does with verify on checksums what it read (verify_io_u()), and a job that wrote reads
// back what it wrote once its writes are done (do_verify()). The data itself is not modelled,
// so a verify never fails.
#pragma once

#include <cstdint>
#include <string_view>

namespace blksim::workload {

// One verify= value and the CPU time its checksum takes per byte, on the job thread.
struct VerifyKind {
    std::string_view name;
    bool on;
    // Checksum throughput in MiB/s: `fio --crctest` (fio 3.33, Debian 12) on the x86-64 host
    // blksim is developed on; `crc32c` uses the SSE4.2 instruction there, as fio's
    // crc32c-intel does. `pattern` compares the buffer with the pattern: memcmp speed, an
    // estimate. 0: no per-byte cost (`meta` checksums only fio's small header).
    uint32_t mib_per_s;
    // Picoseconds of CPU per byte checksummed.
    uint64_t ps_per_byte() const {
        const uint64_t bytes_per_s = static_cast<uint64_t>(mib_per_s) << 20;
        return bytes_per_s ? (1'000'000'000'000ull + bytes_per_s / 2) / bytes_per_s : 0;
    }
};

inline constexpr VerifyKind kVerifyKinds[] = {
    {"0", false, 0},        {"null", false, 0},     {"md5", true, 471},      {"crc64", true, 327},
    {"crc32c", true, 6297}, {"crc32c-intel", true, 6297}, {"crc32", true, 284}, {"crc16", true, 324},
    {"crc7", true, 333},    {"sha1", true, 592},    {"sha256", true, 231},   {"sha512", true, 394},
    {"sha3-224", true, 76}, {"sha3-256", true, 73}, {"sha3-384", true, 55},  {"sha3-512", true, 39},
    {"xxhash", true, 2320}, {"meta", true, 0},      {"pattern", true, 10000},
};

}  // namespace blksim::workload
