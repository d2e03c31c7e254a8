// The NVMe model's parameters, apart from the model (nvme.h).
#pragma once

#include <cstdint>

#include "models/device/ssd_free_pool_config.h"
#include "sim/time.h"

namespace blksim::dev {

// A datacenter NVMe SSD, 1.92 TB: a controller front end that takes commands one at a time,
// flash units working in parallel, a write buffer draining at the units' program rate, garbage
// collection once the spare area is used, and a host link that moves the data. Each is a
// timeline; no per-unit events. The write path and GC figures are a Samsung PM983 1.92 TB's
// (MZQLB1T9HAJR, datasheet Rev. 1.0, Jan. 2018; docs/model.md, NVMe).
struct NvmeConfig : SsdFreePoolConfig {
    // The flash the free-block pool needs (ssd_free_pool_config.h), with this drive's figures.
    NvmeConfig()
        : SsdFreePoolConfig{
              .size_bytes = 1'920'000'000'000,  // 1.92 TB
              .page_kb = 16,                     // flash page (16 KiB: Samsung's 64-layer TLC)
              .read_latency = sim::Duration::ns(80000),  // media time of a read (up to 4 KiB)
              // tPROG of one page on one unit. 64 units x 16 KiB / 749 us = 1,400 MB/s: the
              // PM983 1.92 TB's sequential write as Samsung lists it (not checked against the
              // datasheet, docs/model.md), what the buffer drains at (the split into units x
              // page / tPROG is not published). A FUA write (with volatile_write_cache) waits
              // for it too.
              .program_latency = sim::Duration::ns(749'000),
              // Spare / user capacity: 2 TiB of NAND (2,199 GB) for 1,920 GB of user space.
              .over_provisioning = 0.145,
              // (pages_per_block and erase_latency: the base's, MQSim's, as the SATA SSD's.)
              // gc_low_blocks: 2 per unit (an open block for host data and one for relocation): an estimate.
              .gc_low_blocks = 128,
          } {}

    uint32_t nr_io_queues = 0;         // submission/completion queue pairs; 0 = one per CPU
    uint32_t queue_depth = 1023;       // per queue (MQES + 1 as Linux uses it)
    // The driver's poll_queues parameter: queue pairs without an interrupt (HCTX_TYPE_POLL),
    // whose completions the submitter finds by polling. 0 (the kernel's default): none, and
    // a polled bio completes by interrupt.
    uint32_t poll_queues = 0;
    sim::Duration cmd_overhead = sim::Duration::ns(1000);     // controller time per command
    sim::Duration write_latency = sim::Duration::ns(20000);   // write into the controller's buffer
    sim::Duration per_4k = sim::Duration::ns(2000);           // media time per further 4 KiB
    // Flash dies x planes busy at once. The PM983 1.92 TB holds 2 TiB of 64-layer 512 Gb TLC
    // V-NAND: 32 dies, 2 planes each.
    uint32_t parallel_units = 64;
    // Spread of each command's media time around its mean: the sigma of a mean-preserving
    // lognormal (service_spread.h; 0 = constant). 0.14 is the SATA SSD's figure fitted to a
    // TLC drive's QD1 read percentiles, taken over for the same kind of flash (an assumption,
    // docs/model.md): a QD1 4 KiB read's p99 ~30 % above its median.
    double read_sigma = 0.14;
    double write_sigma = 0.14;
    uint64_t link_bytes_per_s = 3'200'000'000;  // host transfer rate (PCIe link / controller)
    uint32_t blocksize = 512;
    // Volatile write cache (Identify Controller VWC). A datacenter drive with power-loss
    // protection reports none (so Linux sends it no flushes), hence the default; a client
    // drive reports one. Then a Flush command costs flush_latency after the controller took
    // it (an estimate: client NVMe drives manage ~1-3 k fsyncs per second in published fio
    // fsync=1 runs), queued beside other commands as NVMe allows, and a FUA write
    // program_latency more than a buffered one (its data programmed before the answer).
    bool volatile_write_cache = false;
    bool fua = true;
    sim::Duration flush_latency = sim::Duration::ns(500'000);
    // --- write buffer -------------------------------------------------------------------
    // A write completes once its data is in the controller's DRAM buffer; the buffer drains
    // at the program rate (parallel_units x page / program_latency, divided by GC's slowdown
    // once GC runs); a write that finds it full waits for room. A drive with power-loss
    // protection may hold only what its capacitors can program out after the power fails:
    // 32 MB is 23 ms at 1.4 GB/s, in the tens of ms of hold-up such capacitors give. An
    // assumption (no datasheet gives the buffer's size; the DRAM, 1 GB per TB, is mostly the
    // mapping table).
    uint64_t buffer_bytes = 32'000'000;
    // Dataset Management with the Deallocate attribute (ONCS bit 2), what Linux sends for a
    // discard (nvme_setup_discard(): up to 256 ranges, max_discard_sectors UINT_MAX when the
    // drive gives no DMRSL). deallocate_latency: the controller's time per command (a mapping
    // update, no media or link time). No datasheet gives it; 20 us is an assumption (measure
    // with fio rw=randtrim on the drive).
    bool dsm = true;
    sim::Duration deallocate_latency = sim::Duration::ns(20'000);

    using SsdFreePoolConfig::program_bytes_per_ns;
    // Bytes per ns all units program: the buffer's drain before GC.
    double program_bytes_per_ns() const { return program_bytes_per_ns(parallel_units); }
};

}  // namespace blksim::dev
