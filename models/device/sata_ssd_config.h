// Typed configuration of the SATA SSD model (models/device/sata_ssd.h). Defaults: a
// Samsung 860 EVO 500 GB class drive, the figures of scenarios/devices/samsung-860evo-500g.json
// (its "source" says where each comes from; the comments below too).
#pragma once

#include <cstdint>

#include "models/device/ssd_free_pool_config.h"
#include "sim/time.h"

namespace blksim::dev {

struct SataSsdConfig : SsdFreePoolConfig {
    // The flash the free-block pool needs (ssd_free_pool_config.h), with this drive's figures.
    SataSsdConfig()
        : SsdFreePoolConfig{
              .size_bytes = 500'107'862'016,  // IDEMA 500 GB: 976,773,168 sectors
              .page_kb = 16,  // flash page; data is striped page by page over the dies
              // tR of a TLC page. Chosen so that QD1 4 KiB random reads give the datasheet's
              // 10 k IOPS with the host's path: 10.2 + 70 + 7.4 (link) us of drive time.
              .read_latency = sim::Duration::ns(70'000),
              // tPROG of one page per die. 16 dies x 16 KiB / 870 us = 301 MB/s: the
              // datasheet's sequential write after the TurboWrite buffer (300 MB/s on the
              // 250/500 GB models).
              .program_latency = sim::Duration::ns(870'000),
              // Spare / user capacity. 16 dies x 256 Gb = 512 GiB = 549.8 GB of NAND for 500.1 GB
              // of user space: 0.099 (the GiB-vs-GB spare of a consumer drive; its static SLC
              // region lives in it too, so the spare a TLC block sees may be smaller).
              .over_provisioning = 0.099,
              // Free blocks below which foreground GC runs: 2 per die (one open block for host
              // data, one for relocation, on each of the 16 dies). An estimate: no vendor
              // publishes it.
              .gc_low_blocks = 32,
          } {}

    // --- capacity ----------------------------------------------------------------------
    uint32_t blocksize = 512;               // logical block size (512e)
    // --- host interface ----------------------------------------------------------------
    uint32_t queue_depth = 32;  // NCQ depth (libata ATA_MAX_QUEUE), one hardware queue
    // SATA 6 Gb/s after 8b/10b is 600 MB/s; FIS framing and protocol leave ~550 MB/s, the
    // 860 EVO datasheet's sequential read (550 MB/s). Every byte crosses it, one at a time.
    uint64_t link_bytes_per_s = 550'000'000;
    // --- controller --------------------------------------------------------------------
    // Firmware time per command, one command at a time: 1 / 98 k IOPS (860 EVO datasheet,
    // 4 KiB random read QD32) = 10.2 us. It is the 4 KiB ceiling, and what makes many small
    // commands slower than few large ones.
    sim::Duration cmd_overhead = sim::Duration::ns(10'200);
    // Extra controller time of a write (mapping update): 1 / 90 k IOPS (datasheet 4 KiB
    // random write QD32) - cmd_overhead = 0.9 us.
    sim::Duration write_overhead = sim::Duration::ns(900);
    // --- flash back end ----------------------------------------------------------------
    // 500 GB of 256 Gb 64-layer TLC V-NAND = 16 dies on the MJX controller's 8 channels.
    uint32_t channels = 8;
    uint32_t dies_per_channel = 2;
    // Spread of each page read's and each FUA program's time around read_latency /
    // program_latency: the sigma of a mean-preserving lognormal (service_spread.h; 0 = every
    // operation takes exactly the mean). 0.14 puts a QD1 4 KiB random read's p50 at 92 us and
    // its p99 at ~119 us, the percentiles measured on an 850 EVO (the 860's predecessor,
    // same controller family and TLC V-NAND): a fitted figure (docs/model.md). The programs'
    // spread is taken to be the reads' (no percentile of FUA writes is published).
    double read_sigma = 0.14;
    double program_sigma = 0.14;
    // --- write buffer (DRAM + SLC "TurboWrite") -----------------------------------------
    // A write completes once its data is in the buffer; the buffer drains at the program
    // rate (all dies programming) / gc_waf; a write that finds it full waits for room.
    uint64_t buffer_bytes = 22'000'000'000;  // Intelligent TurboWrite, 500 GB model: 22 GB
    // Rate data enters the buffer (the datasheet's 520 MB/s sequential write; below the link).
    uint64_t buffer_write_bytes_per_s = 520'000'000;
    // Steady-state garbage collection as a write amplification factor: every host byte
    // costs gc_waf bytes of program work (1 = fresh drive, sequential fill).
    // (Only with free_pool_gc off: the free-block pool (ssd_free_pool_config.h) does its own
    // amplification.)
    double gc_waf = 1.0;
    // --- volatile cache ------------------------------------------------------------------
    // The controller's DRAM holds written data and mapping updates before they reach the
    // (SLC, non-volatile) buffer: the drive reports a write cache (WCE=1) and honours FUA.
    bool write_cache = true;
    bool fua = true;
    // FLUSH CACHE: the time to write out what the DRAM holds. No datasheet gives it; 2 ms is
    // an estimate from published fio fsync=1 runs on consumer SATA SSDs without power-loss
    // protection (a few hundred fsyncs per second). A non-queued command, as on the HDD.
    sim::Duration flush_latency = sim::Duration::ns(2'000'000);
    // --- TRIM (ATA DATA SET MANAGEMENT) ------------------------------------------------------
    // `trim`: the drive reports TRIM (IDENTIFY word 169), so libata advertises discard
    // (WRITE SAME(16) with UNMAP, translated; up to 65535 * 64 sectors per command). Many drives
    // allow only the non-queued command (libata's ATA_HORKAGE_NO_NCQ_TRIM, or no SEND FPDMA
    // QUEUED DSM): like FLUSH CACHE it waits for the NCQ queue to drain and holds the drive.
    // trim_latency: the drive's time per TRIM command. No datasheet gives it; 500 us is an
    // assumption (set it from fio rw=randtrim on the drive: clat is about this plus the path).
    bool trim = true;
    bool trim_queued = false;
    sim::Duration trim_latency = sim::Duration::ns(500'000);
    // A FUA write is acknowledged once its data is programmed: program_latency after the
    // buffer has it.
    // --- read-ahead ----------------------------------------------------------------------
    // A read that starts where the previous read ended makes the controller prefetch the
    // next read_ahead_kb into its DRAM; reads inside the window skip the flash (0 = off).
    uint32_t read_ahead_kb = 256;
    // Sequential streams the controller tracks at once, each with its own window: a read
    // continuing any of them hits or extends that stream's window; a read continuing none
    // takes the slot of the stream least recently read. 8: client SATA controllers keep a
    // handful of prefetch contexts in their DRAM (docs/model.md, "SSD read-ahead streams").
    uint32_t read_ahead_streams = 8;
    // --- host side ---------------------------------------------------------------------
    uint32_t irq_cpu = 0;  // AHCI has one MSI vector: completions interrupt this CPU

    uint32_t nr_dies() const { return channels * dies_per_channel; }
    // Bytes per ns the buffer drains at: all dies programming, divided by the WAF.
    double drain_bytes_per_ns() const { return program_bytes_per_ns(nr_dies()) / gc_waf; }
};

}  // namespace blksim::dev
