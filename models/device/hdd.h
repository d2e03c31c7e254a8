// A SATA hard disk with NCQ (models/device/hdd_mechanics.h for the physics).
//
// The drive serves one media operation at a time. When one ends it starts the next, chosen
// by policy from its internal queue (NCQ, queue_depth commands, one hardware queue):
//   FIFO  the oldest command;
//   RPO   rotational position optimisation: the shortest positioning time (seek + rotational
//         wait, from where the head will be and when) over all queued commands;
// with an aging bound (a command that has waited max_wait is served next, oldest first) and
// NCQ priority (ncq_prio_enable: commands of ioprio class RT, which libata sends with the
// PRIO bit, are the only candidates while any is queued; the aging bound is the starvation
// guard of the others). With sched_lookahead = 1 the next command is chosen when the
// current one starts (seek-ahead), so a command arriving later waits for both.
//
// Cache: read segments (LRU) hold what was read; a read that continues the previous one
// starts a read-ahead that streams on while the head is idle, so small sequential reads
// become hits. Hits and write-back acknowledgements are served by the firmware (its command
// overhead, one command at a time) and the host link (SATA 6 Gb/s), beside the head's work. Writes with the write cache on are acknowledged
// once their data is in the buffer and destaged later (contiguous dirty data merges, RPO
// over the dirty extents when the head has nothing else; past 3/4 of the dirty limit the best
// destage competes with the best host command by position); flush() waits until all of it is
// on the media (FLUSH CACHE). A REQ_OP_FLUSH request is that command: a non-queued ATA
// command, so libata holds it back until the NCQ queue is empty (ata_std_qc_defer), and
// nothing else is issued while it runs (the block layer gets BLK_STS_DEV_RESOURCE and retries
// at the next completion). A FUA write bypasses the write cache: written through to the
// media, acknowledged once there.
//
// Events: one per media operation end (that is also the completion of its request) and one
// per cache hit or write acknowledgement. No per-sector events; the platter's position is a
// function of time. Positions are computed once per command when it arrives.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/blkmq/driver_api.h"
#include "models/device/device.h"
#include "models/device/hdd_config.h"
#include "models/device/hdd_mechanics.h"
#include "models/device/hdd_segments.h"
#include "sim/event_queue.h"

namespace blksim::dev {

class Hdd final : public Device {
public:
    Hdd(sim::EventQueue& eq, const HddConfig& cfg) : Hdd(eq, cfg, HddMechanics(cfg)) {}
    // mech: cfg's mechanics, built once for the drives of a machine that share them.
    Hdd(sim::EventQueue& eq, const HddConfig& cfg, const HddMechanics& mech);
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    uint32_t nr_hw_queues() const override { return 1; }
    uint32_t queue_depth() const override { return cfg_.queue_depth; }
    bool rotational() const override { return true; }
    // A queue deeper than NCQ's 32 tags is a SAS drive's (TCQ); 32 or less, a SATA drive's
    // behind libata (the profiles' hdd-7200-sata: 32, hdd-7200-sas: 128).
    HostPath host_path() const override { return cfg_.queue_depth > 32 ? HostPath::SCSI : HostPath::ATA; }
    bool write_cache() const override { return cfg_.write_cache; }
    bool fua() const override { return cfg_.fua; }
    uint64_t capacity_sectors() const override { return mech_.capacity_sectors(); }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }
    void report(result::DeviceReport& r) const override;
    std::string check_idle() const override;
    // Host commands in the NCQ queue (in service included), and the write cache's dirty data.
    std::vector<std::string> series_columns() const override { return {"queued", "dirty_kb"}; }
    void series_sample(std::span<double> out) const override {
        out[0] = in_drive_;
        out[1] = static_cast<double>(dirty_sectors_) / 2;
    }

    // FLUSH CACHE at `now`: fn(obj, arg) runs once every write acknowledged so far (and any
    // acknowledged meanwhile) is on the media. One flush at a time.
    void flush(sim::Time now, sim::EventFn fn, void* obj, uint64_t arg);


    struct Stats {
        uint64_t commands = 0;        // accepted by queue_rq
        uint64_t media_ops = 0;       // head operations (reads, write-through writes, destages)
        int64_t seek_ns = 0, rotation_ns = 0, transfer_ns = 0;  // summed over media_ops
        uint64_t read_hits = 0, read_misses = 0;
        uint64_t stream_hits = 0;     // of the hits: reads the running read-ahead reached (stream_hit)
        uint64_t stream_aheads = 0;   // stream reads the head read on past while commands waited
        uint64_t write_back_acks = 0, write_through = 0, destages = 0, flushes = 0;
        uint64_t destages_over_host = 0;  // of destages: started while host commands waited
        uint64_t fua_writes = 0;      // of write_through: the host asked for FUA
        uint64_t rmw_writes = 0;      // media writes that read partial physical sectors first (512e)
        uint64_t high_prio = 0;       // commands sent with the NCQ PRIO bit
        uint64_t aged = 0;            // choices forced by the aging bound
        double depth_area_ns = 0;     // ∫ commands in the drive dt
        uint32_t depth_max = 0;
    };
    const Stats& stats() const { return stats_; }
    double mean_queue_depth(sim::Time now) const;
    const HddMechanics& mechanics() const { return mech_; }
    uint64_t dirty_sectors() const { return dirty_sectors_; }

private:
    struct Cmd {
        blkmq::Request* rq = nullptr;  // nullptr: a destage of dirty data
        uint64_t lba = 0;
        uint32_t nsect = 0;
        bool write = false;
        bool high = false;
        HddPosition pos;               // of the first sector
        uint32_t end_cyl = 0, end_head = 0;
        int64_t media_ns = 0;
        int64_t arrival_ns = 0;
        uint32_t free_before = 0;      // sectors before lba read while waiting (read_free_blocks)
        uint32_t ahead = 0;            // sectors read on past a stream's read (stream_read_ahead_kb)
    };
    // The candidates of one choice. The RPO scan reads a structure of arrays of floats, up to
    // eight commands a step (hdd_rpo.h; cylinders < 2^24 and angles < 2^24 ns are exact in
    // a float); removal swaps the last entry in. `oldest` is kept as commands come and go
    // (arrivals come in time order), for FIFO and the aging bound.
    template <uint32_t Cap>
    struct CmdQueue {
        static_assert(Cap % 8 == 0);  // the scan reads whole steps of eight
        uint32_t n = 0;
        uint32_t n_high = 0;
        uint32_t oldest = 0;
        alignas(32) std::array<float, Cap> cyl{}, head{}, angle{}, write{}, high{};
        std::array<int64_t, Cap> arrival{};
        // The commands themselves grow with the most ever queued: most of a drive's 256
        // dirty-extent slots (and of a SAS queue's 128) are never used, and a machine has
        // one drive per device.
        std::vector<Cmd> cmd;
        void push(const Cmd& c);
        void remove(uint32_t i);
        void refresh(uint32_t i);  // cmd[i]'s position changed: its scan entries follow
    };
    // Command queue slots: SATA NCQ has 32 tags, SAS drives queue more (hdd-7200-sas: 128).
    // pick_rpo scans the n queued commands, not the capacity, so a deeper array costs nothing
    // at NCQ depths.
    static constexpr uint32_t kMaxQueue = 128;
    static constexpr uint32_t kMaxDirty = 256;  // dirty extents in the write cache
    static constexpr uint32_t kMaxSegments = HddSegments::kMax;

    Cmd make_cmd(blkmq::Request* rq, uint64_t lba, uint32_t nsect, bool write, bool high, sim::Time now) const;
    void set_extent(Cmd& c) const;  // position, end and media time of c.lba / c.nsect
    // The command to serve next from q; `cost` (if given) gets its positioning time, ns (0
    // when not chosen by position).
    template <uint32_t Cap>
    int pick(const CmdQueue<Cap>& q, uint32_t cyl, uint32_t head, sim::Time t_free, float* cost);
    // Shortest positioning time over q (only high-priority commands if `high_only`).
    template <uint32_t Cap>
    // credit: per command, ns taken off its positioning time (aged RPO); nullptr: none.
    int pick_rpo(const CmdQueue<Cap>& q, uint32_t cyl, uint32_t head, int64_t phase0, bool high_only,
                 const float* credit, float* cost) const;
    const float* age_credits(const CmdQueue<kMaxQueue>& q, sim::Time t_free);
    // The aging bound applies to host commands only: dirty data has no one waiting on it.
    template <uint32_t Cap>
    bool aged(const CmdQueue<Cap>& q, sim::Time t_free) const {
        return Cap == kMaxQueue && q.n > 0 && max_wait_ns_ > 0 && t_free.ns() - q.arrival[q.oldest] >= max_wait_ns_;
    }
    bool choose(sim::Time t_free, uint32_t cyl, uint32_t head, Cmd& out);
    // Past 3/4 of the dirty limit, in sectors or extents: destages compete with host commands.
    bool dirty_high() const { return dirty_sectors_ >= dirty_high_ || dirty_.n >= kMaxDirty / 4 * 3; }
    bool release_next_destage(bool when);
    void choose_ahead();
    void dispatch(sim::Time t_free);
    // No dirty data waiting, being destaged or chosen to be destaged next.
    bool clean() const { return dirty_.n == 0 && !(busy_ && !cur_.rq) && !(have_next_ && !next_.rq); }
    void start_op(const Cmd& c, sim::Time t_free);
    // The media statistics of one operation start_op() began (rotation includes a 512e
    // read-modify-write's extra revolution; transfer, a read-ahead and a write's data wait).
    void count_op(const Cmd& c, int64_t seek_ns, int64_t rotation_ns, int64_t transfer_ns);
    void op_end(uint64_t);
    void host_done(uint64_t rq_addr);
    BlkStatus queue_flush(blkmq::Request* rq, sim::Time now);
    static void flush_done(void* self, uint64_t rq_addr);
    bool needs_rmw(const Cmd& c, sim::Time t) const;
    bool stream_hit(blkmq::Request* rq, uint64_t lba, uint64_t end, sim::Time now, int64_t overhead);
    uint32_t stream_ahead(const Cmd& c) const;
    bool ahead_hit(blkmq::Request* rq, uint64_t lba, uint64_t end, sim::Time now, int64_t overhead);
    void complete(blkmq::Request* rq, sim::Time now);
    void depth_change(sim::Time now, int delta);
    // Commands the drive answers from its buffer (read hits, write-back acknowledgements)
    // still pass its firmware one at a time: each takes its overhead on this timeline, so
    // small cached I/O is bounded by 1 / overhead, not by the link alone.
    sim::Time fw_run(sim::Time now, int64_t overhead_ns) {
        fw_free_ = sim::max(now, fw_free_) + sim::Duration::ns(overhead_ns);
        return fw_free_;
    }
    int64_t xfer_ns(uint64_t sectors) const {
        if (sector_xfer_ns_ > 0)
            return static_cast<int64_t>(sectors) * sector_xfer_ns_;
        return static_cast<int64_t>(sectors * 512 * 1'000'000'000ULL / cfg_.link_bytes_per_s);
    }
    // Firmware time before a command's work: by its outcome, a media command's cmd_overhead,
    // a read hit's hit_overhead, a write-back acknowledgement's write_ack_overhead; with
    // per_op_overheads the figure for its outcome after a read or a write (a measured drive's).
    int64_t overhead_ns(bool write, bool hit, bool after_write) const {
        if (!cfg_.per_op_overheads)
            return !hit ? overhead_ns_ : write ? cfg_.write_ack_overhead.count() : cfg_.hit_overhead.count();
        // A write counts as "after a write" only when it continues the previous write (a
        // write stream); the figures were measured so (docs/disksim.md).
        const int after = (write ? after_write && seq_ : after_write) ? 1 : 0;
        return (write ? (hit ? cfg_.ovh_write_hit : cfg_.ovh_write_miss) : (hit ? cfg_.ovh_read_hit : cfg_.ovh_read_miss))[after].count();
    }

    // Cache.
    uint64_t seg_end(uint32_t i, sim::Time t) const;
    int find_hit(uint64_t lba, uint64_t end, sim::Time t) const;
    void on_hit(int seg, uint64_t end, sim::Time now);
    void serve_hit(blkmq::Request* rq, int seg, sim::Time t);
    void insert_read(uint64_t lba, uint64_t end, sim::Time now, bool head_idle);
    void stop_read_ahead(sim::Time t);
    uint64_t frontier(sim::Time t) const;
    void invalidate(uint64_t lba, uint64_t end, sim::Time now);
    bool add_dirty(uint64_t lba, uint32_t nsect, sim::Time now);

    sim::EventQueue& eq_;
    HddConfig cfg_;
    HddMechanics mech_;
    blkmq::DriverQueue* q_ = nullptr;
    bool prio_ = false;
    int64_t settle_ns_, overhead_ns_, max_wait_ns_;
    double age_weight_;             // cfg.age_weight
    alignas(32) std::array<float, kMaxQueue> age_credit_{};  // age_credits()' scratch
    int64_t sector_xfer_ns_ = 0;    // cfg.sector_xfer
    uint32_t phys_sectors_ = 1;     // 512 B sectors per physical sector
    bool last_write_ = false;       // the previous host command was a write
    bool seq_ = false;              // this command starts where the previous one ended
    uint64_t last_end_ = 0;         // end sector of the previous host command

    CmdQueue<kMaxQueue> host_;      // commands waiting for the head
    CmdQueue<kMaxDirty> dirty_;     // dirty extents waiting to be destaged
    uint64_t dirty_sectors_ = 0, dirty_limit_ = 0, dirty_high_ = 0;
    uint64_t merge_limit_ = 0;      // largest dirty extent, sectors

    bool busy_ = false;             // the head is on cur_ until it ends
    Cmd cur_;
    sim::Time op_done_;             // when cur_ ends
    bool have_next_ = false;        // chosen ahead (sched_lookahead)
    Cmd next_;
    uint32_t head_cyl_ = 0, head_head_ = 0;  // where the head is (or will be, after cur_)
    sim::Time link_free_;
    sim::Time fw_free_;             // the firmware's timeline for buffer-served commands

    HddSegments seg_;  // the read cache
    uint64_t seg_sectors_ = 0, ra_sectors_ = 0;
    uint64_t stream_ra_sectors_ = 0;  // cfg.stream_read_ahead_kb, capped at a segment
    sim::Time cur_start_;           // when cur_'s media transfer began
    bool ahead_valid_ = false;      // cur_.ahead still holds the media's data (no write overlapped it)
    int ra_seg_ = -1;               // the segment read-ahead streams into; -1: none
    uint64_t ra_lba0_ = 0, ra_limit_ = 0;
    sim::Time ra_t0_;

    bool flush_pending_ = false;
    bool flush_cmd_ = false;        // a FLUSH CACHE from the host is in the drive (non-queued)
    sim::EventFn flush_fn_ = nullptr;
    void* flush_obj_ = nullptr;
    uint64_t flush_arg_ = 0;

    uint32_t in_drive_ = 0;
    sim::Time depth_since_;
    Stats stats_;
};

}  // namespace blksim::dev
