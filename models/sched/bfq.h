// BFQ, Budget Fair Queueing (block/bfq-iosched.c, bfq-wf2q.c, bfq-iosched.h, current
// mainline; docs/references.md §5). The policy, in the kernel's words:
//
//  - Every process gets its own queue (bfq_queue) per device. The in-service queue has the
//    device to itself until it has used its budget (in sectors), runs out of requests
//    (possibly after idling for its next one) or hits its budget timeout (timeout_sync).
//  - B-WF2Q+ (bfq_wf2q.cc) picks the next queue: each queue's entity has a virtual start S
//    and finish F = S + budget / weight; a service tree's virtual time V advances by
//    service / (sum of weights); the eligible entity (S <= V) with the smallest F is served.
//    One tree per I/O priority class, served strictly RT before BE before IDLE, the IDLE
//    class getting some service after BFQ_CL_IDLE_TIMEOUT (200 ms) without any.
//  - Weights come from the task's I/O priority: (8 - level) * 10, default 40.
//  - Budget feedback at expiration (__bfq_bfqq_recalc_budget): too idle, budget timeout,
//    budget exhausted, no more requests each change the queue's next budget; max_budget is
//    auto-tuned from the peak rate estimated from dispatches (bfq_update_peak_rate).
//  - Device idling (slice_idle): an in-service sync queue that empties keeps the device for
//    up to slice_idle when bfq_better_to_idle() says so: for throughput on rotational or
//    non-queueing devices with sequential I/O-bound queues, and for service guarantees
//    (asymmetric weights or classes, weight-raised queues, the only busy queue). Seeky
//    queues idle BFQ_MIN_TT (2 ms) at most.
//  - Inside a queue the next request is the closest to the head (bfq_choose_req, backward
//    seeks up to back_seek_max at back_seek_penalty), or once per slot the FIFO head when
//    it has waited fifo_expire_sync.
//  - I/O injection (bfq_inject.cc): while the in-service sync queue is idled for, other
//    queues' requests fill the hole: its waker queue's (detected by bfq_check_waker) or a
//    queue it wakes, else any queue's while fewer than its inject_limit are in the driver;
//    inject_limit is fed back from the measured total service time of its requests.
//  - low_latency: interactive weight raising (x30 for a device-speed dependent time, or
//    until 120000 sectors of service), soft real-time raising (x3000 for 300 ms windows),
//    large-burst detection (>= 8 queues created within 180 ms get no raising), and tighter
//    tag limits while a queue is raised (bfq_limit_depth).
//  - Queue merging (bfq_coop.cc): processes doing I/O close to each other (BFQQ_CLOSE_THR,
//    on rotational or non-queueing devices) or whose queues were created within 180 ms
//    with one priority (stable merge: at once on a queueing SSD, after 600 ms on a disk
//    unless idling pays) share one queue; a shared queue found seeky is split again.
//
// Simplifications (docs/model.md, "bfq"):
//  - every blksim request is synchronous (reads, and O_DIRECT writes are REQ_SYNC), so no
//    async queue is ever created: async queues, the async charge factor, fifo_expire_async
//    and async weight raising are not reachable and not modelled;
//  - no cgroups: one root group, so the hierarchy loops run once and
//    bfqq_request_over_limit() (a cgroup-era per-entity tag limit) is not modelled;
//  - no async queues, so the in-service queue's own async queue is never injected first;
//  - a process never exits during the run; a queue all of whose processes were merged
//    into another one keeps existing (bfqq_process_refs() 0), it is never freed;
//  - one actuator; the active tree is kept as two trees, see bfq_wf2q.cc.
//
// Locking (the core charges it, see ElevatorCost): insert, bio merge, dispatch and
// finish_request all take the single queue-wide bfqd->lock; the idle timer's work takes it
// too (not charged: it runs in hrtimer context for a few hundred ns per idle slice).
#pragma once

#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/set.hpp>

#include "models/sched/bfq_config.h"
#include "models/sched/elevator.h"
#include "models/sched/elv_rqhash.h"
#include "models/sched/jiffies.h"
#include "sim/event_queue.h"
#include "sim/time.h"
#include "sim/timer.h"

namespace blksim::sched {


// enum bfqq_expiration: why the in-service queue lost the device.
enum BfqqExpiration : uint8_t {
    BFQQE_TOO_IDLE,          // the idle timer fired and the queue had no new request
    BFQQE_BUDGET_TIMEOUT,    // timeout_sync passed before the budget was used
    BFQQE_BUDGET_EXHAUSTED,  // the next request does not fit in what is left of the budget
    BFQQE_NO_MORE_REQUESTS,  // empty, and idling would not help
    BFQQE_PREEMPTED,         // a newly busy queue should be served first
    BFQQE_NR,
};

// The constants at the top of bfq-iosched.c / bfq-iosched.h (times in ns unless said).
inline constexpr uint32_t BFQ_IOPRIO_CLASSES = 3;  // RT, BE, IDLE: one service tree each
inline constexpr unsigned int BFQ_WR_COEFF = 30;    // bfqd->bfq_wr_coeff: interactive weight raising
inline constexpr int64_t BFQ_NSEC_PER_MSEC = 1'000'000;
// Below this think time a process counts as having none; seeky queues idle at most this.
inline constexpr int64_t BFQ_MIN_TT = 2 * BFQ_NSEC_PER_MSEC;
// hw_tag detection: parallel requests threshold and samples needed.
inline constexpr uint32_t BFQ_HW_QUEUE_THRESHOLD = 3, BFQ_HW_QUEUE_SAMPLES = 32;
// Budgets (sectors): the default maximum until bfq_stats_min_budgets budgets were assigned.
inline constexpr int bfq_stats_min_budgets = 194;
inline constexpr int bfq_default_max_budget = 16 * 1024;

struct BfqQueue;
struct BfqIoCq;

// struct bfq_entity: what B-WF2Q+ schedules (here always a queue: no groups).
struct BfqEntity {
    enum class Tree : uint8_t { NONE, ACTIVE_ELIGIBLE, ACTIVE_INELIGIBLE, IDLE };

    boost::intrusive::set_member_hook<> rb_node;  // in one of its service tree's trees
    Tree tree = Tree::NONE;
    bool on_st_or_in_serv = false;  // on a tree or in service: counted in the tree's wsum
    uint64_t start = 0, finish = 0;  // B-WF2Q+ timestamps [sectors << 22 / weight]
    int service = 0;                 // sectors received in the current slot
    int budget = 0;                  // F = S + budget / weight
    int weight = 0;                  // orig_weight * wr_coeff
    int new_weight = 0;              // from the task's ioprio, applied at the next activation
    int orig_weight = 0;
    bool prio_changed = false;
    int allocated = 0;               // requests allocated to the queue (bfqq_request_allocated)
    BfqQueue* bfqq = nullptr;        // bfq_entity_to_bfqq(): every entity is a queue here
};

// Per-process think time (struct bfq_ttime), ns.
struct BfqTtime {
    int64_t last_end_request = 0;
    uint64_t ttime_total = 0;
    uint64_t ttime_samples = 0;
    uint64_t ttime_mean = 0;
};

// struct bfq_queue: one process's requests on this device.
struct BfqQueue {
    struct PosOf {
        using type = uint64_t;
        uint64_t operator()(const blkmq::Request& rq) const { return rq.sector; }
    };
    // elv_rb: sorted by start sector, equal keys after the existing ones (elv_rb_add).
    using SortList = boost::intrusive::multiset<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, boost::intrusive::set_member_hook<>, &blkmq::Request::rb_node>,
        boost::intrusive::key_of_value<PosOf>>;
    using FifoList = boost::intrusive::list<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, boost::intrusive::list_member_hook<>, &blkmq::Request::queuelist>>;

    uint32_t pid = 0;
    BfqEntity entity;
    uint8_t ioprio = 4, ioprio_class = 2;  // in use (IOPRIO_CLASS_RT/BE/IDLE = 1/2/3)
    uint8_t new_ioprio = 4, new_ioprio_class = 2;

    SortList sort_list;                  // pending requests by sector
    blkmq::Request* next_rq = nullptr;   // the request to serve next if the FIFO has not expired
    int queued[2] = {0, 0};              // async, sync requests queued
    FifoList fifo;                       // pending requests in arrival order

    int max_budget = 0;                  // the budget the feedback grants next
    int64_t budget_timeout = 0;          // jiffies; also "since when empty and idle" (see expire)
    int dispatched = 0;                  // requests in the driver

    // status flags (BFQQF_*)
    bool busy = false, wait_request = false, non_blocking_wait_rq = false, fifo_expire = false,
         has_short_ttime = false, sync = false, IO_bound = false, in_large_burst = false,
         just_created = false, softrt_update = false, in_burst_list = false;

    BfqTtime ttime;
    uint32_t seek_history = 0;           // a 1 per seeky request, newest in bit 0
    uint64_t last_request_pos = 0;       // end of the last request enqueued
    int64_t io_start_time = 0, tot_idle_time = 0;  // ns: the I/O-bound estimate's window

    // weight raising (jiffies, sectors)
    unsigned int wr_coeff = 1;
    int64_t wr_cur_max_time = 0, soft_rt_next_start = 0, last_wr_start_finish = 0;
    int64_t last_idle_bklogged = 0, wr_start_at_switch_to_srt = 0, split_time = 0, first_IO_time = 0;
    uint64_t service_from_backlogged = 0, service_from_wr = 0;

    int weight_counter = 0;              // the weight counted in the weights tree, 0 = none

    // I/O injection and waker detection (bfq_inject.cc). inject_limit: how many requests may
    // be in the driver while this queue, in service, has none queued; tuned by the total
    // service time of its first request after a hole (last_serv_time_ns is the baseline).
    unsigned int inject_limit = 0;
    uint64_t last_serv_time_ns = 0;
    int64_t decrease_time_jif = 0;       // jiffies of the last decrease (or reset) of the limit
    BfqQueue* waker_bfqq = nullptr;      // the queue whose completions this one waits for
    BfqQueue* tentative_waker_bfqq = nullptr;
    unsigned int num_waker_detections = 0;
    uint64_t waker_detection_started = 0;  // ns
    // woken_list: the queues whose waker_bfqq this is, newest first (the kernel's hlist:
    // woken_list is the head, woken_next / woken_pprev the node; linked = woken_pprev set).
    BfqQueue* woken_list = nullptr;
    BfqQueue* woken_next = nullptr;
    BfqQueue** woken_pprev = nullptr;
    boost::intrusive::list_member_hook<> bfqq_list;  // on bfqd->active_list while on an active tree

    // What the model counts (the kernel's blkg stats are elsewhere): sectors dispatched,
    // service slots begun and how they ended.
    uint64_t served_sectors = 0, slots = 0;
    uint64_t expirations[BFQQE_NR] = {};

    // Queue merging of cooperating processes (bfq_coop.cc).
    BfqQueue* new_bfqq = nullptr;        // scheduled merge: this queue's processes move there
    int process_refs = 1;                // bfqq_process_refs(): processes (bics) using it
    bool coop = false, split_coop = false;  // BFQQF_coop (shared), BFQQF_split_coop
    BfqIoCq* bic = nullptr;              // the owning process's bic; null while shared
    int64_t creation_time = 0;           // jiffies
    boost::intrusive::set_member_hook<> pos_node;  // in rq_pos_tree_ (bfqq->pos_root != NULL)
};

// struct bfq_io_cq: a process's view of the device (the kernel's per-io_context data): its
// sync queue and what queue merging keeps of it.
struct BfqIoCq {
    uint32_t pid = 0;
    BfqQueue* bfqq = nullptr;  // bic->bfqq[1]: the process's sync queue (own or shared)
    BfqQueue* stable_merge_bfqq = nullptr;  // delayed stable merge scheduled with this queue
    bool stably_merged = false;             // never split again
    // The process's requests allocated in bfq and not yet finished (bic->requests): with
    // merged queues a queue's allocated count is several processes', and waker detection
    // and the inject-limit measurement look at the process's own I/O (bfq_add_request()).
    int requests = 0;
    // bfq_bfqq_save_state(): the queue's state when it was merged, resumed on a split.
    bool saved_has_short_ttime = false, saved_IO_bound = false, saved_in_large_burst = false,
         was_in_burst_list = false;
    int saved_weight = 0;
    BfqTtime saved_ttime;
    int64_t saved_io_start_time = 0, saved_tot_idle_time = 0;
    unsigned int saved_wr_coeff = 1;
    int64_t saved_wr_start_at_switch_to_srt = 0, saved_last_wr_start_finish = 0, saved_wr_cur_max_time = 0;
    uint64_t saved_service_from_wr = 0;
    // I/O injection state (bfq_inject.cc): the process's inject limit and its baseline.
    uint64_t saved_last_serv_time_ns = 0;
    unsigned int saved_inject_limit = 0;
    int64_t saved_decrease_time_jif = 0;
};

// The kernel's generic __sw_hweight32(): a few inline instructions where std::popcount
// calls libgcc on the baseline x86-64 the build targets (no POPCNT instruction).
constexpr unsigned sw_hweight32(uint32_t w) {
    w -= (w >> 1) & 0x55555555u;
    w = (w & 0x33333333u) + ((w >> 2) & 0x33333333u);
    w = (w + (w >> 4)) & 0x0f0f0f0fu;
    return (w * 0x01010101u) >> 24;
}

// BFQQ_SEEKY(): more than 19 of the last 32 requests were seeky.
inline bool bfqq_seeky(const BfqQueue* bfqq) { return sw_hweight32(bfqq->seek_history) > 19; }

// What the scheduler counts as a whole, for tests, the report and the invariant check.
struct BfqStats {
    uint64_t inserted = 0;     // requests inserted (a requeued one again)
    uint64_t merged = 0;       // requests absorbed by another
    uint64_t dispatched = 0;   // handed to the driver
    uint64_t completed = 0;    // finished after dispatch
    uint64_t requeued = 0;     // came back from the driver
    uint64_t idle_slices = 0;  // bfq_arm_slice_timer() calls
    uint64_t idle_timer_fired = 0;
    uint64_t expirations[BFQQE_NR] = {};
    uint64_t queues_created = 0;
    uint64_t wr_interactive = 0, wr_soft_rt = 0;  // weight-raising periods started
    uint64_t peak_rate_updates = 0;
    uint64_t queue_merges = 0, queue_splits = 0;  // bfq_merge_bfqqs(), bfq_split_bfqq()
    uint64_t injected = 0;     // dispatched from a queue not in service, while idling for it
};

class Bfq final : public Elevator, public ElevatorAudit, public ElevatorCost, public ElevatorReport {
public:
    // queue/nomerges=1 (QUEUE_FLAG_NOXMERGES): elv_merge() tries only the one-hit cache.
    void set_noxmerges(bool on) { noxmerges_ = on; }
    // `rotational`: queue/rotational of the device (blk_queue_nonrot() is its negation).
    Bfq(const BfqTunables& t, sim::EventQueue& eq, bool rotational);
    ~Bfq() override;
    Bfq(const Bfq&) = delete;
    Bfq& operator=(const Bfq&) = delete;

    std::string_view name() const override { return "bfq"; }

    void prepare_request(blkmq::Request* rq) override;
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
    void requeue_request(blkmq::Request* rq) override;
    uint32_t limit_depth(bool is_sync_read, uint32_t nr_requests) const override;
    // bfq_depth_updated(): min_shallow_depth 1 (its smallest word depth can be 1).
    uint32_t depth_updated(uint32_t /*nr_requests*/) const override { return 1; }
    uint64_t queued() const override;
    std::string audit() const override;
    std::string debugfs_show(sim::Time now) const override;
    std::string check_idle() const override;
    LockCost lock_cost(const cpu::CpuCosts& c) const override {
        return {LockScope::QUEUE, {c.bfq_insert, c.bfq_dispatch, c.elv_insert, c.bfq_finish}};
    }
    void report(result::DeviceReport& r) const override;

    // The queue-wide forms of the ops (bfq has one state for all hctxs).
    blkmq::Request* dispatch_request(sim::Time now);
    bool has_work() const;
    ElvMerge bio_merge(const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out);

    // A sysfs write (bfq_*_store): takes effect for later decisions.
    void set_tunables(const BfqTunables& t);
    const BfqTunables& tunables() const { return t_; }

    // What debugfs / blktrace's bfq messages would show, for tests and the report.
    const BfqQueue* queue_of(uint32_t pid) const;
    const BfqIoCq* bic_of(uint32_t pid) const {  // null: the process has sent no request yet
        const auto it = bics_.find(pid);
        return it == bics_.end() ? nullptr : &it->second;
    }
    std::span<const std::unique_ptr<BfqQueue>> queues() const { return queues_; }
    const BfqQueue* in_service_queue() const { return in_service_queue_; }
    const BfqStats& stats() const { return stats_; }
    int max_budget() const { return max_budget_; }  // bfqd->bfq_max_budget
    uint32_t peak_rate() const { return peak_rate_; }  // sectors/us << BFQ_RATE_SHIFT
    int hw_tag() const { return hw_tag_; }
    uint32_t tot_rq_in_driver() const { return tot_rq_in_driver_; }
    bool idle_timer_armed() const { return idle_slice_timer_.armed(); }
    sim::Time idle_timer_expires() const { return idle_slice_timer_.expires(); }
    uint32_t busy_queues() const { return busy_queues_[0] + busy_queues_[1] + busy_queues_[2]; }
    uint32_t wr_busy_queues() const { return wr_busy_queues_; }
    uint64_t vtime(uint32_t class_idx) const { return st_[class_idx].vtime; }
    uint64_t wsum(uint32_t class_idx) const { return st_[class_idx].wsum; }

    // The weight of ioprio level 0..7 (bfq_ioprio_to_weight).
    static int bfq_ioprio_to_weight(int ioprio) { return (8 - ioprio) * 10; }
    // bfq_limit_depth()'s shallow depth for nr_requests scheduler tags: sync reads are not
    // limited; sync writes get 3/4 (6/16 while a queue is weight-raised), async 1/2 (3/16),
    // per sbitmap word as sbitmap_queue_get_shallow() applies it.
    static uint32_t bfq_shallow_depth(uint32_t nr_requests, bool wr_busy, bool op_is_sync);

private:
    using Request = blkmq::Request;

    // --- B-WF2Q+ (bfq_wf2q.cc) ----------------------------------------------------------
    struct FinishOf {
        using type = uint64_t;
        uint64_t operator()(const BfqEntity& e) const { return e.finish; }
    };
    // Eligible entities and the idle tree are ordered by finish time; ineligible ones by
    // start time (then finish). bfq_gt(): timestamps compare modulo wraparound.
    struct VtimeLess {
        bool operator()(uint64_t a, uint64_t b) const { return static_cast<int64_t>(a - b) < 0; }
    };
    struct StartFinishLess {
        bool operator()(const BfqEntity& a, const BfqEntity& b) const {
            if (a.start != b.start)
                return static_cast<int64_t>(a.start - b.start) < 0;
            return static_cast<int64_t>(a.finish - b.finish) < 0;
        }
    };
    using EntityHook =
        boost::intrusive::member_hook<BfqEntity, boost::intrusive::set_member_hook<>, &BfqEntity::rb_node>;
    using FinishTree = boost::intrusive::multiset<BfqEntity, EntityHook, boost::intrusive::key_of_value<FinishOf>,
                                                  boost::intrusive::compare<VtimeLess>>;
    using StartTree = boost::intrusive::multiset<BfqEntity, EntityHook, boost::intrusive::compare<StartFinishLess>>;

    // struct bfq_service_tree.
    struct ServiceTree {
        FinishTree eligible;     // active entities with start <= vtime, by finish
        StartTree ineligible;    // active entities with start > vtime, by start
        FinishTree idle;         // not backlogged, finish > vtime: they keep their timestamps
        uint64_t vtime = 0;
        uint64_t wsum = 0;       // weights of active and idle entities
        bool active_empty() const { return eligible.empty() && ineligible.empty(); }
    };

    static bool bfq_gt(uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b) > 0; }
    static uint64_t bfq_delta(uint64_t service, uint64_t weight);
    static uint32_t bfq_class_idx(const BfqEntity& e) { return e.bfqq->ioprio_class - 1u; }
    ServiceTree& bfq_entity_service_tree(const BfqEntity& e) { return st_[bfq_class_idx(e)]; }

    void bfq_calc_finish(BfqEntity& e, uint64_t service);
    void bfq_active_insert(ServiceTree& st, BfqEntity& e);
    void bfq_active_extract(ServiceTree& st, BfqEntity& e);
    void bfq_idle_insert(ServiceTree& st, BfqEntity& e);
    void bfq_idle_extract(ServiceTree& st, BfqEntity& e);
    void bfq_update_eligible(ServiceTree& st);
    void bfq_forget_entity(ServiceTree& st, BfqEntity& e);
    void bfq_put_idle_entity(ServiceTree& st, BfqEntity& e);
    void bfq_forget_idle(ServiceTree& st);
    void bfq_update_vtime(ServiceTree& st, uint64_t new_value);
    ServiceTree& bfq_entity_update_weight_prio(ServiceTree& old_st, BfqEntity& e, bool update_class_too);
    void bfq_update_fin_time_enqueue(BfqEntity& e, ServiceTree& st, bool backshifted);
    void bfq_activate_entity(BfqEntity& e, bool non_blocking_wait_rq);
    void bfq_requeue_entity(BfqEntity& e);
    void bfq_activate_requeue_entity(BfqEntity& e, bool non_blocking_wait_rq, bool requeue, bool expiration);
    bool bfq_deactivate_entity_once(BfqEntity& e, bool ins_into_idle_tree);
    void bfq_deactivate_entity(BfqEntity& e, bool ins_into_idle_tree, bool expiration);
    BfqEntity* bfq_lookup_next_entity(bool expiration);
    bool bfq_update_next_in_service(BfqEntity* new_entity, bool expiration);
    BfqQueue* bfq_get_next_queue();
    void bfq_bfqd_reset_in_service();
    void bfq_bfqq_served(BfqQueue* bfqq, int served);
    void bfq_bfqq_charge_time(BfqQueue* bfqq, int64_t time_ms);
    void bfq_activate_bfqq(BfqQueue* bfqq);
    void bfq_requeue_bfqq(BfqQueue* bfqq, bool expiration);
    void bfq_del_bfqq_busy(BfqQueue* bfqq, bool expiration);
    void bfq_add_bfqq_busy(BfqQueue* bfqq);
    void bfq_weights_tree_add(BfqQueue* bfqq);
    void bfq_weights_tree_remove(BfqQueue* bfqq);
    bool bfq_asymmetric_scenario(const BfqQueue* bfqq) const;
    bool next_queue_may_preempt() const { return next_in_service_ != in_service_entity_; }

    // --- queues and requests (bfq.cc) -----------------------------------------------------
    static BfqQueue* RQ_BFQQ(const Request* rq) { return static_cast<BfqQueue*>(rq->elv_priv); }
    // RQ_BIC(): the submitting process's bic (set by bfq_init_rq()).
    static BfqIoCq* RQ_BIC(const Request* rq) { return static_cast<BfqIoCq*>(rq->elv_icq); }
    BfqQueue* bfq_get_queue(uint32_t pid) const;
    BfqQueue* bfq_init_rq(Request* rq);
    void bfq_init_bfqq(BfqQueue* bfqq, uint32_t pid);
    void bfq_set_next_ioprio_data(BfqQueue* bfqq, uint8_t ioprio_class, uint8_t ioprio_level);
    Request* bfq_choose_req(Request* rq1, Request* rq2, uint64_t last) const;
    Request* bfq_check_fifo(BfqQueue* bfqq, const Request* last);
    Request* bfq_find_next_rq(BfqQueue* bfqq, Request* last);
    int bfq_serv_to_charge(const Request* rq, const BfqQueue* bfqq) const;
    void bfq_updated_next_req(BfqQueue* bfqq);
    void bfq_add_request(Request* rq);
    void bfq_remove_request(Request* rq);
    void bfq_insert_bfqq_request(Request* rq);
    void bfq_rq_enqueued(BfqQueue* bfqq, Request* rq);
    void bfq_update_io_thinktime(BfqQueue* bfqq);
    void bfq_update_io_seektime(BfqQueue* bfqq, const Request* rq);
    void bfq_update_has_short_ttime(BfqQueue* bfqq);
    void bfq_update_io_intensity(BfqQueue* bfqq);
    // BFQ_RQ_SEEKY(): farther than 800 sectors from the previous request (and, on a
    // non-rotational device, small: a large request is efficient anywhere). Inline: asked
    // twice per request (its seek history, the peak rate's sequential samples).
    bool bfq_rq_seeky(uint64_t last_pos, const Request* rq) const {
        constexpr uint64_t BFQQ_SEEK_THR = 8 * 100, BFQQ_SECT_THR_NONROT = 2 * 32;
        const uint64_t sdist = last_pos ? (rq->sector > last_pos ? rq->sector - last_pos : last_pos - rq->sector) : 0;
        return sdist > BFQQ_SEEK_THR && (!nonrot() || rq->nr_sectors < BFQQ_SECT_THR_NONROT);
    }

    // --- service: selection, expiration, budgets, idling (bfq.cc) --------------------------
    static int bfq_bfqq_budget_left(const BfqQueue* bfqq) { return bfqq->entity.budget - bfqq->entity.service; }
    int bfq_max_budget() const;  // the default until enough budgets were assigned
    int bfq_min_budget() const;
    BfqQueue* bfq_select_queue();
    Request* bfq_dispatch_rq_from_bfqq(BfqQueue* bfqq);
    void bfq_dispatch_remove(Request* rq);
    void bfq_set_in_service_queue_fields(BfqQueue* bfqq);
    void bfq_set_budget_timeout(BfqQueue* bfqq);
    bool bfq_bfqq_budget_timeout(const BfqQueue* bfqq) const { return jiffies() >= bfqq->budget_timeout; }
    bool bfq_may_expire_for_budg_timeout(const BfqQueue* bfqq) const;
    void bfq_bfqq_expire(BfqQueue* bfqq, bool compensate, BfqqExpiration reason);
    void bfq_bfqq_expire_finish(BfqQueue* bfqq, BfqqExpiration reason);
    void bfq_bfqq_recalc_budget(BfqQueue* bfqq, BfqqExpiration reason);
    bool bfq_bfqq_is_slow(const BfqQueue* bfqq, bool compensate, int64_t* delta_ms) const;
    bool idling_boosts_thr_without_issues(const BfqQueue* bfqq) const;
    bool idling_needed_for_service_guarantees(const BfqQueue* bfqq) const;
    bool bfq_better_to_idle(const BfqQueue* bfqq) const;
    bool bfq_bfqq_must_idle(const BfqQueue* bfqq) const { return bfqq->sort_list.empty() && bfq_better_to_idle(bfqq); }
    void bfq_arm_slice_timer();
    void bfq_idle_slice_timer();
    static void idle_timer_fired(void* self, uint64_t) { static_cast<Bfq*>(self)->bfq_idle_slice_timer(); }
    void bfq_schedule_dispatch();
    void bfq_completed_request(BfqQueue* bfqq);
    void bfq_finish_requeue_request(Request* rq);
    void bfq_update_hw_tag();

    // --- I/O injection and waker/wakee detection (bfq_inject.cc) ---------------------------
    void bfq_reset_inject_limit(BfqQueue* bfqq);
    void bfq_check_waker(BfqQueue* bfqq, uint64_t now_ns);
    void bfq_add_request_inject(BfqQueue* bfqq, const Request* rq);
    void bfq_inherit_waker(BfqQueue* bfqq, BfqQueue* waker_bfqq);
    void bfq_update_inject_limit(BfqQueue* bfqq);
    BfqQueue* bfq_choose_bfqq_for_injection();
    BfqQueue* bfq_select_queue_while_idling(BfqQueue* bfqq);

    // --- peak rate, weight raising, bursts (bfq_wr.cc) ---------------------------------------
    void bfq_update_peak_rate(const Request* rq);
    void bfq_update_rate_reset(const Request* rq);
    void bfq_reset_rate_computation(const Request* rq);
    int bfq_calc_max_budget() const;
    int64_t bfq_wr_duration() const;
    void bfq_bfqq_handle_idle_busy_switch(BfqQueue* bfqq, unsigned int old_wr_coeff, bool* interactive);
    bool bfq_bfqq_update_budg_for_activation(BfqQueue* bfqq, bool arrived_in_time);
    void bfq_update_bfqq_wr_on_rq_arrival(BfqQueue* bfqq, unsigned int old_wr_coeff, bool wr_or_deserves_wr,
                                          bool interactive, bool in_burst, bool soft_rt);
    void bfq_update_wr_data(BfqQueue* bfqq);
    void bfq_bfqq_end_wr(BfqQueue* bfqq);
    void bfq_end_wr();
    void switch_back_to_interactive_wr(BfqQueue* bfqq);
    int64_t bfq_bfqq_softrt_next_start(const BfqQueue* bfqq) const;
    // --- queue merging: cooperating processes (bfq_coop.cc) ----------------------------------
    struct PosKeyOf {
        using type = uint64_t;
        uint64_t operator()(const BfqQueue& q) const { return q.next_rq->sector; }
    };
    // bfqd->rq_pos_tree: queues by their next request's sector, one queue per sector.
    using PosTree = boost::intrusive::set<
        BfqQueue, boost::intrusive::member_hook<BfqQueue, boost::intrusive::set_member_hook<>, &BfqQueue::pos_node>,
        boost::intrusive::key_of_value<PosKeyOf>>;
    BfqIoCq* bfq_bic_lookup(uint32_t pid);
    BfqIoCq* bfq_bic_find(uint32_t pid);
    BfqQueue* bfq_alloc_queue(Request* rq);
    BfqQueue* bfq_rq_bic_queue(BfqIoCq* bic, Request* rq);
    BfqQueue* bfq_waker_bfqq(BfqQueue* bfqq) const;
    BfqQueue* bfq_get_bfqq_handle_split(BfqIoCq* bic, Request* rq, bool split, bool* new_queue);
    BfqQueue* bfq_do_or_sched_stable_merge(BfqQueue* bfqq, BfqIoCq* bic);
    BfqQueue* bfq_split_bfqq(BfqIoCq* bic, BfqQueue* bfqq);
    void bic_set_bfqq(BfqIoCq* bic, BfqQueue* bfqq);
    bool nonrot_with_queueing() const { return nonrot() && hw_tag_ != 0; }  // hw_tag -1: unknown yet
    bool bfq_too_late_for_merging(const BfqQueue* bfqq) const;
    void bfq_pos_tree_add_move(BfqQueue* bfqq);
    void bfq_pos_tree_remove(BfqQueue* bfqq);
    void bfq_pos_tree_update(BfqQueue* bfqq) {  // the `unlikely(!nonrot_with_queueing)` calls
        if (!nonrot_with_queueing())
            bfq_pos_tree_add_move(bfqq);
    }
    BfqQueue* bfqq_find_close(uint64_t sector);
    bool bfq_may_be_close_cooperator(const BfqQueue* bfqq, const BfqQueue* new_bfqq) const;
    BfqQueue* bfq_setup_merge(BfqQueue* bfqq, BfqQueue* new_bfqq);
    BfqQueue* bfq_setup_stable_merge(BfqQueue* bfqq, BfqIoCq* bic);
    BfqQueue* bfq_setup_cooperator(BfqQueue* bfqq, const uint64_t* sector, BfqIoCq* bic);
    void bfq_bfqq_save_state(BfqQueue* bfqq);
    void bfq_bfqq_resume_state(BfqQueue* bfqq, BfqIoCq* bic, bool bfqq_already_existing);
    BfqQueue* bfq_merge_bfqqs(BfqIoCq* bic, BfqQueue* bfqq);
    void bfq_release_process_ref(BfqQueue* bfqq);
    void bfq_put_cooperator(BfqQueue* bfqq);
    bool bfq_allow_bio_merge(const blkmq::Bio& bio);
    BfqQueue* bfq_insert_cooperator(Request* rq);

    void bfq_handle_burst(BfqQueue* bfqq);
    void bfq_reset_burst_list(BfqQueue* bfqq);
    void bfq_add_to_burst(BfqQueue* bfqq);

    int64_t jiffies() const { return jif_.at(now_); }
    int64_t now_ns() const { return now_.ns(); }
    // bfq_smallest_from_now(): the farthest past instant (jiffies - MAX_JIFFY_OFFSET); an
    // offset that cannot overflow when timeouts are added to it.
    int64_t bfq_smallest_from_now() const { return jiffies() - (int64_t{1} << 60); }
    bool nonrot() const { return !rotational_; }

    // --- settings ------------------------------------------------------------------------
    BfqTunables t_;
    Jiffies jif_;
    int64_t bfq_timeout_ = 0;          // jiffies (bfqd->bfq_timeout)
    int64_t bfq_slice_idle_ = 0;       // ns
    int64_t fifo_expire_[2] = {0, 0};  // ns: async, sync
    int64_t bfq_wr_rt_max_time_ = 0, bfq_wr_min_idle_time_ = 0, bfq_wr_min_inter_arr_async_ = 0;
    int64_t bfq_burst_interval_ = 0;
    int64_t rate_dur_prod_ = 0;
    bool rotational_;

    // --- run time data (struct bfq_data) ------------------------------------------------
    sim::EventQueue& eq_;
    sim::Time now_;
    ServiceTree st_[BFQ_IOPRIO_CLASSES];
    BfqEntity* in_service_entity_ = nullptr;
    BfqEntity* next_in_service_ = nullptr;
    int64_t bfq_class_idle_last_service_ = 0;
    BfqQueue* in_service_queue_ = nullptr;

    std::vector<std::unique_ptr<BfqQueue>> queues_;
    BfqQueue::FifoList dispatch_;      // bfqd->dispatch: at-head (requeued) requests
    struct WeightCounter {
        int weight;
        uint32_t num_active;
    };
    std::vector<WeightCounter> queue_weights_tree_;  // sorted by weight (bfq_weights_tree)

    uint32_t busy_queues_[BFQ_IOPRIO_CLASSES] = {0, 0, 0};
    uint32_t wr_busy_queues_ = 0;
    uint32_t queued_ = 0;                // requests in the queues' sort lists
    uint32_t tot_rq_in_driver_ = 0;
    uint32_t max_rq_in_driver_ = 0;
    uint32_t hw_tag_samples_ = 0;
    int hw_tag_ = -1;                    // -1 = not yet known
    int budgets_assigned_ = 0;
    sim::LazyTimer idle_slice_timer_;   // armed at nearly every completion, fires rarely
    uint32_t idle_timer_cpu_ = 0;       // the CPU that armed it, where it fires
    uint64_t last_position_ = 0, in_serv_last_pos_ = 0;

    // peak rate estimation (ns, sectors)
    int64_t last_completion_ = 0, first_dispatch_ = 0, last_dispatch_ = 0;
    int64_t last_budget_start_ = 0, last_idling_start_ = 0;
    uint32_t peak_rate_samples_ = 0, sequential_samples_ = 0;
    uint64_t tot_sectors_dispatched_ = 0;
    uint32_t last_rq_max_size_ = 0;
    int64_t delta_from_first_ = 0;
    uint32_t peak_rate_ = 0;
    int max_budget_ = 0;                 // bfqd->bfq_max_budget
    int user_max_budget_ = 0;

    // burst detection
    std::vector<BfqQueue*> burst_list_;
    uint32_t burst_size_ = 0;
    bool large_burst_ = false;
    int64_t last_ins_in_burst_ = 0;

    // merging
    ElvRqHash hash_;                     // q->elevator->hash
    bool noxmerges_ = false;
    Request* last_merge_ = nullptr;      // q->last_merge

    // word depths for bfq_limit_depth, computed for the last nr_requests seen
    mutable uint32_t depth_nr_requests_ = 0;
    mutable uint32_t depth_limits_[2][2] = {};

    // queue merging (bfq_coop.cc)
    std::unordered_map<uint32_t, BfqIoCq> bics_;  // by pid; elements never move
    // The bics looked up, by pid modulo kBicHint: in the kernel a task reaches its own
    // io_cq through its io_context's hint; here a pid (1000 + the job's number) finds its bic
    // in its slot without the map, unless a job whose pid differs by a multiple of kBicHint
    // took the slot since (then the map, and the slot is retaken).
    static constexpr uint32_t kBicHint = 64;
    struct BicHint {
        uint32_t pid = 0;
        BfqIoCq* bic = nullptr;
    };
    BicHint bic_hint_[kBicHint] = {};
    PosTree rq_pos_tree_;
    BfqQueue* last_bfqq_created_ = nullptr;   // bfqd->last_bfqq_created: stable merging
    BfqQueue* bio_bfqq_ = nullptr;            // bfqd->bio_bfqq / bio_bic during bio_merge
    BfqIoCq* bio_bic_ = nullptr;

    // I/O injection (bfq_inject.cc): bfqd->active_list (the queues on an active tree, the
    // newest activated first), the request whose total service time is being measured
    // (waited_rq, picked at dispatch while wait_dispatch), whether requests were injected
    // since, when the measured request arrived, and the last completion's queue.
    using ActiveList = boost::intrusive::list<
        BfqQueue, boost::intrusive::member_hook<BfqQueue, boost::intrusive::list_member_hook<>, &BfqQueue::bfqq_list>>;
    ActiveList active_list_;
    BfqQueue* last_completed_rq_bfqq_ = nullptr;
    const Request* waited_rq_ = nullptr;
    bool wait_dispatch_ = false, rqs_injected_ = false;
    uint64_t last_empty_occupied_ns_ = 0;
    int64_t last_idling_start_jiffies_ = 0;

    BfqStats stats_;
};

}  // namespace blksim::sched
