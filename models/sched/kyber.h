// Kyber (block/kyber-iosched.c, current mainline): no sorting and no priorities; latency is
// kept at a target by limiting how many requests of each kind may be in the device at
// once. Requests are split into scheduling domains by operation (READ, WRITE, DISCARD,
// OTHER); each domain has a device-wide pool of tokens (kyber_depth: 256 / 128 / 64 / 16),
// and a request needs one of its domain's tokens to be dispatched, held until it ends.
//
// Structure, as in the kernel:
//   per ctx (kyber_ctx_queue)   one list per domain where requests wait after insert and
//                               where bios are merged (the last 8 requests, from the tail);
//   per hctx (kyber_hctx_data)  one list per domain of requests pulled for dispatch, the
//                               domain being batched (cur_domain, batching) and the hctx's
//                               wait entries on the token pools;
//   per queue (kyber_queue_data) the token pools, the latency histograms, the timer.
// Dispatch batches kyber_batch_size (16 / 8 / 1 / 1) requests of one domain, then moves
// round-robin to the next domain that has requests and a token. A domain's ctx lists are
// flushed into the hctx list only once a token is in hand, so requests stay mergeable.
//
// Feedback (kyber_timer_fn): every completion adds a sample of its total latency
// (completion - allocation) and its I/O latency (completion - issue) to a histogram of 8
// buckets, each 1/4 of the domain's target wide, and pulls the timer to fire within
// 100 ms. When it fires: if some domain's p90 I/O latency is above target, the device is
// congested and every domain with a known p99 total latency is resized to
// depth * (p99 bucket + 1) / 4 (a good domain is throttled, a bad one eased); without
// congestion only domains whose own p99 is above target are resized (they grow).
// Percentiles need 500 samples or 1 s since the first one.
//
// Simplifications (docs/model.md):
//   - a token pool is a counter (tokens in use, depth) rather than an sbitmap: which token
//     a request holds carries no meaning; after a shrink, new tokens are refused until the
//     count is below the new depth (the kernel refuses until a low-numbered bit is free).
//   - a pool's 8 wait queues (SBQ_WAIT_QUEUES) are one FIFO of waiting hctxs; as in
//     sbitmap, every wake_batch = clamp(depth / 8, 1, 8) tokens freed while hctxs wait
//     wake up to wake_batch of them, each waking rerunning its hctx (kyber_domain_wake).
//   - the per-CPU histograms are one histogram: the timer sums them anyway.
//   - blksim's requests are reads, writes and discards (fio's trims), so OTHER stays empty; and
//     every blksim I/O is O_DIRECT (REQ_SYNC), which kyber_limit_depth never limits, so
//     async_depth is computed and tested but does not bind in a simulated run.
//
// Locking (the core charges it, see Elevator::lock_scope): insert and bio merge under the
// submitting CPU's kcq->lock, dispatch under the hctx's khd->lock; completion, has_work and
// the timer take no lock the model charges.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/intrusive/list.hpp>

#include "models/sched/elevator.h"
#include "models/sched/jiffies.h"
#include "sim/event_queue.h"
#include "sim/time.h"
#include "sim/timer.h"

namespace blksim::sched {

// Scheduling domains: the device is divided into multiple domains based on the request type.
enum KyberDomain : uint8_t { KYBER_READ, KYBER_WRITE, KYBER_DISCARD, KYBER_OTHER, KYBER_NUM_DOMAINS };

// Maximum (and initial) device-wide depth of each domain.
inline constexpr uint32_t kyber_depth[KYBER_NUM_DOMAINS] = {256, 128, 64, 16};
// Requests dispatched in a row from one domain. Reads are favoured.
inline constexpr uint32_t kyber_batch_size[KYBER_NUM_DOMAINS] = {16, 8, 1, 1};
// Default latency targets (KYBER_OTHER has none and is never adjusted).
inline constexpr int64_t kyber_latency_targets[KYBER_OTHER] = {2'000'000, 10'000'000, 5'000'000'000};

enum : uint32_t {
    // 25 % of the scheduler tags are kept for synchronous requests.
    KYBER_ASYNC_PERCENT = 75,
    // Histogram buckets are target >> KYBER_LATENCY_SHIFT wide; the first
    // KYBER_GOOD_BUCKETS are <= target ("good"), as many again are "bad".
    KYBER_LATENCY_SHIFT = 2,
    KYBER_GOOD_BUCKETS = 1u << KYBER_LATENCY_SHIFT,
    KYBER_LATENCY_BUCKETS = 2u << KYBER_LATENCY_SHIFT,
};
// Both the total latency and the I/O latency (after submission to the device) are kept.
enum KyberLatencyType : uint8_t { KYBER_TOTAL_LATENCY, KYBER_IO_LATENCY };

// Tunables: the two sysfs attributes (nanoseconds) and the build constant HZ the timer and
// the percentile window are counted in.
struct KyberTunables {
    sim::Duration read_lat_nsec = sim::Duration::ns(kyber_latency_targets[KYBER_READ]);
    sim::Duration write_lat_nsec = sim::Duration::ns(kyber_latency_targets[KYBER_WRITE]);
    int32_t hz = 250;  // CONFIG_HZ: the timer fires at a jiffy, HZ / 10 jiffies after a completion
};

std::span<const Tunable<KyberTunables>> kyber_tunables();
const Tunable<KyberTunables>* find_kyber_tunable(std::string_view name);

// What the model counts per domain (the kernel has tracepoints kyber_adjust / kyber_throttled
// instead), so that the invariant checker and tests can see the policy at work.
struct KyberDomainStats {
    uint64_t inserted = 0;    // insert_request calls (a requeued request is inserted again)
    uint64_t merged = 0;      // requests absorbed by another (requests_merged)
    uint64_t dispatched = 0;  // handed out with a token
    uint64_t completed = 0;   // ended in the device, token returned
    uint64_t requeued = 0;    // came back from the driver, token returned
    uint64_t throttled = 0;   // a dispatch attempt found no token (trace_kyber_throttled)
    uint32_t max_in_use = 0;  // most tokens held at once
    uint32_t min_depth = 0;   // smallest depth the timer set
    uint64_t shrinks = 0, grows = 0;  // resizes by the timer (trace_kyber_adjust)
};

class Kyber final : public Elevator, public ElevatorAudit, public ElevatorCost, public ElevatorFigures {
public:
    // cpu_to_hctx: the queue map (ctx -> hctx); the CPUs of an hctx are its ctxs, in
    // index_hw order.
    Kyber(const KyberTunables& t, sim::EventQueue& eq, std::span<const uint32_t> cpu_to_hctx, uint32_t nr_hw_queues);
    ~Kyber() override;
    Kyber(const Kyber&) = delete;
    Kyber& operator=(const Kyber&) = delete;

    std::string_view name() const override { return "kyber"; }

    void prepare_request(blkmq::Request* rq) override { rq_set_domain_token(rq, false); }
    void insert_request(blkmq::Request* rq, bool at_head, sim::Time now) override;
    blkmq::Request* dispatch_request(uint32_t hctx_idx, sim::Time now) override;
    bool has_work(uint32_t hctx_idx) const override;
    ElvMerge bio_merge(uint32_t cpu, const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out) override;
    void requests_merged(blkmq::Request* rq, blkmq::Request* next) override;
    void finish_request(blkmq::Request* rq, sim::Time now) override;
    void requeue_request(blkmq::Request* rq) override;
    uint32_t limit_depth(bool is_sync_read, uint32_t nr_requests) const override;
    // kyber_depth_updated(): min_shallow_depth = kqd->async_depth.
    uint32_t depth_updated(uint32_t nr_requests) const override { return kyber_limit_depth(false, nr_requests); }
    uint64_t queued() const override;
    std::string audit() const override;
    std::string debugfs_show(sim::Time now) const override;
    // Per read and write domain: its depth at the end and the smallest the timer set, the
    // timer's resizes, dispatches throttled for want of a token, the most tokens held and
    // the last p99 latency bucket (0-3 within the target, 4-7 beyond).
    void figures(std::vector<std::pair<std::string, double>>& out) const override;
    std::string check_idle() const override;
    LockCost lock_cost(const cpu::CpuCosts& c) const override {
        return {LockScope::PER_HCTX, ElevatorCost::lock_cost(c).hold};
    }

    // kyber_limit_depth(): the shallow depth for an allocation; only async requests are
    // limited, to async_depth = nr_requests * 75 % (kyber_depth_updated).
    static uint32_t kyber_limit_depth(bool op_is_sync, uint32_t nr_requests);

    // A sysfs write: the new targets apply to later samples (bucketed at completion).
    void set_tunables(const KyberTunables& t);
    const KyberTunables& tunables() const { return t_; }

    static KyberDomain kyber_sched_domain(blkmq::ReqOp op) {
        return op == blkmq::ReqOp::DISCARD ? KYBER_DISCARD : op == blkmq::ReqOp::WRITE ? KYBER_WRITE : KYBER_READ;
    }

    // What debugfs shows (/sys/kernel/debug/block/<dev>/sched/ and hctx*/sched/).
    uint32_t domain_depth(KyberDomain d) const { return domain_tokens_[d].depth; }
    uint32_t domain_in_use(KyberDomain d) const { return domain_tokens_[d].in_use; }
    bool domain_waiting(uint32_t hctx_idx, KyberDomain d) const { return khds_[hctx_idx].waiting[d]; }
    KyberDomain cur_domain(uint32_t hctx_idx) const { return static_cast<KyberDomain>(khds_[hctx_idx].cur_domain); }
    uint32_t batching(uint32_t hctx_idx) const { return khds_[hctx_idx].batching; }
    int domain_p99(KyberDomain d) const { return domain_p99_[d]; }
    const KyberDomainStats& stats(KyberDomain d) const { return stats_[d]; }
    uint64_t timer_runs() const { return timer_runs_; }
    sim::Duration latency_target(KyberDomain d) const;

    // The bucket a latency falls in (add_latency_sample's arithmetic).
    static uint32_t latency_bucket(int64_t target_ns, int64_t latency_ns);
    // The jiffies clock of the timer and of the percentile window (see MqDeadline).
    int64_t jiffies(sim::Time t) const { return jif_.at(t); }
    sim::Time jiffies_to_time(int64_t j) const { return jif_.to_time(j); }

private:
    using RqList = boost::intrusive::list<
        blkmq::Request,
        boost::intrusive::member_hook<blkmq::Request, boost::intrusive::list_member_hook<>, &blkmq::Request::queuelist>>;

    // struct kyber_ctx_queue
    struct KyberCtxQueue {
        RqList rq_list[KYBER_NUM_DOMAINS];
    };
    // struct kyber_hctx_data. kcq_map[] says which ctxs have requests of a domain, bit i
    // for ctxs[i] (the ctx's index_hw), so that a flush visits those alone, in index order,
    // as sbitmap_for_each_set() does.
    struct KyberHctxData {
        RqList rqs[KYBER_NUM_DOMAINS];
        uint32_t cur_domain = KYBER_READ;
        uint32_t batching = 0;
        std::vector<uint32_t> ctxs;  // the CPUs mapped here (kcqs[index_hw])
        std::vector<uint64_t> kcq_map[KYBER_NUM_DOMAINS];
        // sbitmap_any_bit_set(&kcq_map[d]): some ctx holds a request of domain d.
        bool kcq_busy(uint32_t d) const {
            for (const uint64_t w : kcq_map[d])
                if (w != 0)
                    return true;
            return false;
        }
        bool waiting[KYBER_NUM_DOMAINS] = {false, false, false, false};  // domain_wait[] queued
        // Requests of all domains in rqs[] and in the kcqs: what kyber_has_work() asks,
        // several times per dispatch round, kept as one count instead of eight looks.
        uint32_t nr_queued = 0;
    };
    // A domain's struct sbitmap_queue, as a counter with its wait queue.
    struct DomainTokens {
        uint32_t depth = 0;
        uint32_t in_use = 0;
        uint32_t wake_batch = 1;
        uint32_t wait_cnt = 1;          // frees left until the next batched wake-up
        std::vector<uint32_t> waiters;  // hctx indices, FIFO (capacity reserved: no allocation)
    };

    // rq->elv.priv[0] holds the domain token (-1 = none); with counting pools a flag is
    // enough, kept in the request's elevator flag.
    static bool rq_get_domain_token(const blkmq::Request& rq) { return rq.elv_counted; }
    static void rq_set_domain_token(blkmq::Request* rq, bool has) { rq->elv_counted = has; }
    void rq_clear_domain_token(blkmq::Request* rq, sim::Time now);

    bool sbitmap_queue_get(DomainTokens& dt);
    void sbitmap_queue_clear(KyberDomain d, sim::Time now);
    void sbitmap_queue_resize(KyberDomain d, uint32_t depth);
    void sbitmap_del_wait_queue(KyberDomain d, uint32_t hctx_idx);

    bool kyber_get_domain_token(KyberHctxData& khd, uint32_t hctx_idx);
    void kyber_flush_busy_kcqs(KyberHctxData& khd, uint32_t sched_domain, RqList& list);
    blkmq::Request* kyber_dispatch_cur_domain(KyberHctxData& khd, uint32_t hctx_idx);
    blkmq::Request* take(KyberHctxData& khd, RqList& rqs);

    void add_latency_sample(uint32_t sched_domain, KyberLatencyType type, int64_t target, int64_t latency);
    int calculate_percentile(uint32_t sched_domain, KyberLatencyType type, uint32_t percentile, int64_t now_j);
    // `p99`: the total-latency bucket that drove it; `congested`: the domain whose p90 I/O
    // latency was bad, or KYBER_OTHER (for explain_).
    void kyber_resize_domain(uint32_t sched_domain, uint32_t depth, int p99, uint32_t congested);
    void kyber_timer_fn();
    static void timer_fired(void* self, uint64_t) { static_cast<Kyber*>(self)->kyber_timer_fn(); }

    sim::EventQueue& eq_;
    KyberTunables t_;
    Jiffies jif_;
    std::vector<uint32_t> cpu_to_hctx_;
    std::unique_ptr<KyberCtxQueue[]> kcqs_;  // per CPU
    std::vector<uint32_t> index_hw_;          // per CPU: its ctx's index in its hctx (ctxs)
    std::unique_ptr<KyberHctxData[]> khds_;  // per hctx
    uint32_t nr_hw_queues_;
    DomainTokens domain_tokens_[KYBER_NUM_DOMAINS];

    // kyber_queue_data's feedback state.
    sim::Timer timer_;
    uint32_t latency_buckets_[KYBER_OTHER][2][KYBER_LATENCY_BUCKETS] = {};
    int64_t latency_timeout_[KYBER_OTHER] = {0, 0, 0};  // in jiffies, 0 = not started
    int domain_p99_[KYBER_OTHER] = {-1, -1, -1};

    KyberDomainStats stats_[KYBER_NUM_DOMAINS];
    uint64_t timer_runs_ = 0;
};

}  // namespace blksim::sched
