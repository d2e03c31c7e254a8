#include "models/device/sata_ssd.h"

#include "models/device/device_kind.h"
#include "models/device/ssd_free_pool_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/result/device_report.h"

namespace blksim::dev {

using sim::Duration;
using sim::Time;

namespace {
int64_t xfer_ns(uint64_t bytes, uint64_t bytes_per_s) {
    return static_cast<int64_t>(bytes * 1'000'000'000ULL / bytes_per_s);
}
}  // namespace

SataSsd::SataSsd(sim::EventQueue& eq, const SataSsdConfig& cfg)
    : eq_(eq),
      cfg_(cfg),
      die_free_(std::max(1u, cfg.nr_dies()), 0),
      page_bytes_(std::max<uint64_t>(512, cfg.page_bytes())),
      ra_bytes_(static_cast<uint64_t>(cfg.read_ahead_kb) * 1024),
      // The free pool (free_pool_gc): the spare area in erase blocks of the pages data is
      // striped by (page_bytes_ is declared, so initialised, before buf_).
      buf_(static_cast<double>(cfg.buffer_bytes), cfg.drain_bytes_per_ns(), free_pool_geometry(cfg, page_bytes_)),
      streams_(std::max(1u, cfg.read_ahead_streams)),
      rng_(0, "sata_ssd.flash"),
      read_spread_(cfg.read_sigma),
      program_spread_(cfg.program_sigma) {}

void SataSsd::seed(uint64_t run_seed, std::string_view name) { rng_ = sim::Rng(run_seed, std::string(name) + ".flash"); }

BlkStatus SataSsd::queue_rq(blkmq::Request* rq, bool /*last*/, Time now, uint32_t /*cpu*/) {
    // FLUSH CACHE (and a non-NCQ TRIM) is a non-queued ATA command: libata defers it until
    // the NCQ commands are done, and defers every command while it runs
    // (BLK_STS_DEV_RESOURCE: the next completion retries).
    if (flush_cmd_ || (non_queued(*rq) && in_drive_ > 0)) [[unlikely]]
        return BlkStatus::DEV_RESOURCE;
    if (q_)
        q_->start_request(rq, now);
    if (rq->op == blkmq::ReqOp::FLUSH) [[unlikely]] {
        ++in_drive_;
        ++stats_.flushes;
        flush_cmd_ = true;
        const Time done = sim::max(now, ctrl_free_) + cfg_.cmd_overhead + cfg_.flush_latency;
        ctrl_free_ = done;
        eq_.at<&SataSsd::complete>(done, this, reinterpret_cast<uint64_t>(rq));
        return BlkStatus::OK;
    }
    if (rq->op == blkmq::ReqOp::DISCARD) [[unlikely]] {
        // DATA SET MANAGEMENT / TRIM: the mapping updated, no data moved (*simplification:*
        // one cost per command whatever its ranges; the buffer and the flash do not see it).
        stats_.in_drive_max = std::max(stats_.in_drive_max, ++in_drive_);
        ++stats_.trims;
        flush_cmd_ = non_queued(*rq);
        const Time done = sim::max(now, ctrl_free_) + cfg_.cmd_overhead + cfg_.trim_latency;
        ctrl_free_ = done;
        eq_.at<&SataSsd::complete>(done, this, reinterpret_cast<uint64_t>(rq));
        return BlkStatus::OK;
    }
    const bool write = rq->op == blkmq::ReqOp::WRITE;
    stats_.in_drive_max = std::max(stats_.in_drive_max, ++in_drive_);
    // Controller: one command at a time.
    const Time fetched = sim::max(now, ctrl_free_) + cfg_.cmd_overhead + (write ? cfg_.write_overhead : Duration{});
    ctrl_free_ = fetched;
    const uint64_t cap = cfg_.size_bytes;
    const uint64_t b0 = std::min<uint64_t>(rq->sector << 9, cap - 1);
    const uint64_t b1 = std::min<uint64_t>(b0 + std::max<uint64_t>(rq->bytes(), 1), cap);
    Time done = write ? serve_write(b0, b1, fetched) : serve_read(b0, b1, fetched);
    if (rq->fua()) {
        // FUA: on the flash before the answer (*simplification:* one page program time after
        // the buffer has it, its die's queue not modelled).
        ++stats_.fua_writes;
        done = done + program_spread_.draw(cfg_.program_latency, rng_);
    }
    eq_.at<&SataSsd::complete>(done, this, reinterpret_cast<uint64_t>(rq));
    return BlkStatus::OK;
}

Time SataSsd::flash_read(uint64_t byte0, uint64_t byte1, Time t) {
    Time done = t;
    const uint64_t nd = die_free_.size();
    for (uint64_t p = byte0 / page_bytes_, last = (byte1 - 1) / page_bytes_; p <= last; ++p) {
        int64_t& die = die_free_[p % nd];
        die = std::max(die, t.ns()) + read_spread_.draw(cfg_.read_latency, rng_).count();
        done = sim::max(done, Time::from_ns(die));
        ++stats_.page_reads;
    }
    return done;
}

void SataSsd::start_window(Stream& s, uint64_t b, Time t) {
    const uint64_t hi = std::min(b + ra_bytes_, cfg_.size_bytes);
    s.lo = s.mid = b;
    s.hi = hi;
    s.ready_old = s.ready_new = flash_read(b, hi, t);
    stats_.ra_bytes += hi - b;
}

Time SataSsd::serve_read(uint64_t b0, uint64_t b1, Time fetched) {
    gc_to(fetched);  // the GC operations due by now are on the dies before this read's pages
    ++stats_.reads;
    stats_.read_bytes += b1 - b0;
    Time ready;
    auto hit = std::find_if(streams_.begin(), streams_.end(), [&](const Stream& s) { return s.holds(b0, b1); });
    if (hit != streams_.end()) {
        // Read-ahead hit: the data is (or will be) in the controller's DRAM.
        Stream& s = *hit;
        ++stats_.ra_hits;
        ready = sim::max(fetched, b1 <= s.mid ? s.ready_old : s.ready_new);
        if (b1 > s.mid && s.hi < cfg_.size_bytes) {
            // The stream reached the newest chunk: prefetch the next one.
            const uint64_t hi = std::min(s.hi + ra_bytes_, cfg_.size_bytes);
            s.lo = s.mid;
            s.ready_old = s.ready_new;
            s.mid = s.hi;
            s.ready_new = flash_read(s.mid, hi, fetched);
            stats_.ra_bytes += hi - s.mid;
            s.hi = hi;
        }
    } else {
        ready = flash_read(b0, b1, fetched);
        // A read continuing a tracked stream is sequential: a window starts right behind
        // it. Any other read starts a new stream in the least recently read slot.
        hit = std::find_if(streams_.begin(), streams_.end(), [&](const Stream& s) { return s.next == b0; });
        if (hit == streams_.end()) {
            hit = std::min_element(streams_.begin(), streams_.end(),
                                   [](const Stream& a, const Stream& b) { return a.used < b.used; });
            *hit = Stream{};
        } else if (ra_bytes_ > 0 && b1 < cfg_.size_bytes) {
            start_window(*hit, b1, fetched);
        }
    }
    hit->next = b1;
    hit->used = ++reads_seen_;
    // The link moves the data once it is ready, in a gap if one fits (link.h).
    const Time done = Time::from_ns(link_.book(ready.ns(), xfer_ns(b1 - b0, cfg_.link_bytes_per_s), fetched.ns()));
    return done;
}

void SataSsd::put_gc_op(const GcOp& op) {
    const uint64_t nd = die_free_.size();
    int64_t& die = die_free_[(op.erase ? op.victim : op.index) % nd];
    die = std::max(die, op.at) + op.ns;
    ++(op.erase ? stats_.gc_erases : stats_.gc_copies);
}

void SataSsd::gc_to(Time t) {
    buf_.gc_to(t, [this](const GcOp& op) { put_gc_op(op); });
}

Time SataSsd::serve_write(uint64_t b0, uint64_t b1, Time fetched) {
    ++stats_.writes;
    const uint64_t bytes = b1 - b0;
    stats_.write_bytes += bytes;
    for (Stream& s : streams_)
        if (s.lo < s.hi && b0 < s.hi && b1 > s.lo)
            s.lo = s.mid = s.hi = 0;  // the prefetched data is stale
    // Room in the buffer is needed when the data starts to cross (the drive asks for it
    // with DMA Setup only then); admissions come in link order: a write's data crosses
    // after everything booked on the link, so the buffer sees them in time order.
    const SsdWriteBuffer::Admission a = buf_.admit(sim::max(fetched, Time::from_ns(link_.free_at())), bytes,
                                                   [this](const GcOp& op) { put_gc_op(op); });
    const Time start = a.start;
    if (a.waited) {
        ++stats_.buffer_waits;
        stats_.buffer_wait_ns += a.wait;
    }
    stats_.buffer_max = std::max(stats_.buffer_max, buf_.level());
    const uint64_t rate = std::min(cfg_.link_bytes_per_s, cfg_.buffer_write_bytes_per_s);
    const auto len = static_cast<int64_t>(xfer_ns(bytes, rate));
    return Time::from_ns(link_.book(start.ns(), len, fetched.ns()));
}

void SataSsd::complete(uint64_t rq_addr) {
    auto* rq = reinterpret_cast<blkmq::Request*>(rq_addr);
    --in_drive_;
    if (non_queued(*rq))
        flush_cmd_ = false;
    end_request(q_, rq, eq_.now(), cfg_.irq_cpu);
}

void SataSsd::report(result::DeviceReport& r) const {
    const Stats& s = stats_;
    constexpr double MB = 1e6;
    r.model = "sata_ssd";
    r.add("reads", static_cast<double>(s.reads));
    r.add("writes", static_cast<double>(s.writes));
    r.add("page_reads", static_cast<double>(s.page_reads));
    r.add("queue_depth_max", s.in_drive_max);
    r.new_line();
    r.add("ra_hits", static_cast<double>(s.ra_hits));
    r.add("ra_hit_pct", s.reads ? 100.0 * static_cast<double>(s.ra_hits) / static_cast<double>(s.reads) : 0.0, 2);
    r.add("ra_prefetched_mb", static_cast<double>(s.ra_bytes) / MB, 1);
    r.new_line();
    const double fill = buffer_fill(eq_.now());
    r.add("buffer_fill_mb", fill / MB, 1);
    r.add("buffer_max_mb", s.buffer_max / MB, 1);
    r.add("buffer_full_waits", static_cast<double>(s.buffer_waits));
    r.add("buffer_wait_us_mean",
          s.buffer_waits ? static_cast<double>(s.buffer_wait_ns) / static_cast<double>(s.buffer_waits) / 1e3 : 0.0, 1);
    r.new_line();
    const double drained = std::max(0.0, static_cast<double>(s.write_bytes) - fill);
    // Pages GC copied count as programmed (free_pool_gc); the WAF is then the measured one.
    const double copied = static_cast<double>(s.gc_copies * page_bytes_);
    r.add("programmed_mb", (drained * cfg_.gc_waf + copied) / MB, 1);
    r.add("gc_extra_mb", (drained * (cfg_.gc_waf - 1.0) + copied) / MB, 1);
    r.add("gc_waf", copied > 0 && drained > 0 ? (drained + copied) / drained : cfg_.gc_waf, 2);
    if (s.gc_copies || s.gc_erases) {  // (only once GC ran: other runs' reports have no such line)
        r.new_line();
        r.add("gc_blocks_freed", static_cast<double>(s.gc_erases));
        r.add("gc_page_copies", static_cast<double>(s.gc_copies));
        r.add("gc_valid_pct", 100.0 * buf_.gc_cost().copies / cfg_.pages_per_block, 1);
        r.add("gc_steady_waf", buf_.gc_cost().waf(), 2);
    }
    if (s.flushes || s.fua_writes) {  // (only then: other runs' reports have no such line)
        r.new_line();
        r.add("flushes", static_cast<double>(s.flushes));
        r.add("fua_writes", static_cast<double>(s.fua_writes));
    }
    if (s.trims) {
        r.new_line();
        r.add("trims", static_cast<double>(s.trims));
    }
}

std::string SataSsd::check_idle() const {
    if (in_drive_ != 0)
        return "sata_ssd: " + std::to_string(in_drive_) + " command(s) never completed";
    if (stats_.in_drive_max > cfg_.queue_depth)
        return "sata_ssd: " + std::to_string(stats_.in_drive_max) + " commands at once, above the NCQ depth of " +
               std::to_string(cfg_.queue_depth);
    return {};
}

}  // namespace blksim::dev

// --- the model's descriptor ---

namespace blksim::dev {
namespace {

using C = SataSsdConfig;
constexpr int64_t kBlockSizes[] = {512, 4096};
// Rows of SsdFreePoolConfig's fields name C (their member pointers are the base's).
constexpr auto kParams = kind::concat(
    std::array{
        kind::integer<C, uint64_t>("gb", &C::size_bytes, 1, 1048576,
                                   "Capacity in 10^9 bytes, 1..1048576 (or give sectors). Default: that of sectors.", kind::kGB),
        kind::integer<C, uint64_t>("sectors", &C::size_bytes, 2097152, 281474976710656,
                                   "Capacity in 512-byte sectors, overrides gb. Default {default}.", 512),
        kind::one_of("blocksize", &C::blocksize, kBlockSizes, "Logical block size: 512 or 4096. Default {default}."),
        kind::integer("queue_depth", &C::queue_depth, 1, 32,
                      "NCQ depth, 1..32 (the tag set depth, or the dispatch budget behind an HBA). Default {default}."),
        kind::integer("link_mbps", &C::link_bytes_per_s, 1, 100000,
                      "Host link rate in MB/s (10^6 bytes), all data crosses it one transfer at a time, 1..100000. Default "
                      "{default} (SATA 6 Gb/s after encoding and framing).", kind::kMB),
        kind::time("cmd_overhead", &C::cmd_overhead,
                   "Controller time per command, one command at a time (the 4 KiB IOPS ceiling). Default {default}. A time: "
                   "integer nanoseconds or a string such as \"10us\".", 0),
        kind::time("write_overhead", &C::write_overhead,
                   "Extra controller time per write command. Default {default}. A time: integer nanoseconds or a string.", 0),
        kind::integer("channels", &C::channels, 1, 64, "Flash channels, 1..64. Default {default}."),
        kind::integer("dies_per_channel", &C::dies_per_channel, 1, 64, "Flash dies per channel, 1..64. Default {default}."),
        kind::integer<C, uint32_t>("page_kb", &C::page_kb, 1, 1024,
                                   "Flash page in KiB, the striping unit over the dies, 1..1024. Default {default}."),
        kind::time<C>("read_latency", &C::read_latency,
                      "Page read time (tR); the die is busy for it. Default {default}. A time: integer nanoseconds or a string "
                      "such as \"70us\".", 0),
        kind::time<C>("program_latency", &C::program_latency,
                      "Page program time (tPROG); the write buffer drains at dies x page / program_latency / gc_waf. Default "
                      "{default}. A time: integer nanoseconds or a string.", 1),
        kind::integer("buffer_mb", &C::buffer_bytes, 1, 10000000,
                      "Write buffer (DRAM + SLC cache) in 10^6 bytes; writes complete once in it and wait when it is full, "
                      "1..10000000. Default {default}.", kind::kMB),
        kind::integer("buffer_write_mbps", &C::buffer_write_bytes_per_s, 1, 100000,
                      "Rate at which write data enters the buffer, MB/s (writes cross the link at min(link_mbps, this)), "
                      "1..100000. Default {default}.", kind::kMB),
        kind::number("gc_waf", &C::gc_waf, 1, 100,
                     "Steady-state garbage collection as a write amplification factor multiplying program work, 1..100; "
                     "above 1 only with free_pool_gc 0. Default {default}."),
    },
    ssd_free_pool_params<C>(
        {.free_pool_gc =
             "Garbage collection as work: once the spare area's free blocks fall to gc_low_blocks, each block "
             "freed costs its valid pages (greedy, uniform random writes) copied and one erase on the dies, and "
             "slows the drain; 0 = none (gc_waf alone). Default {default}.",
         .over_provisioning =
             "Spare flash over user capacity, above 0 and up to 4: the free pool a drive in use starts with, and what sets "
             "the victims' valid fraction. Default {default} (512 GiB of NAND for 500 GB).",
         .erase_latency =
             "Block erase time (tBERS) of a GC victim; its die is busy for it. Suffixes ns, us, ms, s; a bare "
             "number is ns. Default {default}."}),
    std::array{
        kind::integer("read_ahead_kb", &C::read_ahead_kb, 0, 65536,
                      "Controller read-ahead after a sequential read, KiB (0 = off), 0..65536. Default {default}."),
        kind::integer("read_ahead_streams", &C::read_ahead_streams, 1, 64,
                      "Sequential streams the controller tracks at once, each with its own read-ahead window (least "
                      "recently read replaced), 1..64. Default {default}."),
        kind::number("read_sigma", &C::read_sigma, 0, 2,
                     "Spread of each page read's time around read_latency: sigma of a lognormal with read_latency as its "
                     "mean, 0..2 (0 = constant). Default {default}."),
        kind::number("program_sigma", &C::program_sigma, 0, 2,
                     "Spread of a FUA write's program time around program_latency (lognormal sigma, mean kept), 0..2. "
                     "Default {default}."),
        kind::integer("irq_cpu", &C::irq_cpu, 0, kind::kNoMax,
                      "CPU that takes the drive's interrupt (AHCI: one MSI vector). Default {default}."),
        kind::flag("write_cache", &C::write_cache,
                   "The drive's volatile (DRAM) write cache, WCE: flushes (FLUSH CACHE, non-queued) and FUA reach it. "
                   "Default {default}."),
        kind::flag("fua", &C::fua,
                   "FUA writes honoured: acknowledged once programmed (program_latency after the buffer has them). "
                   "Default {default}."),
        kind::time("flush_latency", &C::flush_latency,
                   "Time of a FLUSH CACHE once the NCQ queue is drained (an estimate for a consumer drive without "
                   "power-loss protection). Suffixes ns, us, ms, s; a bare number is ns. Default {default}."),
        kind::flag("trim", &C::trim,
                   "The drive supports TRIM (DATA SET MANAGEMENT): the disk takes discards (fio's trims); 0 = a trim "
                   "fails with EOPNOTSUPP. Default {default}."),
        kind::flag("trim_queued", &C::trim_queued,
                   "TRIM as a queued NCQ command (SEND FPDMA QUEUED); 0 = non-queued, as on many drives: it waits for the "
                   "NCQ queue to drain and holds the drive, like FLUSH CACHE. Default {default}."),
        kind::time("trim_latency", &C::trim_latency,
                   "The drive's time per TRIM command once it has it (an assumption; measure with fio rw=randtrim). "
                   "Suffixes ns, us, ms, s; a bare number is ns. Default {default}."),
    });

kind::Problem validate(const C& c, uint32_t nr_cpus) {
    if (c.queue_depth < 1 || c.queue_depth > 32)
        return {"queue_depth", "NCQ depth must be 1..32, got " + std::to_string(c.queue_depth)};
    if (!(c.gc_waf >= 1.0) || c.gc_waf > 100.0)
        return {"gc_waf", "write amplification factor must be 1..100 (1 = no garbage collection)"};
    if (c.free_pool_gc && c.gc_waf != 1.0)
        return {"gc_waf", "gc_waf must be 1 while free_pool_gc is on (the free-block pool does the write "
                          "amplification); set free_pool_gc to 0 to use the constant factor"};
    if (kind::Problem p = check_free_pool(c))
        return p;
    if (c.program_latency.count() <= 0)
        return {"program_latency",
                "program_latency must be > 0 (the buffer drains at dies x page / program_latency)"};
    if (kind::Problem p = kind::check_irq_cpu(c.irq_cpu, nr_cpus)) return p;
    if (c.size_bytes < (1ULL << 30)) return {"", "a SATA SSD needs at least 1 GiB (gb or sectors)"};
    return {};
}

constinit const DeviceKindOf<C> kKind{
    "sata_ssd",
    "SATA SSD: NCQ 32, per-command controller time, channels x dies flash, write buffer draining at "
    "the program rate / WAF, sequential read-ahead, 550 MB/s link",
    "The SATA SSD model's parameters (models/device/sata_ssd_config.h); defaults when left out (a Samsung 860 EVO "
    "500 GB class drive, scenarios/devices/samsung-860evo-500g.json).",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t, BuildCache&) -> std::unique_ptr<Device> {
         return std::make_unique<SataSsd>(eq, c);
     },
     .geometry = [](const C& c) { return DeviceGeometry{c.size_bytes / 512 * 512, c.blocksize, 1, c.queue_depth}; },
     .validate = validate,
     .may_be_member = true}};

}  // namespace

const DeviceKind& sata_ssd_kind() { return kKind; }

}  // namespace blksim::dev
