#include "tools/scenario/device_params.h"

#include <stdexcept>

#include "models/device/hdd_mechanics.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/scenario/scenario.h"

namespace blksim::scenario {

void ParamReader::check_irq_cpu(uint32_t cpu) const {
    if (cpu >= nr_cpus)
        rep.fail(child(ptr, "irq_cpu"), "CPU " + std::to_string(cpu) + " does not exist: the host has " +
                                            plural(nr_cpus, "CPU"));
}

dev::NullBlkConfig decode_null_blk(const ParamReader& r) {
    const json& p = r.p;
    dev::NullBlkConfig c;
    if (p.contains("irqmode")) c.irqmode = static_cast<dev::NullBlkConfig::IrqMode>(p["irqmode"].get<int>());
    r.time("completion_nsec", c.completion_nsec);
    r.u32("hw_queue_depth", c.hw_queue_depth);
    r.u32("submit_queues", c.submit_queues);
    r.u32("blocksize", c.blocksize);
    if (p.contains("gb")) c.size_bytes = p["gb"].get<uint64_t>() * kNullBlkGb;
    r.u32("requeue_every", c.requeue_every);
    r.flag("shared_tags", c.shared_tags);
    r.flag("shared_tag_bitmap", c.shared_tag_bitmap);
    r.flag("memory_backed", c.memory_backed);
    if (p.contains("cache_size")) c.cache_size_mb = p["cache_size"].get<uint64_t>();
    r.flag("fua", c.fua);
    return c;
}

dev::NvmeConfig decode_nvme(const ParamReader& r) {
    const json& p = r.p;
    dev::NvmeConfig c;
    r.u32("nr_io_queues", c.nr_io_queues);
    r.u32("queue_depth", c.queue_depth);
    r.time("cmd_overhead", c.cmd_overhead);
    r.time("read_latency", c.read_latency);
    r.time("write_latency", c.write_latency);
    r.time("per_4k", c.per_4k);
    r.u32("parallel_units", c.parallel_units);
    r.mbps("link_mbps", c.link_bytes_per_s);
    if (p.contains("gb")) c.size_bytes = p["gb"].get<uint64_t>() * kNullBlkGb;
    r.u32("blocksize", c.blocksize);
    r.flag("volatile_write_cache", c.volatile_write_cache);
    r.flag("fua", c.fua);
    r.time("flush_latency", c.flush_latency);
    r.time("program_latency", c.program_latency);
    return c;
}

// The HDD model's parameters (models/device/hdd_config.h): datasheet figures in fio's
// value syntax ("7400us"), checked against each other by building the mechanics.
dev::HddConfig decode_hdd(const ParamReader& r) {
    const json& p = r.p;
    dev::HddConfig c;
    if (p.contains("gb")) c.size_bytes = p["gb"].get<uint64_t>() * kNullBlkGb;
    if (p.contains("sectors")) c.size_bytes = p["sectors"].get<uint64_t>() * 512;
    r.u32("blocksize", c.blocksize);
    r.u32("rpm", c.rpm);
    r.u32("heads", c.heads);
    r.u32("zones", c.zones);
    if (p.contains("outer_mbps")) c.outer_bytes_per_s = p["outer_mbps"].get<uint64_t>() * 1'000'000;
    if (p.contains("inner_mbps")) c.inner_bytes_per_s = p["inner_mbps"].get<uint64_t>() * 1'000'000;
    r.time("seek_track_to_track", c.seek_track_to_track);
    r.time("seek_average", c.seek_average);
    r.time("seek_full_stroke", c.seek_full_stroke);
    r.time("write_settle", c.write_settle);
    r.time("head_switch", c.head_switch);
    r.time("cmd_overhead", c.cmd_overhead);
    if (p.contains("link_mbps")) c.link_bytes_per_s = p["link_mbps"].get<uint64_t>() * 1'000'000;
    r.u32("queue_depth", c.queue_depth);
    if (p.contains("sched")) c.sched = p["sched"] == "fifo" ? dev::HddConfig::Sched::FIFO : dev::HddConfig::Sched::RPO;
    r.time("max_wait", c.max_wait);
    r.u32("sched_lookahead", c.sched_lookahead);
    r.flag("ncq_prio_supported", c.ncq_prio_supported);
    r.flag("ncq_prio_enable", c.ncq_prio_enable);
    r.u32("cache_mb", c.cache_mb);
    r.u32("cache_segments", c.cache_segments);
    r.u32("read_ahead_kb", c.read_ahead_kb);
    r.flag("write_cache", c.write_cache);
    r.flag("fua", c.fua);
    r.u32("irq_cpu", c.irq_cpu);
    if (p.contains("measured")) {  // a measured drive's description (docs/disksim.md)
        try {
            disksim::apply_measured(p["measured"], r.rep.file(), child(r.ptr, "measured"), c);
        } catch (const disksim::DisksimError& e) {
            throw ScenarioError(e.what());
        }
    }
    if (c.ncq_prio_enable && !c.ncq_prio_supported)
        r.rep.fail(child(r.ptr, p.contains("ncq_prio_enable") ? "ncq_prio_enable" : "ncq_prio_supported"),
                   "ncq_prio_enable=1 on a drive without NCQ priority (ncq_prio_supported=0): the kernel refuses it");
    r.check_irq_cpu(c.irq_cpu);
    if (c.size_bytes < (1ULL << 30))
        r.rep.fail(r.ptr, "an HDD needs at least 1 GiB (gb or sectors)");
    try {
        const dev::HddMechanics mech(c);  // the figures must describe a drive
    } catch (const std::invalid_argument& e) {
        std::string msg = e.what();
        if (msg.starts_with("hdd: ")) msg = msg.substr(5);
        r.rep.fail(r.ptr, msg);
    }
    return c;
}

// The SATA SSD model's parameters (models/device/sata_ssd_config.h): datasheet figures,
// times in fio's value syntax ("70us"), rates in MB/s (10^6 bytes).
dev::SataSsdConfig decode_sata_ssd(const ParamReader& r) {
    const json& p = r.p;
    dev::SataSsdConfig c;
    if (p.contains("gb")) c.size_bytes = p["gb"].get<uint64_t>() * kNullBlkGb;
    if (p.contains("sectors")) c.size_bytes = p["sectors"].get<uint64_t>() * 512;
    r.u32("blocksize", c.blocksize);
    r.u32("queue_depth", c.queue_depth);
    r.mbps("link_mbps", c.link_bytes_per_s);
    r.time("cmd_overhead", c.cmd_overhead);
    r.time("write_overhead", c.write_overhead);
    r.u32("channels", c.channels);
    r.u32("dies_per_channel", c.dies_per_channel);
    r.u32("page_kb", c.page_kb);
    r.time("read_latency", c.read_latency);
    r.time("program_latency", c.program_latency);
    if (p.contains("buffer_mb")) c.buffer_bytes = p["buffer_mb"].get<uint64_t>() * 1'000'000;
    r.mbps("buffer_write_mbps", c.buffer_write_bytes_per_s);
    if (p.contains("gc_waf")) c.gc_waf = p["gc_waf"].get<double>();
    r.u32("read_ahead_kb", c.read_ahead_kb);
    r.u32("irq_cpu", c.irq_cpu);
    r.flag("write_cache", c.write_cache);
    r.flag("fua", c.fua);
    r.time("flush_latency", c.flush_latency);
    if (c.queue_depth < 1 || c.queue_depth > 32)
        r.rep.fail(child(r.ptr, "queue_depth"), "NCQ depth must be 1..32, got " + std::to_string(c.queue_depth));
    if (!(c.gc_waf >= 1.0) || c.gc_waf > 100.0)
        r.rep.fail(child(r.ptr, "gc_waf"), "write amplification factor must be 1..100 (1 = no garbage collection)");
    if (c.program_latency.count() <= 0)
        r.rep.fail(child(r.ptr, "program_latency"), "program_latency must be > 0 (the buffer drains at dies x page / program_latency)");
    r.check_irq_cpu(c.irq_cpu);
    if (c.size_bytes < (1ULL << 30))
        r.rep.fail(r.ptr, "a SATA SSD needs at least 1 GiB (gb or sectors)");
    return c;
}

// A hardware RAID controller's parameters (models/device/device_config.h RaidConfig).
dev::RaidConfig decode_raid(const ParamReader& r) {
    const json& p = r.p;
    dev::RaidConfig c;
    if (p.contains("level")) {
        const std::string l = p["level"].get<std::string>();
        c.level = l == "raid1" ? dev::RaidConfig::Level::RAID1 : l == "raid10" ? dev::RaidConfig::Level::RAID10
                : l == "raid5" ? dev::RaidConfig::Level::RAID5 : dev::RaidConfig::Level::RAID0;
    }
    r.u32("strip_kb", c.strip_kb);
    r.u32("queue_depth", c.queue_depth);
    r.u32("blocksize", c.blocksize);
    r.u32("fw_cores", c.fw_cores);
    r.time("cmd_overhead", c.cmd_overhead);
    r.time("write_overhead", c.write_overhead);
    r.time("member_io_overhead", c.member_io_overhead);
    r.time("xor_per_kb", c.xor_per_kb);
    r.mbps("link_mbps", c.link_bytes_per_s);
    r.u32("cache_mb", c.cache_mb);
    r.u32("cache_line_kb", c.cache_line_kb);
    r.flag("write_back", c.write_back);
    r.flag("read_ahead", c.read_ahead);
    r.u32("read_ahead_kb", c.read_ahead_kb);
    r.u32("dirty_pct", c.dirty_pct);
    r.u32("destage_pct", c.destage_pct);
    r.time("flush_interval", c.flush_interval);
    r.u32("member_queue_depth", c.member_queue_depth);
    r.u32("nr_hw_queues", c.nr_hw_queues);
    r.u32("irq_cpu", c.irq_cpu);
    r.check_irq_cpu(c.irq_cpu);
    if (c.flush_interval.count() <= 0)
        r.rep.fail(child(r.ptr, "flush_interval"), "flush_interval must be > 0");
    return c;
}

}  // namespace blksim::scenario
