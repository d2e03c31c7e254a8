// mq-deadline (block/mq-deadline.c, current mainline): per I/O-priority level a
// sector-sorted tree and an arrival FIFO per direction plus an at-head dispatch list;
// batches of up to fifo_batch requests swept in ascending sector order; reads preferred,
// but writes get a batch after writes_starved read batches; a batch starts at the oldest
// request when its deadline (read_expire / write_expire) has passed; strict priority
// between levels with prio_aging_expire as the escape hatch.
//
// The seed patches are options of this one class (docs/architecture.md), all off by
// default (docs/references.md §8a, §8c):
//   E1 (§8a)                 nr_sched_batch: requests per dispatch round (init_sched()
//                            sets the queue's q->nr_sched_batch, which the core's
//                            dispatch round reads, as the patched blk-mq-sched.c does);
//                            head_on_wrap: a new batch with nothing expired and nothing
//                            above the position restarts at the lowest sector (C-SCAN)
//                            instead of the FIFO head.
//   E3 (§8c)                 direct_dispatch with three separately switchable conditions
//                            (ElevatorBypass, which init_sched() hands to the queue
//                            only when direct_dispatch is on).
//
// Time: the kernel keeps read_expire, write_expire and prio_aging_expire in jiffies
// (msecs_to_jiffies() rounds a sysfs value up to whole jiffies) and compares them with the
// jiffies counter, which advances once per 1/HZ s. blksim does the same with a `hz`
// tunable (CONFIG_HZ, default 250): jiffies(t) = floor(t * HZ); a request inserted at t
// gets the deadline jiffies(t) + expire_j, i.e. it expires at the start of that tick. So a
// request may expire up to one tick *before* t + expire (its insertion tick began before
// t), and expire values are effectively multiples of 1/HZ (4 ms at HZ=250).
//
// Locking (the core charges it, see ElevatorCost): insert_request, bio_merge (+
// request_merged / requests_merged, which run inside the same critical section),
// dispatch_request and direct_dispatched run under the single queue-wide dd->lock;
// finish_request (dd_finish_request: an atomic increment), has_work and limit_depth
// take no lock.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/set.hpp>

#include "models/sched/elevator.h"
#include "models/sched/elv_rqhash.h"
#include "models/sched/jiffies.h"
#include "sim/time.h"

namespace blksim::sched {

// Tunables: /sys/block/<dev>/queue/iosched/ attributes with the kernel's defaults, then the
// build constant HZ, then the seed-patch options (off = mainline).
struct MqDeadlineTunables {
    sim::Duration read_expire = sim::Duration::ns(500'000'000);        // HZ / 2: max time before a read is served (soft)
    sim::Duration write_expire = sim::Duration::ns(5'000'000'000);     // 5 * HZ: ditto for writes
    int32_t writes_starved = 2;      // read batches allowed while writes wait
    int32_t front_merges = 1;        // look up front merges in the sector tree
    int32_t async_depth = 0;         // tags usable by async I/O and writes; 0 = nr_requests (v6.11+ default)
    int32_t fifo_batch = 16;         // requests per batch before deadlines / direction are looked at again
    sim::Duration prio_aging_expire = sim::Duration::ns(10'000'000'000);  // 10 * HZ: lower level served anyway
    int32_t hz = 250;                // CONFIG_HZ: the jiffy the expire times are counted in

    // E1 (Wang You, 2022): requests one dispatch round may pull; 0 = nr_requests (mainline).
    int32_t nr_sched_batch = 0;
    // E1: restart a sweep at the lowest sector instead of the FIFO head when nothing expired.
    int32_t head_on_wrap = 0;
    // Kernels before ~6.5 (E1's 5.19): the sweep continues at per_prio->next_rq, the sort-tree
    // successor of the last dispatched request *when it was dispatched*, instead of the first
    // request at or above latest_pos. A request added above the position later is not seen
    // until a new batch starts (at the FIFO head, or with head_on_wrap at the lowest sector).
    int32_t next_rq = 0;
    // E3 (Kaitao Cheng, 2026): issue a request straight to the driver when that cannot
    // change mq-deadline's decision; each condition can be switched off on its own.
    int32_t direct_dispatch = 0;
    int32_t direct_dispatch_if_empty = 1;           // (i) no request waits in any level
    int32_t direct_dispatch_if_no_higher_prio = 1;  // (i') no higher level owns a request (in flight)
    int32_t direct_dispatch_if_hctx_idle = 1;       // (ii) hctx->dispatch empty, hctx not dispatch_busy
};

// The table the scenario loader sets tunables from (by sysfs name) and `blksim list` shows.
std::span<const Tunable<MqDeadlineTunables>> mq_deadline_tunables();
const Tunable<MqDeadlineTunables>* find_mq_deadline_tunable(std::string_view name);

enum DdDataDir : uint8_t { DD_READ = 0, DD_WRITE = 1 };
enum DdPrio : uint8_t { DD_RT_PRIO = 0, DD_BE_PRIO = 1, DD_IDLE_PRIO = 2 };
inline constexpr uint32_t DD_DIR_COUNT = 2;
inline constexpr uint32_t DD_PRIO_COUNT = 3;

// struct io_stats_per_prio, plus `requeued` (at-head re-insertions of a request already
// counted; the kernel counts those only as a second `dispatched`), so that
// inserted + requeued - dispatched - merged is exactly what the scheduler holds.
struct IoStatsPerPrio {
    uint64_t inserted = 0;
    uint64_t merged = 0;
    uint64_t dispatched = 0;
    uint64_t completed = 0;
    uint64_t requeued = 0;
};

class MqDeadline final : public Elevator, public ElevatorAudit, public ElevatorCost, public ElevatorBypass {
public:
    explicit MqDeadline(const MqDeadlineTunables& t = {});
    ~MqDeadline() override;
    MqDeadline(const MqDeadline&) = delete;
    MqDeadline& operator=(const MqDeadline&) = delete;

    std::string_view name() const override { return "mq-deadline"; }

    void init_sched(ElevatorQueueAttrs& q) override;
    void prepare_request(blkmq::Request* rq) override { rq->elv_counted = false; }
    void insert_request(blkmq::Request* rq, bool at_head, sim::Time now) override;
    blkmq::Request* dispatch_request(uint32_t /*hctx_idx*/, sim::Time now) override { return dispatch_request(now); }
    bool has_work(uint32_t /*hctx_idx*/) const override { return has_work(); }
    ElvMerge bio_merge(uint32_t /*cpu*/, const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out) override {
        return bio_merge(bio, max_sectors, out);
    }
    void request_merged(blkmq::Request* rq, ElvMerge type) override;
    blkmq::Request* former_request(blkmq::Request* rq) override;
    blkmq::Request* next_request(blkmq::Request* rq) override;
    void requests_merged(blkmq::Request* rq, blkmq::Request* next) override;
    blkmq::Request* insert_merge_last() const override { return last_merge_; }
    blkmq::Request* insert_merge_find(uint64_t sector) override;
    void finish_request(blkmq::Request* rq, sim::Time now) override;
    uint32_t limit_depth(bool is_sync_read, uint32_t nr_requests) const override;
    // dd_depth_updated() since v6.11 ("Fix the tag reservation code"): min_shallow_depth 1,
    // so the scheduler tags wake one sleeper per freed tag whatever async_depth is set to.
    uint32_t depth_updated(uint32_t /*nr_requests*/) const override { return 1; }
    bool may_direct_dispatch(const blkmq::Request& rq, bool hctx_idle) const override;
    void direct_dispatched(blkmq::Request* rq, sim::Time now) override;
    uint64_t queued() const override;
    std::string audit() const override;
    std::string debugfs_show(sim::Time now) const override;

    // The queue-wide forms of the ops (mq-deadline has one state for all hctxs).
    blkmq::Request* dispatch_request(sim::Time now);
    // dd_has_work(): a request waits in some level's dispatch list or FIFOs.
    bool has_work() const { return waiting_ != 0; }
    ElvMerge bio_merge(const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out);

    // Runtime sysfs writes (takes effect for later decisions, as in the kernel: deadlines
    // already assigned stay, started_after() uses the new expire values).
    void set_tunables(const MqDeadlineTunables& t);
    // queue/nomerges=1 (QUEUE_FLAG_NOXMERGES): elv_merge() tries only the one-hit cache.
    void set_noxmerges(bool on) { noxmerges_ = on; }
    const MqDeadlineTunables& tunables() const { return t_; }

    // What debugfs shows (/sys/kernel/debug/block/<dev>/sched/), for tests and reports.
    static DdPrio ioprio_class_to_prio(uint8_t ioprio_class);
    const IoStatsPerPrio& stats(DdPrio prio) const { return per_prio_[prio].stats; }
    // dd_queued(): inserted - completed, i.e. including requests in the device; what the
    // strict-priority rule and aging look at.
    uint64_t dd_queued(DdPrio prio) const;
    uint64_t owned_by_driver(DdPrio prio) const;
    // Requests actually linked in the level's lists (dispatch + both FIFOs).
    uint64_t nr_waiting(DdPrio prio) const;
    uint32_t batching() const { return batching_; }
    uint32_t starved() const { return starved_; }
    DdDataDir last_dir() const { return last_dir_; }
    uint64_t latest_pos(DdPrio prio, DdDataDir dir) const { return per_prio_[prio].latest_pos[dir]; }
    blkmq::Request* last_merge() const { return last_merge_; }

    // The jiffies clock (see the file comment).
    int64_t jiffies(sim::Time t) const { return jif_.at(t); }
    sim::Time jiffies_to_time(int64_t j) const { return jif_.to_time(j); }  // the instant tick j begins
    int64_t msecs_to_jiffies(sim::Duration d) const { return jif_.duration_to_jiffies(d); }

private:
    struct PosOf {
        using type = uint64_t;
        uint64_t operator()(const blkmq::Request& rq) const { return rq.sector; }
    };
    // Equal keys go after the existing ones, as elv_rb_add() sends ties to the right.
    using SortList = boost::intrusive::multiset<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, boost::intrusive::set_member_hook<>, &blkmq::Request::rb_node>,
        boost::intrusive::key_of_value<PosOf>>;
    using FifoList = boost::intrusive::list<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, boost::intrusive::list_member_hook<>, &blkmq::Request::queuelist>>;

    // struct dd_per_prio
    struct DdPerPrio {
        FifoList dispatch;                   // at-head inserts, served first
        SortList sort_list[DD_DIR_COUNT];
        FifoList fifo_list[DD_DIR_COUNT];
        uint64_t latest_pos[DD_DIR_COUNT] = {0, 0};  // sector of the last dispatched request
        blkmq::Request* next_rq[DD_DIR_COUNT] = {nullptr, nullptr};  // with the next_rq tunable
        IoStatsPerPrio stats;
    };

    static DdDataDir rq_data_dir(const blkmq::Request& rq) {
        return blkmq::op_is_write(rq.op) ? DD_WRITE : DD_READ;
    }
    DdPerPrio& per_prio_of(const blkmq::Request& rq) { return per_prio_[ioprio_class_to_prio(rq.ioprio_class)]; }

    blkmq::Request* deadline_from_pos(DdPerPrio& pp, DdDataDir dir, uint64_t pos);
    blkmq::Request* deadline_next_request(DdPerPrio& pp, DdDataDir dir);
    blkmq::Request* deadline_fifo_request(DdPerPrio& pp, DdDataDir dir);
    blkmq::Request* deadline_head_request(DdPerPrio& pp, DdDataDir dir);
    bool deadline_check_fifo(DdPerPrio& pp, DdDataDir dir, int64_t now_j) const;
    void deadline_remove_request(DdPerPrio& pp, blkmq::Request* rq);
    bool started_after(const blkmq::Request& rq, int64_t latest_start) const;
    // __dd_dispatch_request() (renamed: leading double underscores are reserved in C++)
    blkmq::Request* dd_dispatch_from_prio(DdPerPrio& pp, int64_t latest_start, int64_t now_j);
    std::optional<DdDataDir> deadline_choose_dir(DdPerPrio& pp);
    const char* switching(DdDataDir to) const;
    blkmq::Request* deadline_batch_start(DdPerPrio& pp, DdDataDir data_dir, int64_t now_j);
    blkmq::Request* dd_account_dispatch(DdPerPrio& pp, blkmq::Request* rq);
    blkmq::Request* dd_dispatch_prio_aged_requests(int64_t now_j);
    static bool elv_bio_merge_ok(const blkmq::Request& rq, const blkmq::Bio& bio);

    // run time data
    DdPerPrio per_prio_[DD_PRIO_COUNT];
    ElvRqHash hash_;                      // q->elevator->hash
    blkmq::Request* last_merge_ = nullptr;  // q->last_merge: the one-hit merge cache
    // Requests linked in the levels' dispatch lists and FIFOs, all levels together: the
    // kernel's has_work looks at every list, called several times per dispatch round.
    uint64_t waiting_ = 0;
    bool noxmerges_ = false;
    DdDataDir last_dir_ = DD_WRITE;       // direction of the current batch
    uint32_t batching_ = 0;               // requests dispatched in the current batch
    uint32_t starved_ = 0;                // read batches chosen while writes waited

    // settings that change how the i/o scheduler behaves
    MqDeadlineTunables t_;
    Jiffies jif_;
    int64_t fifo_expire_j_[DD_DIR_COUNT] = {0, 0};  // in jiffies, as the kernel keeps them
    int64_t prio_aging_expire_j_ = 0;
    sim::Time now_;                       // the dispatch's instant, for explain_
};

}  // namespace blksim::sched
