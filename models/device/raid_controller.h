// A hardware RAID controller (LSI/Broadcom MegaRAID SAS3508 class) exporting one virtual
// drive (VD) built of member disks of any model (HDD, SATA SSD), which it owns: Linux sees
// only the VD. Path of a host command:
//   firmware  `fw_cores` processors take commands in arrival order: cmd_overhead each
//             (+ write_overhead for writes, + member_io_overhead per command it sends to
//             a disk). This serial firmware, not the disks, is what bounds small cached I/O;
//   cache     lines of cache_line_kb, LRU. A read whose lines are all present is a hit;
//             missing lines are filled from the disks (one command per run of lines in
//             one strip) and the read waits for them. Read-ahead (rdcache=ra): a read that
//             continues one of the recent streams makes the firmware fill the next
//             read_ahead_kb too, so a sequential stream keeps hitting;
//   writes    write back (wrcache=wb, battery-backed): acknowledged once in the cache;
//             dirty lines are destaged in ascending order (a C-SCAN over the dirty set,
//             contiguous dirty data in one strip going as one disk command) while more
//             than destage_pct of the cache is dirty or dirty data is older than
//             flush_interval; writes wait while dirty_pct is dirty (one larger than
//             that goes through to the disks). Write through: the command completes
//             when its disk writes have;
//   RAID      0 (strips round-robin), 1 (mirror: reads go to the least busy disk), 10
//             (stripes of mirror pairs), 5 (left-symmetric rotating parity; a destage is
//             a read-modify-write, old data and old parity read, then both written, unless
//             the whole stripe row is dirty: then a full-stripe write);
//   link      data crosses PCIe (link_bytes_per_s) one transfer at a time.
// Each disk gets at most member_queue_depth commands; the rest wait in the controller.
//
// Simplified (docs/model.md): no degraded mode or rebuild, no FLUSH / FUA (the request
// model has none; with a battery-backed cache the controller acknowledges them at once
// anyway), one VD per controller, dirty sectors tracked per line as one range, a
// read-ahead stream table of 8 entries, no firmware FastPath (which bypasses the cache
// for SSDs with wt/nora).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/intrusive/set.hpp>

#include "models/blkmq/driver_api.h"
#include "models/device/device.h"
#include "models/device/raid_config.h"
#include "sim/event_queue.h"

namespace blksim::dev {

class BuildCache;

// The virtual drive's size: the smallest member, whole strips, times the data members.
uint64_t raid_capacity_sectors(const RaidConfig& cfg);

class RaidController final : public Device {
public:
    // Builds the member disks from cfg.members. Throws std::invalid_argument on a bad
    // layout (too few members for the level, a strip not a multiple of the cache line...).
    // `nr_cpus`: the host's, for nr_hw_queues 0 (one hctx per CPU) and as their cap
    // (megaraid_sas uses at most one reply queue per online CPU); 1 for a controller driven
    // without a request queue (tests).
    // cache: the machine's (build_cache.h), shared with the members; null: the members' own.
    RaidController(sim::EventQueue& eq, const RaidConfig& cfg, uint32_t nr_cpus = 1, BuildCache* cache = nullptr);
    // What is wrong with cfg's layout, or "" (the scenario loader reports it).
    static std::string check_config(const RaidConfig& cfg);
    ~RaidController() override;
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    // megaraid_sas: one hctx per reply queue over host-wide tags, or one (RaidConfig).
    uint32_t nr_hw_queues() const override { return nr_hw_queues_; }
    bool host_tagset() const override { return nr_hw_queues_ > 1; }
    uint32_t queue_depth() const override { return cfg_.queue_depth; }
    // A VD of spinning disks counts as rotational, one of SSDs not (the first member decides).
    bool rotational() const override { return !members_.empty() && members_[0].dev->rotational(); }
    uint64_t capacity_sectors() const override { return capacity_; }
    HostPath host_path() const override { return HostPath::SCSI; }
    // Each member disk's streams, named after the controller and its slot.
    void seed(uint64_t run_seed, std::string_view name) override {
        for (size_t i = 0; i < members_.size(); ++i)
            members_[i].dev->seed(run_seed, std::string(name) + ".member" + std::to_string(i));
    }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }
    void report(result::DeviceReport& r) const override;
    // Also checks each member disk's and that no disk ever held more than member_queue_depth.
    std::string check_idle() const override;
    // Dirty cache lines, destage groups in flight, and the commands in each member disk
    // ("<member>.queued", at most member_queue_depth).
    std::vector<std::string> series_columns() const override;
    void series_sample(std::span<double> out) const override;


    struct Stats {
        uint64_t reads = 0, writes = 0;
        uint64_t read_hits = 0, read_misses = 0;   // host reads: all lines present or not
        uint64_t lines_filled = 0, lines_prefetched = 0, lines_destaged = 0;
        uint64_t member_reads = 0, member_writes = 0;
        uint64_t full_stripe_writes = 0, rmw = 0;  // RAID 5 destages
        uint64_t write_stalls = 0;                 // writes that waited for dirty room
        uint64_t uncached_reads = 0;               // no clean line to evict: read around the cache
        int64_t fw_busy_ns = 0;
        uint64_t dirty_lines_max = 0;
    };
    const Stats& stats() const { return stats_; }
    uint32_t nr_members() const { return static_cast<uint32_t>(members_.size()); }
    const Device& member(uint32_t i) const { return *members_[i].dev; }
    uint64_t dirty_lines() const { return nr_dirty_; }
    uint32_t member_in_flight(uint32_t i) const { return members_[i].in_flight; }

private:
    // One piece of a VD extent on one member disk.
    struct Piece {
        uint32_t member;
        uint64_t lba;
        uint32_t nsect;
    };
    static constexpr uint32_t kNone = ~0u;

    // A cache line: a cache_line_kb slice of the VD's address space.
    struct Line : boost::intrusive::set_base_hook<> {
        uint64_t no = 0;               // VD offset / line size
        uint32_t hash_next = kNone;
        uint32_t lru_prev = kNone, lru_next = kNone;
        uint32_t fill_group = kNone;   // the FILL group bringing the line in
        uint32_t dirty_lo = 0, dirty_hi = 0;  // dirty sectors [lo, hi) within the line
        bool used = false;
        bool valid = false;            // holds the whole line's data
        bool filling = false;
        bool destaging = false;
        bool redirtied = false;        // written again while being destaged
        bool in_dirty_set = false;
        bool in_lru = false;
        int64_t dirty_since = 0;
        bool dirty() const { return dirty_hi > dirty_lo; }
    };
    struct LineNo {
        using type = uint64_t;
        uint64_t operator()(const Line& l) const { return l.no; }
    };
    using DirtySet = boost::intrusive::set<Line, boost::intrusive::key_of_value<LineNo>>;

    struct HostCmd {
        blkmq::Request* rq = nullptr;
        uint32_t pending = 0;          // fills / disk writes still to come
        uint32_t next_free = kNone;
        uint32_t next_stalled = kNone;
        bool write = false;
    };
    struct Waiter {
        uint32_t cmd;
        uint32_t next;
    };
    // A group of disk commands finishing one thing: a fill of lines, a destage of lines,
    // a write-through host write, a RAID 5 read-modify-write (two phases).
    struct Group {
        enum class Kind : uint8_t { FILL, DESTAGE, HOST_WRITE, HOST_READ };
        Kind kind = Kind::FILL;
        uint64_t line0 = 0;
        uint32_t nlines = 0;
        uint32_t pending = 0;
        uint32_t host = kNone;         // HOST_WRITE / HOST_READ: the host command
        uint32_t waiters = kNone;      // FILL: host reads waiting for it
        uint32_t next_free = kNone;
        // RAID 5 read-modify-write: the writes issued once the reads are back.
        bool rmw = false;
        uint32_t rmw_member = 0, rmw_parity = 0;
        uint64_t rmw_lba = 0;
        uint32_t rmw_nsect = 0;
    };
    struct MemberOp {
        uint32_t group = kNone;
        uint32_t member = 0;
        uint32_t next = kNone;         // member FIFO / free list
        uint64_t lba = 0;
        uint32_t nsect = 0;
        bool write = false;
    };
    struct Member {
        std::unique_ptr<Device> dev;
        uint32_t depth = 0;
        uint32_t in_flight = 0;
        uint32_t in_flight_max = 0;
        uint32_t fifo_head = kNone, fifo_tail = kNone;
    };

    // Layout.
    uint32_t map(uint64_t sector, uint32_t nsect, Piece* out, bool for_write);
    uint32_t data_members() const;
    Piece parity_of(const Piece& data_piece) const;

    struct Extent {
        uint64_t sector;
        uint32_t nsect;
        uint64_t l0, l1;               // cache lines [l0, l1)
    };
    Extent extent_of(const blkmq::Request& rq) const;

    // Firmware.
    sim::Time fw_run(sim::Time now, sim::Duration cost);
    void fw_done(uint64_t slot);
    void start_read(uint32_t slot, sim::Time now);
    void start_write(uint32_t slot, sim::Time now);
    void host_finish(uint32_t slot, sim::Time now);
    void host_complete(uint64_t rq_addr);

    // Cache.
    Line* lookup(uint64_t no);
    Line* get_line(uint64_t no, sim::Time now);  // present or newly allocated (nullptr: none free)
    void lru_touch(uint32_t i);
    void lru_unlink(uint32_t i);
    void lru_update(uint32_t i);        // on the LRU list exactly when evictable
    void evict(uint32_t i);
    uint64_t lines_available() const { return (lines_.size() - lines_used_) + lru_len_; }
    void add_waiter(uint32_t group, uint32_t cmd);
    void fill_lines(uint64_t no0, uint32_t n, uint32_t waiter_cmd, sim::Time now);
    void prefetch(uint64_t sector, uint32_t nsect, sim::Time now);
    void mark_dirty(Line& l, uint32_t lo, uint32_t hi, sim::Time now);
    void maybe_destage(sim::Time now);
    bool destage_one(sim::Time now);
    bool destage_full_stripe(uint64_t no, sim::Time now);
    uint32_t begin_destage(uint64_t no0, uint32_t n);
    void flush_timer(uint64_t);
    bool write_fits(uint64_t lines) const;
    void resume_stalled(sim::Time now);

    // Disk commands.
    uint32_t new_group(Group::Kind k);
    void issue(uint32_t group, const Piece& p, bool write, sim::Time now);
    void member_kick(uint32_t m, sim::Time now);
    static void member_done_sink(void* obj, blkmq::Request* rq, sim::Time now);
    void member_done(blkmq::Request* rq, sim::Time now);
    void group_done(uint32_t g, sim::Time now);

    sim::EventQueue& eq_;
    RaidConfig cfg_;
    blkmq::DriverQueue* q_ = nullptr;
    std::vector<Member> members_;
    uint64_t capacity_ = 0;            // VD sectors
    uint64_t member_sectors_ = 0;      // used per member
    uint32_t strip_sectors_ = 0, line_sectors_ = 0;

    uint32_t nr_hw_queues_;  // cfg_.nr_hw_queues, 0 resolved to the CPUs, capped at them
    std::vector<sim::Time> fw_free_;
    sim::Time link_free_;

    std::vector<HostCmd> cmds_;
    uint32_t cmd_free_ = kNone;
    uint32_t stalled_head_ = kNone, stalled_tail_ = kNone;
    std::vector<Waiter> waiters_;
    uint32_t waiter_free_ = kNone;

    std::vector<Line> lines_;
    std::vector<uint32_t> buckets_;
    uint32_t hash_shift_ = 0;
    uint32_t lines_used_ = 0;
    uint32_t lru_head_ = kNone, lru_tail_ = kNone;  // head = least recently used
    uint64_t lru_len_ = 0;
    DirtySet dirty_;
    uint64_t nr_dirty_ = 0;
    uint64_t dirty_max_ = 0, destage_start_ = 0;
    uint64_t destage_cursor_ = 0;      // the sweep's position (line number)
    uint32_t destaging_ = 0;           // destage groups in flight
    bool flush_armed_ = false;
    bool flushing_ = false;            // the flush interval passed: destage all that is dirty
    uint32_t destage_depth_ = 0;       // destage groups in flight at most

    struct Stream {
        uint64_t next = 0;             // where the stream's next read should start
        uint64_t ra_end = 0;           // prefetched up to here (sector)
        int64_t last_use = -1;
    };
    std::array<Stream, 8> streams_{};

    std::vector<Group> groups_;
    uint32_t group_free_ = kNone;
    std::vector<MemberOp> ops_;        // grows to the run's peak, then reused
    uint32_t op_free_ = kNone;
    // The commands in the disks: at most member_queue_depth each, so a fixed pool (the
    // disks hold pointers to these). rq_op_[i] is the op op_rqs_[i] carries.
    std::vector<blkmq::Request> op_rqs_;
    std::vector<uint32_t> rq_op_;
    std::vector<uint32_t> rq_free_;
    std::vector<Piece> pieces_;        // scratch for map()

    Stats stats_;
};

}  // namespace blksim::dev
