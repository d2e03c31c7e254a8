#include "test/invariants/random_scenario.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/random.h"
#include "tools/scenario/scenario.h"

namespace blksim::invsearch {

using json = nlohmann::json;

namespace {

// The draws, named for what they mean. sim::Rng rather than <random>'s distributions, whose
// results differ between standard libraries: a seed must name the same scenario everywhere.
class Draw {
public:
    explicit Draw(uint64_t seed) : rng_(seed, "invariant-search") {}
    bool chance(double p) { return rng_.uniform() < p; }
    uint64_t range(uint64_t lo, uint64_t hi) { return lo + rng_.below(hi - lo + 1); }
    template <typename T>
    T pick(std::initializer_list<T> list) {
        return *(list.begin() + rng_.below(list.size()));
    }
    template <typename T>
    const T& pick(const std::vector<T>& v) {
        return v[rng_.below(v.size())];
    }

private:
    sim::Rng rng_;
};

// What the job generator must know about a device: its name and logical block size (a
// block size that is not a multiple of it is refused) and whether it is a disk a flush
// or FUA write reaches.
struct DeviceInfo {
    std::string name;
    uint32_t lbs = 512;
};

std::vector<std::string> profiles_of(const std::string& model) {
    std::vector<std::string> out;
    for (const auto& p : scenario::device_profiles())
        if (p.model == model)
            out.push_back(p.name);
    return out;
}

// A duration as the loader reads it, in microseconds.
std::string us(uint64_t v) { return std::to_string(v) + "us"; }

// Small and extreme values alike: depths of 1 and 2 are where tag and budget starvation
// live, the large ones where queues overflow.
uint32_t depth(Draw& d, std::initializer_list<uint32_t> extremes, uint32_t lo, uint32_t hi) {
    return d.chance(0.5) ? d.pick(extremes) : static_cast<uint32_t>(d.range(lo, hi));
}

// null_blk devices with shared_tags=1 share one tag set, so they must agree on its shape:
// the first one that asks for it sets these keys for the others.
constexpr const char* kSharedTagKeys[] = {"submit_queues", "hw_queue_depth", "shared_tag_bitmap"};

json null_blk_params(Draw& d, uint32_t cpus, DeviceInfo& info, json& shared_tag_set) {
    json p = json::object();
    // irqmode: inline completion (0), softirq (1) or a timer (2): three completion paths.
    p["irqmode"] = d.pick({0, 1, 2});
    if (p["irqmode"] == 2)
        p["completion_nsec"] = d.pick({0, 1000, 10000, 200000, 1000000});
    p["hw_queue_depth"] = depth(d, {1, 2, 4, 64, 1024}, 1, 256);
    p["submit_queues"] = d.range(1, cpus + 1);
    if (d.chance(0.2)) {
        info.lbs = d.pick({512u, 1024u, 2048u, 4096u});
        p["blocksize"] = info.lbs;
    }
    if (d.chance(0.2))
        p["shared_tag_bitmap"] = 1;  // host-wide tags over the hctxs
    if (d.chance(0.2)) {
        p["shared_tags"] = 1;        // one tag set for every null_blk that asks
        if (shared_tag_set.is_null()) {
            shared_tag_set = json::object();
            for (const char* k : kSharedTagKeys)
                shared_tag_set[k] = p.value(k, json());
        } else {
            for (const char* k : kSharedTagKeys) {
                p.erase(k);
                if (!shared_tag_set[k].is_null())
                    p[k] = shared_tag_set[k];
            }
        }
    }
    // A write cache makes flushes and FUA reach the driver instead of ending in the block layer.
    if (d.chance(0.3)) {
        p["cache_size"] = d.pick({1, 16, 1024});
        p["fua"] = d.pick({0, 1});
    }
    if (d.chance(0.15))
        p["requeue_every"] = d.range(2, 40);  // the driver's BLK_STS_RESOURCE / requeue paths
    return p;
}

// A loop device over a file in memory: its worker is a task on the host's CPUs, woken where
// the scheduler puts it (host.shared_llc) and competing with the job threads.
json loop_params(Draw& d, DeviceInfo& info) {
    json p = json::object();
    p["hw_queue_depth"] = depth(d, {1, 2, 128}, 1, 256);
    if (d.chance(0.3)) {
        info.lbs = d.pick({512u, 4096u});
        p["blocksize"] = info.lbs;
    }
    p["cmd_cost"] = d.pick({0, 500, 5000});
    p["copy_mbps"] = d.pick({100, 4000, 100000});
    return p;
}

json nvme_params(Draw& d, DeviceInfo& info) {
    json p = json::object();
    if (d.chance(0.5)) {
        p["volatile_write_cache"] = 1;
        p["fua"] = d.pick({0, 1});
        p["flush_latency"] = us(d.pick({1, 50, 500}));
    }
    p["nr_io_queues"] = d.range(0, 3);
    if (d.chance(0.5))
        p["queue_depth"] = depth(d, {1, 2, 4, 1023}, 1, 128);
    if (d.chance(0.3))
        p["link_mbps"] = d.pick({100, 3200, 16000});
    if (d.chance(0.2)) {
        info.lbs = 4096;
        p["blocksize"] = 4096;
    }
    if (d.chance(0.2))
        p["parallel_units"] = d.pick({1, 4, 64});
    return p;
}

// Parameters shared by the two SATA/SAS disk models: the write cache and FUA decide what a
// flush costs, the NCQ depth is the tag set (or, behind an HBA, the dispatch budget).
void disk_cache_params(Draw& d, json& p, uint32_t max_qd) {
    if (d.chance(0.6))
        p["write_cache"] = d.pick({0, 1});
    if (d.chance(0.4))
        p["fua"] = d.pick({0, 1});
    if (d.chance(0.5))
        p["queue_depth"] = depth(d, {1, 2, max_qd}, 1, max_qd);
}


// A disk's sector size (4Kn draws 4 KiB logical blocks) and the CPU its interrupts go to.
void disk_sector_and_irq_params(Draw& d, json& p, uint32_t cpus, DeviceInfo& info) {
    if (d.chance(0.1)) {
        info.lbs = 4096;
        p["blocksize"] = 4096;
    }
    if (d.chance(0.2))
        p["irq_cpu"] = d.range(0, cpus - 1);
}

json hdd_params(Draw& d, uint32_t cpus, DeviceInfo& info) {
    json p = json::object();
    disk_cache_params(d, p, 32);
    if (d.chance(0.3))
        p["sched"] = d.pick({"rpo", "fifo"});
    if (d.chance(0.2))
        p["link_mbps"] = d.pick({150, 300, 600, 1200});
    if (d.chance(0.2))
        p["read_ahead_kb"] = d.pick({0, 64, 512});
    if (d.chance(0.2))
        p["cache_mb"] = d.pick({1, 8, 256});
    if (d.chance(0.1)) {  // libata's NCQ priority; enabling it needs a drive that supports it
        p["ncq_prio_supported"] = 1;
        p["ncq_prio_enable"] = 1;
    }
    disk_sector_and_irq_params(d, p, cpus, info);
    return p;
}

json sata_ssd_params(Draw& d, uint32_t cpus, DeviceInfo& info) {
    json p = json::object();
    disk_cache_params(d, p, 32);
    if (d.chance(0.2))
        p["link_mbps"] = d.pick({150, 300, 550});
    if (d.chance(0.3))
        p["buffer_mb"] = d.pick({1, 16, 1000});  // a small buffer makes writes wait for the flash
    if (d.chance(0.2)) {
        p["gc_waf"] = d.pick({1, 3});
        if (p["gc_waf"] != 1)
            p["free_pool_gc"] = false;  // the constant factor replaces the free-block pool
    }
    if (d.chance(0.2))
        p["read_ahead_kb"] = d.pick({0, 256});
    disk_sector_and_irq_params(d, p, cpus, info);
    return p;
}

// A RAID card's virtual drive: every level with its legal member count, write back or
// through (the card's cache, destaging), members of both disk models.
json raid_device(Draw& d, const std::string& name, DeviceInfo& info) {
    json dev = {{"name", name}, {"model", "raid"}};
    const auto raid_profiles = profiles_of("raid");
    if (!raid_profiles.empty() && d.chance(0.7))
        dev["profile"] = d.pick(raid_profiles);
    json p = json::object();
    const std::string level = d.pick({"raid0", "raid1", "raid10", "raid5"});
    p["level"] = level;
    const uint64_t members = level == "raid1" ? 2 : level == "raid10" ? 4 : level == "raid5" ? d.range(3, 4) : d.range(1, 3);
    p["cache_mb"] = d.pick({4, 16, 256});  // 4 MiB: the smallest that holds 64 lines of 64 KiB
    p["write_back"] = d.pick({0, 1});
    if (d.chance(0.3))
        p["read_ahead"] = 0;
    if (d.chance(0.4))
        p["queue_depth"] = depth(d, {1, 2, 256}, 1, 64);
    if (d.chance(0.3))
        p["member_queue_depth"] = d.pick({1, 2, 32});
    p["nr_hw_queues"] = d.range(0, 2);
    if (d.chance(0.1)) {
        info.lbs = 4096;
        p["blocksize"] = 4096;
    }
    dev["params"] = p;
    const auto hdds = profiles_of("hdd"), ssds = profiles_of("sata_ssd");
    json ms = json::array();
    for (uint64_t i = 0; i < members; ++i) {
        const bool ssd = d.chance(0.3);
        json m = {{"model", ssd ? "sata_ssd" : "hdd"}};
        const auto& profiles = ssd ? ssds : hdds;
        if (!profiles.empty() && d.chance(0.7))
            m["profile"] = d.pick(profiles);
        if (d.chance(0.3))
            m["params"] = {{"write_cache", d.pick({0, 1})}};
        ms.push_back(m);
    }
    dev["members"] = ms;
    return dev;
}

// A device of a random model; `hba` non-empty puts a SCSI disk behind that controller.
json random_device(Draw& d, const std::string& name, uint32_t cpus, const std::string& hba, DeviceInfo& info,
                   json& shared_tag_set) {
    info.name = name;
    const std::string model = d.pick({"null_blk", "nvme", "hdd", "sata_ssd", "raid", "loop"});
    if (model == "raid")
        return raid_device(d, name, info);
    json dev = {{"name", name}, {"model", model}};
    // Named profiles (the DiskSim-measured HDDs among them) carry figures no default has.
    const auto profiles = profiles_of(model);
    if (!profiles.empty() && d.chance(0.6))
        dev["profile"] = d.pick(profiles);
    json p = model == "null_blk" ? null_blk_params(d, cpus, info, shared_tag_set)
           : model == "nvme"     ? nvme_params(d, info)
           : model == "loop"     ? loop_params(d, info)
           : model == "hdd"      ? hdd_params(d, cpus, info)
                                 : sata_ssd_params(d, cpus, info);
    if (!p.empty())
        dev["params"] = p;
    if (!hba.empty() && (model == "hdd" || model == "sata_ssd"))
        dev["controller"] = hba;
    return dev;
}

// The scheduler tunables at the ends of their ranges: async_depth 1, fifo_batch 1,
// writes_starved negative (never forces writes), zero expiries, kyber targets of 1 ns,
// bfq without idling or with strict guarantees.
json iosched(Draw& d, const std::string& sched) {
    json t = json::object();
    if (sched == "mq-deadline") {
        if (d.chance(0.4)) t["async_depth"] = d.pick({0, 1, 2, 3, 64});
        if (d.chance(0.3)) t["fifo_batch"] = d.pick({0, 1, 2, 16});
        if (d.chance(0.3)) t["writes_starved"] = d.pick({-1, 0, 1, 2, 1000});
        if (d.chance(0.2)) t["read_expire"] = d.pick({0, 1, 500});
        if (d.chance(0.2)) t["write_expire"] = d.pick({0, 1, 5000});
        if (d.chance(0.2)) t["prio_aging_expire"] = d.pick({0, 1, 10000});
        if (d.chance(0.2)) t["front_merges"] = d.pick({0, 1});
        if (d.chance(0.1)) t["hz"] = d.pick({100, 250, 1000});
        // The seed patches' variants (E1, E3) are tunables of the same scheduler.
        if (d.chance(0.1)) t["nr_sched_batch"] = d.pick({1, 2, 64});
        if (d.chance(0.1)) t["head_on_wrap"] = 1;
        if (d.chance(0.1)) t["next_rq"] = 1;
        if (d.chance(0.1)) {
            t["direct_dispatch"] = 1;
            t["direct_dispatch_if_empty"] = d.pick({0, 1});
            t["direct_dispatch_if_no_higher_prio"] = d.pick({0, 1});
            t["direct_dispatch_if_hctx_idle"] = d.pick({0, 1});
        }
    } else if (sched == "kyber") {
        if (d.chance(0.4)) t["read_lat_nsec"] = d.pick<int64_t>({0, 1, 1000, 2000000, 1000000000});
        if (d.chance(0.4)) t["write_lat_nsec"] = d.pick<int64_t>({0, 1, 10000000, 1000000000});
        if (d.chance(0.1)) t["hz"] = d.pick({100, 1000});
    } else if (sched == "bfq") {
        if (d.chance(0.4)) {
            if (d.chance(0.5)) t["slice_idle"] = d.pick({0, 1, 8});
            else t["slice_idle_us"] = d.pick({0, 1, 100});
        }
        if (d.chance(0.3)) t["low_latency"] = d.pick({0, 1});
        if (d.chance(0.2)) t["strict_guarantees"] = 1;
        if (d.chance(0.2)) t["max_budget"] = d.pick({0, 1, 16, 16384});
        if (d.chance(0.2)) t["timeout_sync"] = d.pick({1, 125});
        if (d.chance(0.2)) t["fifo_expire_sync"] = d.pick({1, 125});
        if (d.chance(0.2)) t["back_seek_max"] = d.pick({0, 16384});
        if (d.chance(0.1)) t["back_seek_penalty"] = d.pick({1, 2});
        if (d.chance(0.1)) t["hz"] = d.pick({100, 1000});
    }
    return t;
}

// A request queue: scheduler and its tags (nr_requests 1 is a single scheduler tag), limits
// that split bios (max_sectors_kb 4, max_segments 1), merging off, completion placement.
json random_queue(Draw& d, const std::string& device) {
    json q = {{"device", device}};
    const std::string sched = d.pick({"none", "mq-deadline", "kyber", "bfq"});
    q["scheduler"] = sched;
    if (d.chance(0.3)) q["nr_requests"] = d.pick({0, 1, 2, 4, 64, 2048});
    if (d.chance(0.3)) q["max_sectors_kb"] = d.pick({4, 8, 64, 1280, 4096});
    if (d.chance(0.2)) q["max_segments"] = d.pick({1, 4, 128});
    if (d.chance(0.3)) q["nomerges"] = d.pick({0, 1, 2});
    if (d.chance(0.2)) q["rq_affinity"] = d.pick({0, 1, 2});
    if (json t = iosched(d, sched); !t.empty())
        q["iosched"] = t;
    return q;
}

// Block sizes from one sector to 4 MiB (larger than any max_sectors_kb but the largest, so
// bios are split), kept a multiple of the device's logical block size.
std::string block_size(Draw& d, uint32_t lbs) {
    for (;;) {
        const uint64_t bs = d.pick<uint64_t>({512, 1024, 4096, 8192, 16384, 65536, 131072, 1 << 20, 4 << 20});
        if (bs % lbs == 0)
            return std::to_string(bs);
    }
}

// The job options drawn after the rest (so that each seed's earlier draws stay as they were
// before these existed).
void job_extras(Draw& d, json& j, const std::string& engine, bool writes, bool trims) {
    // Where random offsets fall, mixed block sizes, and verify's checksums and read-back.
    if (!trims && d.chance(0.1))
        j["random_distribution"] = d.pick({"zipf:1.2", "pareto:0.3", "normal:10", "random"});
    if (!trims && d.chance(0.1)) {
        j.erase("bsrange");
        j.erase("bs");
        j["bssplit"] = d.pick({"4k/50:64k/50", "4k/90:1m/10", "8k"});
    }
    if (writes && !trims && d.chance(0.08))
        j["verify"] = d.pick({"crc32c", "md5"});
    // A job that ends on its size or I/O count rather than the clock (the runtime stays a
    // cap), and one region per thread.
    if (d.chance(0.15)) {
        j.erase("time_based");
        const int end = static_cast<int>(d.range(0, 2));
        if (end == 0) j["size"] = d.pick({"8m", "64m"});  // at least the largest bs (4 MiB)
        else if (end == 1) j["io_size"] = d.pick({"8m", "32m"});
        else j["number_ios"] = d.pick({1, 7, 300});
    }
    if (d.chance(0.1)) {
        j["offset"] = d.pick({"0", "1m", "10%"});
        j["offset_increment"] = d.pick({"1m", "4m"});  // 16 threads x 4 MiB stay on a 1 GiB device
    }
    if (j.contains("rate_iops") && d.chance(0.3))
        j["rate_process"] = "poisson";
    // io_uring's SQ polling thread (its own task, submitting from its CPU and sleeping for
    // tags as a job does) and polled completion.
    if (engine == "io_uring") {
        if (d.chance(0.2)) j["sqthread_poll"] = 1;
        if (d.chance(0.1)) j["hipri"] = 1;
    }
}

json random_job(Draw& d, const std::string& name, const DeviceInfo& dev, uint32_t max_threads) {
    json j = {{"name", name}, {"device", dev.name}};
    // The three engine families: psync (one I/O per syscall), libaio and io_uring (a ring
    // of iodepth, with batched submission and reaping).
    const std::string engine = d.pick({"psync", "libaio", "io_uring"});
    j["ioengine"] = engine;
    const bool async = engine != "psync";
    if (async) {
        const uint64_t qd = d.chance(0.3) ? d.pick<uint64_t>({1, 2, 256}) : d.range(1, 64);
        j["iodepth"] = qd;
        if (d.chance(0.3)) j["iodepth_batch_submit"] = d.range(1, std::min<uint64_t>(qd, 8));
        if (d.chance(0.3)) j["iodepth_batch_complete_min"] = d.range(0, std::min<uint64_t>(qd, 4));
    }
    std::string rw = d.pick({"read", "write", "randread", "randwrite", "rw", "randrw"});
    // Discards: trims alone, or each block trimmed then written (a device without discard
    // support fails them, as the kernel does with -EOPNOTSUPP).
    if (d.chance(0.1))
        rw = d.pick({"trim", "randtrim", "trimwrite", "randtrimwrite"});
    j["rw"] = rw;
    // What blksim keeps per read/write direction only is refused with trims (rate caps,
    // cmdprio, fsync: decode_jobs.cc's check_trim_job()).
    const bool trims = rw.find("trim") != std::string::npos;
    if ((rw == "rw" || rw == "randrw") && d.chance(0.7))
        j["rwmixread"] = d.pick({0, 1, 50, 90, 99, 100});
    j["direct"] = 1;
    if (d.chance(0.15))
        j["bsrange"] = std::to_string(dev.lbs) + "-" + std::to_string(std::max<uint32_t>(dev.lbs, 65536));
    else
        j["bs"] = block_size(d, dev.lbs);
    // The flush machinery: fsync/fdatasync every N writes, O_SYNC (FUA where the device
    // offers it, else a flush after each write), a final fsync.
    const bool writes = rw != "read" && rw != "randread";
    if (writes && !trims && d.chance(0.35)) {
        const std::string opt = d.pick({"fsync", "fdatasync", "sync"});
        j[opt] = opt == "sync" ? 1 : d.pick({1, 2, 32});
    }
    if (writes && d.chance(0.1))
        j["end_fsync"] = 1;
    j["numjobs"] = d.chance(0.5) ? 1 : d.range(1, max_threads);
    j["time_based"] = 1;
    j["runtime"] = us(d.range(2000, 20000));  // 2-20 ms: many small runs rather than few long ones
    if (d.chance(0.15))
        j["ramp_time"] = us(d.range(100, 2000));
    // Rate limits and think time put idle gaps in the stream (timers, idling schedulers).
    if (!trims && d.chance(0.15))
        j["rate_iops"] = d.pick({100, 1000, 20000});
    else if (!trims && d.chance(0.1))
        j["rate"] = d.pick({"1m", "50m"});
    if (d.chance(0.15)) {
        j["thinktime"] = us(d.pick({1, 100, 1000}));
        if (d.chance(0.5)) j["thinktime_blocks"] = d.range(1, 8);
    }
    // I/O priority classes: RT, BE, IDLE, per job or per command.
    if (d.chance(0.25)) {
        j["prioclass"] = d.range(1, 3);
        j["prio"] = d.range(0, 7);
    } else if (async && !trims && d.chance(0.1)) {  // cmdprio is an option of the async engines
        j["cmdprio_percentage"] = d.pick({1, 50, 100});
        j["cmdprio_class"] = d.range(1, 3);
    }
    job_extras(d, j, engine, writes, trims);
    return j;
}

}  // namespace

nlohmann::json random_scenario(uint64_t seed) {
    Draw d(seed);
    json s;
    s["description"] = "invariant search seed " + std::to_string(seed);
    s["seed"] = seed;
    const uint32_t cpus = static_cast<uint32_t>(d.range(1, 8));
    s["host"] = {{"cpus", cpus}, {"cost_profile", d.pick({"desktop-8t", "e2-testbox", "e3-host"})}};
    if (d.chance(0.2))
        s["host"]["submit_bio_plug"] = d.pick({false, true});
    if (d.chance(0.3))
        s["host"]["shared_llc"] = false;  // woken kworkers stay on their previous CPU
    // Audit the counters every simulated millisecond, so a broken balance is caught near
    // where it happens rather than at the end.
    s["checks"] = {{"audit_interval", "1ms"}};
    if (d.chance(0.15))
        s["kernel"] = {{"tag_fairness", d.pick({"always", "on_shortage", "off"})}};

    // An HBA sometimes fronts the SCSI disks, with its host tags down to one.
    std::string hba;
    if (d.chance(0.25)) {
        hba = "hba0";
        json c = {{"name", hba}, {"kind", "hba"}, {"can_queue", d.pick({1, 2, 4, 32, 256})}};
        if (d.chance(0.4)) c["host_tagset"] = 1;
        if (d.chance(0.3)) c["nr_hw_queues"] = d.range(1, 2);
        s["controllers"] = json::array({c});
    }
    const uint64_t nr_devices = d.chance(0.7) ? 1 : d.range(2, 3);
    std::vector<DeviceInfo> devices(nr_devices);
    s["devices"] = json::array();
    s["queues"] = json::array();
    json shared_tag_set;  // null until a null_blk asks for shared tags
    for (uint64_t i = 0; i < nr_devices; ++i) {
        const std::string name = "d" + std::to_string(i);
        s["devices"].push_back(random_device(d, name, cpus, hba, devices[i], shared_tag_set));
        if (d.chance(0.85))  // else the queue's defaults
            s["queues"].push_back(random_queue(d, name));
    }
    // An HBA that no device ended up behind is still valid (a host adapter with no disks).

    // Up to 16 threads in all: enough for tag contention, few enough for a quick run.
    const uint64_t nr_jobs = d.range(1, 3);
    uint32_t threads_left = 16;
    s["jobs"] = json::array();
    for (uint64_t i = 0; i < nr_jobs && threads_left > 0; ++i) {
        json j = random_job(d, "j" + std::to_string(i), d.pick(devices), threads_left);
        threads_left -= j["numjobs"].get<uint32_t>();
        if (i > 0 && d.chance(0.1))
            j["stonewall"] = 1;  // a second wave starts when the first has ended
        s["jobs"].push_back(j);
    }
    // A VM whose host stalls its vCPUs (drawn last, so that the rest of each seed's scenario
    // is what it was before this option existed).
    if (d.chance(0.2)) {
        const std::vector<json> classes = {
            json::array({{{"per_s", 1000}, {"mean", "20us"}}}),
            json::array({{{"per_s", 100}, {"mean", "1ms"}}}),
            json::array({{{"per_s", 1270}, {"mean", "16us"}}, {{"per_s", 2.4}, {"mean", "3ms"}}})};
        s["host"]["vcpu_preemption"] = d.pick(classes);
    }
    // EEVDF's RUN_TO_PARITY (drawn after everything else, so that the rest of a seed's
    // scenario is what it was before it was drawn).
    if (d.chance(0.3))
        s["host"]["run_to_parity"] = true;
    // Where job threads may run (cpus_allowed, split: one CPU each), which bounds where the
    // scheduler places them when they wake.
    for (json& j : s["jobs"]) {
        if (!d.chance(0.2))
            continue;
        const uint64_t first = d.range(0, cpus - 1);
        const uint64_t last = d.range(first, cpus - 1);
        j["cpus_allowed"] = first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
        if (d.chance(0.5))
            j["cpus_allowed_policy"] = "split";
    }
    return s;
}

}  // namespace blksim::invsearch
