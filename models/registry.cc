#include "models/registry.h"

namespace blksim::registry {

namespace {

constexpr Param null_blk_params[] = {
    {"submit_queues", "1", "hardware queues (hctx), capped at the number of CPUs"},
    {"hw_queue_depth", "64", "driver tags per hardware queue (tag set queue_depth)"},
    {"irqmode", "1", "0 = complete inside ->queue_rq, 1 = softirq, 2 = hrtimer after completion_nsec"},
    {"completion_nsec", "10000", "service time with irqmode=2, in ns"},
    {"blocksize", "512", "logical block size in bytes"},
    {"gb", "250", "capacity in 10^9 bytes"},
    {"shared_tags", "0", "1 = share one tag set with the other shared_tags null_blk devices"},
    {"requeue_every", "0", "fault injection: every Nth ->queue_rq answers BLK_STS_RESOURCE"},
};

constexpr Param nvme_params[] = {
    {"nr_io_queues", "0", "queue pairs; 0 = one per CPU"},
    {"queue_depth", "1023", "tags per queue"},
    {"cmd_overhead", "1000", "controller ns per command (IOPS ceiling)"},
    {"read_latency", "80000", "ns of media time per read up to 4 KiB"},
    {"write_latency", "20000", "ns to buffer a write up to 4 KiB"},
    {"per_4k", "2000", "ns of media time per further 4 KiB"},
    {"parallel_units", "64", "flash units working at once"},
    {"link_mbps", "3200", "host transfer rate, MB/s"},
    {"gb", "1920", "capacity in 10^9 bytes"},
    {"blocksize", "512", "logical block size"},
};

constexpr Param hdd_params[] = {
    {"profile", "-", "a named profile, scenarios/devices/<name>.json (hdd-7200-sata); params override it"},
    {"gb / sectors", "7814037168 s", "capacity in 10^9 bytes, or in 512-byte sectors"},
    {"blocksize", "512", "logical block size"},
    {"rpm", "7200", "spindle speed"},
    {"heads", "8", "recording surfaces"},
    {"zones", "24", "recording zones; the media rate falls linearly from outer to inner"},
    {"outer_mbps", "227", "sustained media rate of the outer zone (LBA 0), MB/s"},
    {"inner_mbps", "114", "sustained media rate of the inner zone, MB/s"},
    {"seek_track_to_track", "230us", "single-track seek (the seek curve is fitted to the three figures)"},
    {"seek_average", "7400us", "datasheet weighted average seek"},
    {"seek_full_stroke", "15ms", "full-stroke seek"},
    {"write_settle", "90us", "extra settle before a write"},
    {"head_switch", "230us", "surface switch within a cylinder"},
    {"cmd_overhead", "100us", "firmware time per command finding the drive idle, per cache hit"},
    {"link_mbps", "600", "host interface, MB/s (SATA 6 Gb/s)"},
    {"queue_depth", "32", "NCQ depth (1..32)"},
    {"sched", "rpo", "rpo (shortest positioning time first) or fifo"},
    {"max_wait", "890ms", "aging bound / NCQ priority starvation guard; 0 = none"},
    {"sched_lookahead", "1", "1 = next command chosen when the current one starts"},
    {"ncq_prio_supported", "1", "the drive honours the NCQ PRIO bit"},
    {"ncq_prio_enable", "0", "sysfs ncq_prio_enable: ioprio class RT = high-priority command"},
    {"cache_mb", "256", "buffer, MiB (half may be dirty)"},
    {"cache_segments", "16", "read cache segments"},
    {"read_ahead_kb", "512", "prefetch after a sequential read"},
    {"write_cache", "1", "write back (WCE); 0 = write through"},
    {"irq_cpu", "0", "CPU of the drive's interrupt"},
    {"measured", "-", "a measured drive: zones, skews, slips, seek table, cache (import-disksim; docs/disksim.md)"},
};

constexpr Param sata_ssd_params[] = {
    {"profile", "-", "a named profile, scenarios/devices/<name>.json (samsung-860evo-500g); params override it"},
    {"gb / sectors", "976773168 s", "capacity in 10^9 bytes, or in 512-byte sectors"},
    {"blocksize", "512", "logical block size"},
    {"queue_depth", "32", "NCQ depth (1..32); the dispatch budget behind an HBA"},
    {"link_mbps", "550", "SATA 6 Gb/s after encoding and framing, MB/s; all data crosses it"},
    {"cmd_overhead", "10200", "controller ns per command, one at a time (the 4 KiB IOPS ceiling)"},
    {"write_overhead", "900", "extra controller ns per write"},
    {"channels", "8", "flash channels"},
    {"dies_per_channel", "2", "dies per channel; data striped page by page over all dies"},
    {"page_kb", "16", "flash page, KiB"},
    {"read_latency", "70us", "page read (tR), the die busy for it"},
    {"program_latency", "870us", "page program (tPROG): buffer drains at dies x page / tPROG / gc_waf"},
    {"buffer_mb", "22000", "write buffer (DRAM + SLC), 10^6 bytes: writes complete in it, wait when full"},
    {"buffer_write_mbps", "520", "rate write data enters the buffer"},
    {"gc_waf", "1", "steady-state garbage collection: write amplification multiplying program work"},
    {"read_ahead_kb", "256", "controller prefetch after a sequential read (0 = off)"},
    {"irq_cpu", "0", "CPU of the drive's interrupt"},
};
constexpr Param raid_params[] = {
    {"profile", "-", "a named profile, scenarios/devices/<name>.json (huawei-sas3508); params override it"},
    {"members", "-", "the disks behind it: hdd or sata_ssd entries with profile and params; a key of the device entry, beside params"},
    {"level", "raid0", "raid0, raid1, raid10 or raid5 (left-symmetric)"},
    {"strip_kb", "256", "per-member strip, KiB (a multiple of cache_line_kb)"},
    {"queue_depth", "256", "the VD's tags (megaraid_sas: sdev queue depth 256)"},
    {"nr_hw_queues", "0", "hctxs over host-wide tags, replies on the hctx's first CPU; 0 = one per CPU, 1 = one (irq_cpu)"},
    {"blocksize", "512", "logical block size"},
    {"fw_cores", "2", "firmware processors serving host commands in arrival order"},
    {"cmd_overhead", "10us", "firmware time per host command"},
    {"write_overhead", "1us", "extra firmware time per host write"},
    {"member_io_overhead", "3us", "firmware time per command sent to a member disk"},
    {"xor_per_kb", "50ns", "raid5 parity engine time per KiB"},
    {"link_mbps", "7880", "PCIe link to the host, MB/s (3.0 x8)"},
    {"cache_mb", "2048", "cache, MiB (battery/flash backed)"},
    {"cache_line_kb", "64", "cache line, KiB"},
    {"write_back", "1", "storcli wrcache=wb; 0 = write through"},
    {"read_ahead", "1", "storcli rdcache=ra; 0 = nora"},
    {"read_ahead_kb", "1024", "kept prefetched ahead of a sequential read stream"},
    {"dirty_pct", "50", "writes wait while this much of the cache is dirty"},
    {"destage_pct", "10", "destaging runs while this much is dirty"},
    {"flush_interval", "4s", "dirty data older than this is destaged"},
    {"member_queue_depth", "32", "commands the firmware keeps in each disk"},
    {"irq_cpu", "0", "CPU of the interrupt with one hctx"},
};

constexpr Entry device_table[] = {
    {"null_blk", "drivers/block/null_blk: no media, completes per irqmode; the calibration device",
     null_blk_params},
    {"nvme", "NVMe SSD: per-CPU queues, controller / parallel flash / link timelines, interrupts on the queue's CPU",
     nvme_params},
    {"hdd", "SATA hard disk: zoned geometry, fitted seek curve, rotation in time, NCQ with RPO/FIFO, NCQ priority, "
            "read-ahead and write-back cache", hdd_params},
    {"sata_ssd", "SATA SSD: NCQ 32, per-command controller time, channels x dies flash, write buffer draining at "
                 "the program rate / WAF, sequential read-ahead, 550 MB/s link", sata_ssd_params},
    {"raid", "hardware RAID controller (MegaRAID SAS3508 class) exporting one VD over member disks: firmware cores, "
             "LRU cache with read-ahead, write back with C-SCAN destage, RAID 0/1/10/5, megaraid_sas's hctxs",
     raid_params},
};

constexpr Param async_params[] = {
    {"iodepth", "1", "io_us in flight"},
    {"iodepth_batch_submit", "1", "io_us per submit call"},
    {"iodepth_batch_complete_min", "1", "completions to wait for when the queue is full"},
    {"iodepth_batch_complete_max", "= iodepth_batch_complete_min", "completions reaped per call"},
};

constexpr Entry engine_table[] = {
    {"psync", "pread/pwrite: one I/O in flight, the thread sleeps until it completes (aliases sync, pvsync)", {}},
    {"libaio", "Linux native AIO: io_submit / io_getevents with a user-space completion ring", async_params},
    {"io_uring", "io_uring: SQ/CQ rings, io_uring_enter to submit and to wait", async_params},
};

constexpr Param none_params[] = {
    {"nr_requests", "hw_queue_depth", "request slots (no elevator: the driver tag depth)"},
    {"max_sectors_kb", "1280", "largest request, KiB"},
    {"nomerges", "0", "0 all merges, 1 one-hit cache only, 2 none"},
    {"rq_affinity", "1", "1 complete in the submitter's LLC group, 2 force the submitting CPU"},
};

constexpr Param mq_deadline_params[] = {
    {"nr_requests", "2*min(depth,128)", "scheduler tags per hctx"},
    {"iosched/*", "see below", "the tunables, set in queues[].iosched by sysfs name"},
};

constexpr Param kyber_params[] = {
    {"nr_requests", "2*min(depth,128)", "scheduler tags per hctx"},
    {"domain depths", "256/128/64/16", "tokens of READ/WRITE/DISCARD/OTHER in flight, device-wide (kyber_depth)"},
    {"batch sizes", "16/8/1/1", "requests dispatched in a row per domain (kyber_batch_size)"},
    {"iosched/*", "see below", "the tunables, set in queues[].iosched by sysfs name"},
};

constexpr Param bfq_params[] = {
    {"nr_requests", "2*min(depth,128)", "scheduler tags per hctx"},
    {"weights", "(8-level)*10", "from the task's I/O priority (fio prioclass/prio): 80..10, default 40"},
    {"classes", "RT > BE > IDLE", "strict; IDLE served after 200 ms without service"},
    {"iosched/*", "see below", "the tunables, set in queues[].iosched by sysfs name"},
};

constexpr Entry scheduler_table[] = {
    {"none", "no elevator: direct issue to the driver when the hctx is idle, else the software queues",
     none_params},
    {"mq-deadline", "block/mq-deadline.c: per-priority sector-sorted and FIFO lists, batches, expiry, one lock",
     mq_deadline_params},
    {"kyber", "block/kyber-iosched.c: per-domain token pools, batches, latency targets, depths scaled "
              "every 100 ms from p90/p99 histograms",
     kyber_params},
    {"bfq", "block/bfq-iosched.c: per-process queues, budgets in sectors, B-WF2Q+ by weight, strict classes, "
            "idling for sync queues, budget feedback, weight raising (low_latency), one lock",
     bfq_params},
};

}  // namespace

std::span<const Entry> device_models() { return device_table; }
std::span<const Entry> io_engines() { return engine_table; }
std::span<const Entry> schedulers() { return scheduler_table; }

}  // namespace blksim::registry
