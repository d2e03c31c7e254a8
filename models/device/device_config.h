// Typed device configuration. One struct per device model; the loader fills the one the
// scenario names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/device/hdd_config.h"
#include "models/device/sata_ssd_config.h"
#include "sim/time.h"

namespace blksim::dev {

// null_blk module parameters (drivers/block/null_blk/main.c), kernel defaults.
struct NullBlkConfig {
    enum class IrqMode : uint8_t { NONE = 0, SOFTIRQ = 1, TIMER = 2 };
    uint32_t submit_queues = 1;        // hctx count (capped at nr_cpus)
    uint32_t hw_queue_depth = 64;      // tag set queue_depth per hctx
    IrqMode irqmode = IrqMode::SOFTIRQ;
    sim::Duration completion_nsec = sim::Duration::ns(10000);  // only for irqmode=2
    uint32_t blocksize = 512;          // logical block size, bytes
    uint64_t size_bytes = 250ULL * 1000 * 1000 * 1000;  // gb=250 (null_blk counts GB as 10^9)
    bool shared_tags = false;          // all null_blk devices with shared_tags share one tag set
    bool shared_tag_bitmap = false;    // host-wide tags: one space for all submit_queues (HCTX_SHARED)
    // Fault injection, a simplification of null_blk's `requeue` attribute (its
    // interval,probability,space,times reduced to the interval): every Nth ->queue_rq is
    // refused, alternately with BLK_STS_RESOURCE and by blk_mq_requeue_request, as
    // null_queue_rq alternates (0 = never).
    uint32_t requeue_every = 0;
    // memory_backed: store the data (a simulation stores none: accepted, no effect on timing).
    // cache_size (MiB): null_blk's write cache in front of it; with cache_size > 0 the device
    // declares a volatile write cache (and FUA when `fua`, null_blk's default 1), so flushes
    // and FUA reach it; 0 (the default): no write cache, flushes end in the block layer.
    bool memory_backed = false;
    uint64_t cache_size_mb = 0;
    bool fua = true;
};

// A datacenter NVMe SSD, first model (the device issue refines it): a controller front
// end that takes commands one at a time, flash units working in parallel, and a host link
// that moves the data. Each is a timeline; no per-unit events.
struct NvmeConfig {
    uint32_t nr_io_queues = 0;         // submission/completion queue pairs; 0 = one per CPU
    uint32_t queue_depth = 1023;       // per queue (MQES + 1 as Linux uses it)
    sim::Duration cmd_overhead = sim::Duration::ns(1000);     // controller time per command
    sim::Duration read_latency = sim::Duration::ns(80000);    // media time of a read (up to 4 KiB)
    sim::Duration write_latency = sim::Duration::ns(20000);   // write into the controller's buffer
    sim::Duration per_4k = sim::Duration::ns(2000);           // media time per further 4 KiB
    uint32_t parallel_units = 64;      // flash dies/planes busy at once
    uint64_t link_bytes_per_s = 3'200'000'000;  // host transfer rate (PCIe link / controller)
    uint64_t size_bytes = 1'920'000'000'000;    // 1.92 TB
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
    sim::Duration program_latency = sim::Duration::ns(200'000);
};

enum class DeviceModel : uint8_t { NULL_BLK, NVME, HDD, SATA_SSD, RAID };

// A disk behind a hardware RAID controller (models/device/raid_controller.h): invisible to
// Linux, driven by the controller's firmware.
struct RaidMember {
    std::string name;
    DeviceModel model = DeviceModel::HDD;  // HDD or SATA_SSD
    HddConfig hdd;
    SataSsdConfig sata_ssd;
};

// A hardware RAID controller (LSI/Broadcom MegaRAID SAS3508 class) exporting one virtual
// drive. Defaults: scenarios/devices/huawei-sas3508.json (its "source" says where from).
struct RaidConfig {
    enum class Level : uint8_t { RAID0, RAID1, RAID10, RAID5 };
    Level level = Level::RAID0;
    uint32_t strip_kb = 256;           // per-member strip ("strip size" in storcli)
    // The virtual drive as the SCSI disk sees it: its queue depth is the tag set depth
    // (megaraid_sas sets a VD's sdev->queue_depth to 256; the host's ~5000 tags are not
    // the limit for one VD).
    uint32_t queue_depth = 256;
    uint32_t blocksize = 512;
    // Firmware: `fw_cores` processors take host commands in arrival order; each host
    // command costs cmd_overhead (+ write_overhead for a write), each command the firmware
    // sends to a member disk member_io_overhead.
    uint32_t fw_cores = 2;
    sim::Duration cmd_overhead = sim::Duration::ns(10'000);
    sim::Duration write_overhead = sim::Duration::ns(1'000);
    sim::Duration member_io_overhead = sim::Duration::ns(3'000);
    sim::Duration xor_per_kb = sim::Duration::ns(50);  // RAID 5 parity engine
    uint64_t link_bytes_per_s = 7'880'000'000;          // PCIe 3.0 x8 to the host
    // Cache (DDR on the card, battery/flash backed).
    uint32_t cache_mb = 2048;
    uint32_t cache_line_kb = 64;
    bool write_back = true;            // storcli wrcache=wb (else wt: ack after the disks)
    bool read_ahead = true;            // storcli rdcache=ra (else nora)
    uint32_t read_ahead_kb = 1024;     // how far ahead of a sequential stream it reads
    uint32_t dirty_pct = 50;           // writes wait while this much of the cache is dirty
    uint32_t destage_pct = 10;         // destaging runs while this much is dirty ...
    sim::Duration flush_interval = sim::Duration::ns(4'000'000'000);  // ... or dirty data is this old
    uint32_t member_queue_depth = 32;  // commands the firmware keeps in each disk
    // Hardware queues the driver registers. megaraid_sas since 5.11 (host_tagset_enable=1,
    // smp_affinity_enable=1) gives the host one hctx per MSI-X reply queue, about one per
    // CPU, all drawing on one host-wide tag space (BLK_MQ_F_TAG_HCTX_SHARED); each reply
    // queue interrupts a CPU of its hctx. 1 = one hctx and one interrupt vector on irq_cpu
    // (host_tagset_enable=0, or kernels before 5.11). 0 (the default) = one per CPU.
    uint32_t nr_hw_queues = 0;
    uint32_t irq_cpu = 0;
    std::vector<RaidMember> members;
};

struct DeviceConfig {
    std::string name;         // e.g. "nullb0"
    std::string controller;   // the HBA / expander it sits behind; "" = directly on the host
    DeviceModel model = DeviceModel::NULL_BLK;
    NullBlkConfig null_blk;
    NvmeConfig nvme;
    HddConfig hdd;
    SataSsdConfig sata_ssd;
    RaidConfig raid;
};

}  // namespace blksim::dev
