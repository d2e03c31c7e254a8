// The RAID controller model's parameters, apart from the model (raid_controller.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/device/device_kind.h"
#include "sim/time.h"

namespace blksim::dev {

// A disk behind a hardware RAID controller (models/device/raid_controller.h): invisible to
// Linux, driven by the controller's firmware. Its model is one that may be a member (hdd,
// sata_ssd).
struct RaidMember {
    std::string name;
    ModelParams model;
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

}  // namespace blksim::dev
