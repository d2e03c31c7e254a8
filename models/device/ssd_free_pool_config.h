// The parameters of an SSD's flash that its free-block pool and garbage collection need
// (ssd_write_buffer.h, ssd_gc.h), written once for the drives that have one: the SATA SSD
// (sata_ssd_config.h) and the NVMe SSD (nvme_config.h) derive their configs from it, so that
// their descriptors bind these fields alike (ssd_free_pool_params.h). Each drive sets its
// own figures in its constructor; what both drives share is defaulted here.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/time.h"

namespace blksim::dev {

// Limits both drives' descriptors and check_free_pool() (ssd_free_pool_params.h) apply.
inline constexpr double kMaxOverProvisioning = 4.0;
inline constexpr uint32_t kMinPagesPerBlock = 2, kMaxPagesPerBlock = 65536;
inline constexpr uint32_t kMaxGcLowBlocks = 1'000'000;

struct SsdFreePoolConfig {
    uint64_t size_bytes = 0;  // user capacity
    uint32_t page_kb = 0;     // flash page
    sim::Duration read_latency{};     // tR: a read's media time, and a GC copy's read
    sim::Duration program_latency{};  // tPROG of one page on one unit (die)
    // --- garbage collection as work (free-block pool; ssd_gc.h, ssd_write_buffer.h) ------
    // The drive starts in use: its logical space mapped, its spare area (over_provisioning x
    // capacity) erased. Programmed host data takes blocks from that pool; once fewer than
    // gc_low_blocks are free, each block freed costs its valid pages (Desnoyers' greedy
    // fraction at this over-provisioning, ssd_gc.h) read and programmed plus one erase, as
    // operations on the flash units, and the buffer drains that much slower (docs/model.md).
    bool free_pool_gc = true;
    double over_provisioning = 0;  // spare / user capacity
    // Pages per erase block: 256 (4 MiB blocks of 16 KiB pages), MQSim's default flash
    // geometry (Tavakkol et al., FAST '18); 3D TLC blocks are often larger (an assumption).
    uint32_t pages_per_block = 256;
    // tBERS: 3.8 ms, MQSim's default block erase latency; datasheets of MLC/TLC NAND give
    // 1.5-10 ms (FEMU, FAST '18, uses 2 ms).
    sim::Duration erase_latency = sim::Duration::ns(3'800'000);
    uint32_t gc_low_blocks = 0;  // free blocks below which foreground GC runs

    uint64_t page_bytes() const { return static_cast<uint64_t>(page_kb) * 1024; }
    uint64_t block_bytes() const { return page_bytes() * pages_per_block; }
    // Erase blocks of the spare area, the free pool a drive in use starts with.
    uint64_t spare_blocks() const {
        return static_cast<uint64_t>(over_provisioning * static_cast<double>(size_bytes)) /
               std::max<uint64_t>(1, block_bytes());
    }
    // Bytes per ns `units` flash units program at once: a buffer's drain before GC.
    double program_bytes_per_ns(uint32_t units) const {
        return static_cast<double>(units) * static_cast<double>(page_bytes()) /
               static_cast<double>(std::max<int64_t>(1, program_latency.count()));
    }
};

}  // namespace blksim::dev
