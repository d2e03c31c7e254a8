// Typed configuration of the HDD model (models/device/hdd.h). Field names follow the drive
// datasheets (seek figures, sustained transfer rate, buffer) and the kernel's sysfs names
// where Linux has one (queue_depth, ncq_prio_enable). Defaults: an enterprise 7200 rpm
// 3.5" SATA drive with NCQ priority, the figures of scenarios/devices/hdd-7200-sata.json
// (its "source" says where each comes from).
#pragma once

#include <cstdint>
#include <memory>

#include "sim/time.h"

namespace blksim::dev {

struct HddLayoutSpec;  // models/device/hdd_layout.h

struct HddConfig {
    // --- recording geometry ------------------------------------------------------------
    uint64_t size_bytes = 4'000'787'030'016;  // 4 TB (IDEMA: 7,814,037,168 sectors of 512 B)
    uint32_t blocksize = 512;                 // logical block size
    // Sector format: the size the drive records (sysfs physical_block_size). 512/512 is a
    // 512n drive, 512/4096 a 512e drive (the host addresses 512 B sectors; a write that does
    // not cover whole 4 KiB physical sectors is a read-modify-write on the media), 4096/4096
    // a 4Kn drive. The datasheet drive is the HC310's 4 TB 512n model (HUS726T4TALA6L4).
    uint32_t physical_block_size = 512;
    uint32_t rpm = 7200;
    uint32_t heads = 8;                       // recording surfaces (tracks per cylinder)
    // Zoned recording: `zones` bands of equal radial width; the sustained media rate falls
    // linearly from the outer (LBA 0) to the inner zone, as the track length does.
    uint32_t zones = 24;
    uint64_t outer_bytes_per_s = 227'000'000;  // datasheet "sustained transfer rate" (max)
    uint64_t inner_bytes_per_s = 114'000'000;  // innermost zone
    // --- mechanics (datasheet figures: without command overhead, settling included) ------
    sim::Duration seek_track_to_track = sim::Duration::ns(230'000);  // single-track seek, read
    sim::Duration seek_average = sim::Duration::ns(7'400'000);       // weighted average, read
    sim::Duration seek_full_stroke = sim::Duration::ns(15'000'000);
    sim::Duration write_settle = sim::Duration::ns(90'000);  // extra settle before writing
    sim::Duration head_switch = sim::Duration::ns(230'000);  // switch surface, same cylinder
    sim::Duration cmd_overhead = sim::Duration::ns(100'000); // firmware time per media command
    // Firmware time of the commands the buffer answers: a read that hits, and a write
    // acknowledged into the write cache. Each has its own firmware path (DiskSim's six
    // measured drives put read-hit, write-hit and miss overheads 2-10x apart); the datasheets
    // give none of them, so the datasheet drive's default is cmd_overhead's figure.
    sim::Duration hit_overhead = sim::Duration::ns(100'000);
    sim::Duration write_ack_overhead = sim::Duration::ns(100'000);
    uint64_t link_bytes_per_s = 600'000'000;                 // SATA 6 Gb/s (8b/10b): 600 MB/s
    // --- command queue (NCQ) -----------------------------------------------------------
    uint32_t queue_depth = 32;  // NCQ depth = the tag set's depth (libata: ATA_MAX_QUEUE)
    enum class Sched : uint8_t { FIFO, RPO };
    Sched sched = Sched::RPO;   // rotational position optimisation: shortest positioning first
    // A command that has waited longer than this is served next, oldest first (the drive's
    // aging bound on RPO and the starvation guard of NCQ priority); 0 = no bound.
    sim::Duration max_wait = sim::Duration::ns(890'000'000);
    // Aged RPO (ASPTF, Jacobson & Wilkes 1991; Worthington, Ganger & Patt 1994): a host
    // command's positioning time less age_weight times how long it has waited, so the
    // longer a command waits the likelier it is chosen, gradually; max_wait stays the hard
    // bound. Dimensionless (ns of credit per ns waited); 0 = pure shortest positioning time
    // first. 0 by default: E4's measured drive shows the hard bound (its maximum latency sits
    // at the bound, 918 ms against 890), which a weight would pull in (docs/model.md).
    double age_weight = 0;
    // Commands chosen ahead: with 1 the firmware picks the next command when it starts the
    // current one (seek-ahead), so a command that arrives later waits for both.
    uint32_t sched_lookahead = 1;
    bool ncq_prio_supported = true;  // sysfs ncq_prio_supported (the drive's capability)
    bool ncq_prio_enable = false;    // sysfs ncq_prio_enable (kernel default 0)
    // --- on-drive cache ----------------------------------------------------------------
    uint32_t cache_mb = 256;        // buffer size, MiB
    uint32_t cache_segments = 16;   // read segments (LRU); each holds cache_mb / segments
    uint32_t read_ahead_kb = 512;   // prefetch after a sequential read (0 = off)
    // Prefetch a read that continues a stream (it starts where one of the segments ends)
    // gets even while other commands wait: the head reads on this far before it moves to
    // them, so each of several interleaved streams keeps its segment ahead of its reader
    // (SBC's caching mode page: MINIMUM PRE-FETCH, read "regardless of the delays it may
    // cause in processing subsequent commands"). Capped at one segment; 0 = off, the drive
    // prefetches only when the head has nothing else to do.
    uint32_t stream_read_ahead_kb = 512;
    bool write_cache = true;        // WCE: "write back" in sysfs cache_type
    // FUA writes (WRITE FPDMA QUEUED with the FUA bit): the drive writes that command through
    // to the media before acknowledging it. libata offers FUA to the block layer when the
    // drive supports it (libata.fua, on by default in current kernels).
    bool fua = true;
    // --- host side ---------------------------------------------------------------------
    uint32_t irq_cpu = 0;  // AHCI has one MSI vector: completions interrupt this CPU
    // --- a measured drive (DiskSim's descriptions, docs/disksim.md). All optional: left at
    // their defaults the datasheet model above applies as it is. ---------------------------
    // Explicit zones, skews, spare and slipped sectors and a seek table: replace size_bytes,
    // heads, zones, the rates and the seek figures (single-track seek stays the 1-cylinder
    // seek of the table, head_switch and write_settle are used as given).
    std::shared_ptr<const HddLayoutSpec> layout;
    sim::Duration sector_xfer;  // bus time per 512 B sector; 0 = from link_bytes_per_s
    // Command overheads by outcome and by the previous command's direction (index 0: after
    // a read, 1: after a write), replacing cmd_overhead when per_op_overheads is set.
    bool per_op_overheads = false;
    sim::Duration ovh_read_hit[2], ovh_read_miss[2], ovh_write_hit[2], ovh_write_miss[2];
    uint32_t segment_sectors = 0;   // cache segment size; 0 = cache_mb / cache_segments
    uint32_t write_segments = 1;    // with segment_sectors: segments dirty data may fill
    bool read_ahead_any = false;    // prefetch after every media read, not only sequential
    bool read_ahead_over_request = false;  // prefetch may push the request's data out of its segment
    // Prefetch only to the end of the track after the request (one track more when the
    // segment already held the track before: a sequential stream), DiskSim's scheme 4.
    bool read_ahead_track_end = false;
    bool read_hits_on_write_data = false;  // written data stays in a segment for reads
    // Zero-latency reads that keep what they pass: the sectors of the track that come under
    // the head before the requested ones, during the rotational wait, are cached too.
    bool read_free_blocks = false;
};

}  // namespace blksim::dev
