// A SATA SSD (Samsung 860/870 EVO class): one hardware queue, NCQ depth 32, a controller, a
// flash back end of channels x dies, a write buffer and the SATA link. Service of a command:
//   controller  takes commands one at a time, cmd_overhead each (+ write_overhead for a
//               write): the small-block IOPS ceiling;
//   read        the pages it covers (striped by LBA over the dies, page_kb each) are read in
//               parallel, each die busy read_latency per page and taking its pages in turn;
//               reads inside the read-ahead window skip the flash;
//   write       waits for room in the write buffer, then its data crosses the link at
//               min(link, buffer write rate) and the command completes: the buffer drains
//               at the program rate (dies x page / program_latency) divided by gc_waf;
//   GC          with free_pool_gc, once the spare area's free blocks fall to the watermark,
//               freeing blocks costs page copies and erases put on the dies (reads queue
//               behind them) and slows the drain by the same die time (ssd_gc.h);
//   link        all data crosses one transfer at a time (~550 MB/s): a read's once its
//               pages are read, in the earliest gap that holds it (link.h), a write's
//               after everything booked.
// Each stage is a timeline (an instant it is free, the link's booked transfers, or a fluid
// fill level for the buffer), so a command's completion instant is known when it arrives:
// one event per command, no per-page events, nothing allocated once the link's bookings
// have grown to the most ever pending.
//
// Read-ahead: a read that starts where an earlier read of a tracked stream ended makes the
// controller read the next read_ahead_kb from the flash into its DRAM (occupying the dies);
// reads inside that stream's window then cost the controller and the link only. When a hit
// reaches the newest chunk the next chunk is prefetched, so a stream stays ahead. Up to
// read_ahead_streams streams are tracked, least recently read replaced first, so that
// interleaved sequential readers keep their own windows. A write over a window drops it.
//
// Page reads and FUA programs take a time drawn around their mean (service_spread.h) from
// the drive's own random stream, seeded by seed().
//
// Simplified (docs/model.md): commands are served in arrival order at each stage but the
// link's reads (the NCQ reordering of a real controller is not modelled: a write waiting for
// buffer room holds the link, and the reads behind it); host programs drain as a fluid and do not occupy the dies
// (reads wait behind GC's copies and erases only); no channel bus timeline; reads of data still in the
// write buffer go to the flash; a TRIM costs its command time only (trimmed space does not
// lighten garbage collection); GC takes every write pattern for uniform random writes (a
// sequential overwrite, which frees whole blocks, costs the same) and has no warm-up (its
// victims hold the steady-state valid fraction from the first); no FLUSH drain (a
// volatile-cache flush would wait for the drain), no power states.
#pragma once

#include <vector>

#include "models/blkmq/driver_api.h"
#include "models/device/device.h"
#include "models/device/link.h"
#include "models/device/sata_ssd_config.h"
#include "models/device/service_spread.h"
#include "models/device/ssd_gc.h"
#include "models/device/ssd_write_buffer.h"
#include "sim/random.h"
#include "sim/event_queue.h"

namespace blksim::dev {

class SataSsd final : public Device {
public:
    SataSsd(sim::EventQueue& eq, const SataSsdConfig& cfg);
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    uint32_t nr_hw_queues() const override { return 1; }
    uint32_t queue_depth() const override { return cfg_.queue_depth; }
    uint64_t capacity_sectors() const override { return cfg_.size_bytes >> 9; }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }
    bool write_cache() const override { return cfg_.write_cache; }
    bool fua() const override { return cfg_.fua; }
    void seed(uint64_t run_seed, std::string_view name) override;
    HostPath host_path() const override { return HostPath::ATA; }
    // ata_scsiop_inq_b0(): 65535 * ATA_MAX_TRIM_RNUM (64) blocks per WRITE SAME(16) UNMAP.
    uint32_t max_discard_sectors() const override { return cfg_.trim ? 65535u * 64u * (cfg_.blocksize >> 9) : 0; }
    void report(result::DeviceReport& r) const override;
    std::string check_idle() const override;
    // Commands in the drive, and the write buffer's fill (a write the timelines admitted
    // ahead of now already counts).
    std::vector<std::string> series_columns() const override { return {"queued", "buffer_kb"}; }
    void series_sample(std::span<double> out) const override {
        out[0] = in_drive_;
        out[1] = buffer_fill(eq_.now()) / 1024;
    }


    struct Stats {
        uint64_t reads = 0, writes = 0;
        uint64_t read_bytes = 0, write_bytes = 0;
        uint64_t ra_hits = 0;             // reads served from the read-ahead window
        uint64_t ra_bytes = 0;            // bytes prefetched
        uint64_t page_reads = 0;          // flash page reads (host reads and read-ahead)
        uint64_t buffer_waits = 0;        // writes that found the buffer full
        int64_t buffer_wait_ns = 0;       // summed over them
        double buffer_max = 0;            // highest fill, bytes
        uint32_t in_drive_max = 0;        // most commands in the drive at once
        uint64_t flushes = 0, fua_writes = 0;
        uint64_t trims = 0;
        uint64_t gc_copies = 0, gc_erases = 0;  // GC operations put on the dies (free_pool_gc)
    };
    const Stats& stats() const { return stats_; }
    // Bytes in the write buffer at `t` (at or after the last write's admission).
    double buffer_fill(sim::Time t) const { return buf_.fill(t); }

private:
    // Reads the pages of [byte0, byte1) on their dies, starting at `t`; returns when the
    // last page is read.
    sim::Time flash_read(uint64_t byte0, uint64_t byte1, sim::Time t);
    sim::Time serve_read(uint64_t b0, uint64_t b1, sim::Time fetched);
    sim::Time serve_write(uint64_t b0, uint64_t b1, sim::Time fetched);
    // Puts the GC operations due by `t` on the dies.
    void gc_to(sim::Time t);
    // Puts one GC operation on its die: copies round robin (relocated pages go to any die),
    // the erase on the victim's die.
    void put_gc_op(const GcOp& op);
    void complete(uint64_t rq_addr);

    sim::EventQueue& eq_;
    SataSsdConfig cfg_;
    blkmq::DriverQueue* q_ = nullptr;

    sim::Time ctrl_free_;
    Link link_;
    std::vector<int64_t> die_free_;  // the instant each die is free, ns
    uint64_t page_bytes_;
    uint64_t ra_bytes_;

    // Write buffer and the free-block pool's GC (ssd_write_buffer.h).
    SsdWriteBuffer buf_;

    // A tracked stream. Its read-ahead window [lo, hi) in bytes: [lo, mid) ready at
    // ready_old, [mid, hi) (the newest chunk) at ready_new; empty when lo == hi.
    struct Stream {
        uint64_t lo = 0, mid = 0, hi = 0;
        sim::Time ready_old, ready_new;
        uint64_t next = UINT64_MAX;  // byte after the stream's last read
        uint64_t used = 0;           // when last read (a count of reads), for replacement
        bool holds(uint64_t b0, uint64_t b1) const { return lo < hi && b0 >= lo && b1 <= hi; }
    };
    // Starts s's window at b, the next read_ahead_kb prefetched from `t`.
    void start_window(Stream& s, uint64_t b, sim::Time t);
    std::vector<Stream> streams_;
    uint64_t reads_seen_ = 0;

    sim::Rng rng_;
    ServiceSpread read_spread_, program_spread_;

    uint32_t in_drive_ = 0;

    bool flush_cmd_ = false;  // a non-queued command (FLUSH CACHE, non-NCQ TRIM) is in the drive
    bool non_queued(const blkmq::Request& rq) const {
        return rq.op == blkmq::ReqOp::FLUSH || (rq.op == blkmq::ReqOp::DISCARD && !cfg_.trim_queued);
    }
    Stats stats_;
};

}  // namespace blksim::dev
