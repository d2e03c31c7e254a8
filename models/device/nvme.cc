#include "models/device/nvme.h"

#include "models/device/device_kind.h"
#include "models/device/ssd_free_pool_params.h"

#include <algorithm>

namespace blksim::dev {

Nvme::Nvme(sim::EventQueue& eq, const NvmeConfig& cfg, uint32_t nr_cpus)
    : eq_(eq),
      cfg_(cfg),
      nr_queues_(cfg.nr_io_queues ? cfg.nr_io_queues : nr_cpus),
      rng_(0, "nvme.flash"),
      read_spread_(cfg.read_sigma),
      write_spread_(cfg.write_sigma),
      buf_(static_cast<double>(cfg.buffer_bytes), cfg.program_bytes_per_ns(), free_pool_geometry(cfg, cfg.page_bytes())),
      page_bytes_(cfg.page_bytes()),
      units_(std::max(1u, cfg.parallel_units)) {}

// A victim's page copies go round the units (each copy reads and programs one page, and the
// FTL spreads the valid pages it rewrites), its erase to the unit the victim block is on; as
// the SATA SSD places them on its dies. A read on a unit busy with one waits for it.
void Nvme::put_gc_op(const GcOp& op) {
    FlashUnit& u = units_[(op.erase ? op.victim : op.index) % units_.size()];
    u.free = std::max(u.free, op.at) + op.ns;
    u.page = kNoPage;  // a copy or an erase leaves other data in the page register
    ++(op.erase ? gc_erases_ : gc_copies_);
}

// A page's data lives on one unit (die or plane): a read waits for that unit, whatever the
// others are doing, so reads at random collide (a deep queue of 4 KiB reads keeps fewer
// units busy than it has reads) and a large read's pages are read in parallel. Each page
// costs read_latency and per_4k for each further 4 KiB of it that the read takes (the
// page's data moved to the controller), drawn around that mean. The page a unit read last
// stays in its page register until it reads another: a read of it then waits only for that
// read and moves its own 4 KiB pieces (per_4k each), so 4 KiB reads walking a page sense it
// once, as a sequential stream does.
sim::Time Nvme::flash_read(uint64_t b0, uint64_t b1, sim::Time t) {
    sim::Time done = t;
    const uint64_t nu = units_.size();
    for (uint64_t p = b0 / page_bytes_, last = (b1 - 1) / page_bytes_; p <= last; ++p) {
        const uint64_t lo = std::max(b0, p * page_bytes_), hi = std::min(b1, (p + 1) * page_bytes_);
        const auto pieces = static_cast<int64_t>((hi - lo + 4095) / 4096);
        FlashUnit& u = units_[p % nu];
        int64_t end;
        if (u.page == p) {
            end = std::max(u.page_read, t.ns()) + (cfg_.per_4k * pieces).count();
        } else {
            const sim::Duration mean = cfg_.read_latency + cfg_.per_4k * (pieces - 1);
            u.free = std::max(u.free, t.ns()) + read_spread_.draw(mean, rng_).count();
            u.page = p;
            u.page_read = end = u.free;
        }
        done = sim::max(done, sim::Time::from_ns(end));
    }
    return done;
}

void Nvme::seed(uint64_t run_seed, std::string_view name) { rng_ = sim::Rng(run_seed, std::string(name) + ".flash"); }

BlkStatus Nvme::queue_rq(blkmq::Request* rq, bool /*last*/, sim::Time now, uint32_t /*cpu*/) {
    if (q_)
        q_->start_request(rq, now);
    // Controller: one command at a time.
    const sim::Time fetched = sim::max(now, ctrl_free_) + cfg_.cmd_overhead;
    ctrl_free_ = fetched;
    if (rq->op == blkmq::ReqOp::FLUSH) [[unlikely]] {
        // Flush: the volatile cache written out; no data crosses the link.
        eq_.at<&Nvme::complete>(fetched + cfg_.flush_latency, this, reinterpret_cast<uint64_t>(rq));
        return BlkStatus::OK;
    }
    if (rq->op == blkmq::ReqOp::DISCARD) [[unlikely]] {
        // Dataset Management (deallocate): queued like any command; the controller updates
        // its mapping, neither the flash units nor the link are used.
        eq_.at<&Nvme::complete>(fetched + cfg_.deallocate_latency, this, reinterpret_cast<uint64_t>(rq));
        return BlkStatus::OK;
    }
    // Flash: the GC operations due by now first; then a read on its pages' units, a write on
    // the next unit in turn once the buffer has room for it.
    const auto put = [this](const GcOp& op) { put_gc_op(op); };
    buf_.gc_to(fetched, put);
    const uint64_t bytes = rq->bytes();
    const bool write = rq->op == blkmq::ReqOp::WRITE;
    const auto xfer = sim::Duration::ns(static_cast<int64_t>(bytes * 1'000'000'000 / cfg_.link_bytes_per_s));
    sim::Time media_done;
    if (!write) {
        const uint64_t b0 = rq->sector << 9;
        media_done = flash_read(b0, b0 + bytes, fetched);
    } else {
        const uint64_t extra_4k = bytes > 4096 ? (bytes - 1) / 4096 : 0;
        const sim::Duration mean = cfg_.write_latency + cfg_.per_4k * static_cast<int64_t>(extra_4k) +
                                   (rq->fua() ? cfg_.program_latency : sim::Duration{});
        const sim::Duration media = write_spread_.draw(mean, rng_);
        const sim::Time ready = buf_.admit(fetched, bytes, put).start;
        if (ready > fetched) {
            // A write that waited for buffer room (or behind others that did) is taken in when it
            // has it, paced by the drain: it holds no unit for the commands behind it, which a
            // reservation in arrival order, far ahead of now, would (a read arriving meanwhile
            // would queue behind every waiting write). Its data still crosses the link: a slot
            // on the link's timeline from its fetch, which it completes after too, so that reads and
            // writes together never move more than the link carries (a link slower than the
            // drain paces the writes).
            const sim::Time crossed = sim::Time::from_ns(link_.book(fetched.ns(), xfer.count(), now.ns()));
            eq_.at<&Nvme::complete>(sim::max(ready + media + xfer, crossed), this, reinterpret_cast<uint64_t>(rq));
            return BlkStatus::OK;
        }
        // The FTL's write pointer goes round the units, spreading writes over them as it
        // stripes its pages; a search for the earliest free unit would cost a scan of
        // every unit (up to 65536) per write.
        FlashUnit& u = units_[next_write_unit_];
        next_write_unit_ = next_write_unit_ + 1 == units_.size() ? 0 : next_write_unit_ + 1;
        u.free = std::max(u.free, ready.ns()) + media.count();
        u.page = kNoPage;
        media_done = sim::Time::from_ns(u.free);
    }
    // Link: the data crosses one transfer at a time, once it is ready (link.h).
    const sim::Time done = sim::Time::from_ns(link_.book(media_done.ns(), xfer.count(), now.ns()));
    eq_.at<&Nvme::complete>(done, this, reinterpret_cast<uint64_t>(rq));
    return BlkStatus::OK;
}

// The queue pair's MSI-X vector is affine to the CPUs mapped to it: the interrupt arrives on
// the submitting CPU's queue CPU (with one queue per CPU, the submitter itself).
// A polled request sits on a poll queue, which has no vector: the submitter, spinning in
// blk_mq_poll() on its CPU, finds the completion entry.
void Nvme::complete(uint64_t rq_addr) {
    auto* rq = reinterpret_cast<blkmq::Request*>(rq_addr);
    const bool polled = (rq->cmd_flags & blkmq::REQ_POLLED) && cfg_.poll_queues > 0;
    end_request(q_, rq, eq_.now(), rq->mq_ctx_cpu,
                polled ? blkmq::DriverQueue::CompletionPath::POLLED : blkmq::DriverQueue::CompletionPath::DEVICE_IRQ);
}

}  // namespace blksim::dev

// --- the model's descriptor ---

namespace blksim::dev {
namespace {

using C = NvmeConfig;
constexpr int64_t kBlockSizes[] = {512, 4096};
// Rows of SsdFreePoolConfig's fields name C (their member pointers are the base's).
constexpr auto kParams = kind::concat(
    std::array{
        kind::integer("nr_io_queues", &C::nr_io_queues, 0, 1024,
                      "I/O queue pairs (hardware queues); 0 = one per CPU. Default {default}."),
        kind::integer("queue_depth", &C::queue_depth, 1, 10240, "Tags per queue, 1..10240. Default {default}."),
        kind::integer("poll_queues", &C::poll_queues, 0, 1024,
                      "The driver's poll_queues: queues without interrupts whose completions the submitter polls "
                      "for (io_uring with hipri); 0 = none, polled I/O completes by interrupt. Default {default}."),
        kind::time("cmd_overhead", &C::cmd_overhead,
                   "Controller time per command (the IOPS ceiling). Default {default}. A time: integer nanoseconds or a "
                   "string such as \"80us\".", 0),
        kind::time<C>("read_latency", &C::read_latency,
                      "Media time of a read up to 4 KiB. Default {default}. A time: integer nanoseconds or a string such as "
                      "\"80us\".", 0),
        kind::time("write_latency", &C::write_latency,
                   "Time to take a write up to 4 KiB into the write buffer. Default {default}. A time: integer nanoseconds or "
                   "a string such as \"80us\".", 0),
        kind::time("per_4k", &C::per_4k,
                   "Media time per further 4 KiB of a command. Default {default}. A time: integer nanoseconds or a string such "
                   "as \"80us\".", 0),
        kind::integer("parallel_units", &C::parallel_units, 1, 65536,
                      "Flash units (dies/planes) working at once, 1..65536. Default {default}."),
        kind::number("read_sigma", &C::read_sigma, 0, 2,
                     "Spread of a read's media time around its mean: sigma of a lognormal with that mean, 0..2 (0 = "
                     "constant). Default {default}."),
        kind::number("write_sigma", &C::write_sigma, 0, 2,
                     "Spread of a write's media time around its mean (lognormal sigma, mean kept), 0..2. Default {default}."),
        kind::integer("link_mbps", &C::link_bytes_per_s, 1, 1000000,
                      "Host transfer rate in MB/s (10^6 bytes), 1..1000000. Default {default}.", kind::kMB),
        kind::integer<C, uint64_t>("gb", &C::size_bytes, 1, 1048576,
                                   "Capacity in 10^9 bytes, 1..1048576. Default {default}.", kind::kGB),
        kind::one_of("blocksize", &C::blocksize, kBlockSizes, "Logical block size: 512 or 4096. Default {default}."),
        kind::flag("volatile_write_cache", &C::volatile_write_cache,
                   "Identify Controller VWC: a volatile write cache, so Linux sends Flush commands and FUA writes. "
                   "Default {default} (a datacenter drive with power-loss protection); a client drive has one."),
        kind::flag("fua", &C::fua,
                   "FUA writes honoured (with volatile_write_cache): program_latency more than a buffered write. Default {default}."),
        kind::time("flush_latency", &C::flush_latency,
                   "Time of a Flush command after the controller took it (queued beside other commands). Suffixes ns, us, "
                   "ms, s; a bare number is ns. Default {default}."),
        kind::time<C>("program_latency", &C::program_latency,
                      "Page program time (tPROG) of a flash unit: the write buffer drains at parallel_units x page_kb / "
                      "program_latency, and a FUA write waits for it. Suffixes ns, us, ms, s; a bare number is ns. Default "
                      "{default}.", 1),
        kind::integer<C, uint32_t>("page_kb", &C::page_kb, 1, 1024, "Flash page in KiB, 1..1024. Default {default}."),
        kind::integer("buffer_mb", &C::buffer_bytes, 1, 10000000,
                      "Write buffer in 10^6 bytes: a write completes once in it and waits when it is full, 1..10000000. "
                      "Default {default}.", kind::kMB),
    },
    ssd_free_pool_params<C>(
        {.free_pool_gc =
             "Garbage collection as work: once the spare area's free blocks fall to gc_low_blocks, each block "
             "freed costs its valid pages (greedy, uniform random writes) copied and one erase on the flash units, "
             "and slows the buffer's drain; 0 = none. Default {default}.",
         .over_provisioning =
             "Spare flash over user capacity, above 0 and up to 4: the free pool a drive in use starts with, and "
             "what sets the victims' valid fraction. Default {default} (2 TiB of NAND for 1.92 TB).",
         .erase_latency =
             "Block erase time (tBERS) of a GC victim; its unit is busy for it. Suffixes ns, us, ms, s; a bare "
             "number is ns. Default {default}."}),
    std::array{
        kind::flag("dsm", &C::dsm,
                   "Dataset Management supported (ONCS): the disk takes discards (fio's trims) as Deallocate commands; "
                   "0 = a trim fails with EOPNOTSUPP. Default {default}."),
        kind::time("deallocate_latency", &C::deallocate_latency,
                   "Controller time of a Dataset Management (deallocate) command after it was fetched (an assumption; "
                   "measure with fio rw=randtrim). Suffixes ns, us, ms, s; a bare number is ns. Default {default}."),
    });

kind::Problem validate(const C& c, uint32_t /*nr_cpus*/) {
    if (kind::Problem p = check_free_pool(c))
        return p;
    if (c.program_latency.count() <= 0)
        return {"program_latency",
                "program_latency must be > 0 (the buffer drains at parallel_units x page / program_latency)"};
    return {};
}

constinit const DeviceKindOf<C> kKind{
    "nvme", "NVMe SSD: per-CPU queues, controller / parallel flash / link timelines, a write buffer draining at the "
    "program rate, garbage collection, interrupts on the queue's CPU",
    "The NVMe SSD model's parameters (models/device/nvme.h); defaults when left out.",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t nr_cpus, BuildCache&) -> std::unique_ptr<Device> {
         return std::make_unique<Nvme>(eq, c, nr_cpus);
     },
     .geometry = [](const C& c) { return DeviceGeometry{c.size_bytes, c.blocksize, c.nr_io_queues, c.queue_depth}; },
     .validate = validate}};

}  // namespace

const DeviceKind& nvme_kind() { return kKind; }

}  // namespace blksim::dev
