// Kyber: see kyber.h for the policy, the feedback loop and what is simplified.
#include "models/sched/kyber.h"
#include "models/sched/scheduler_kind.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>

#include <fmt/format.h>
namespace blksim::sched {

using blkmq::Bio;
using blkmq::Request;

namespace {

// SBQ_WAIT_QUEUES / SBQ_WAKE_BATCH (include/linux/sbitmap.h).
constexpr uint32_t SBQ_WAIT_QUEUES = 8, SBQ_WAKE_BATCH = 8;
// blk_bio_list_merge() looks at the newest 8 requests of the ctx list.
constexpr int BIO_LIST_MERGE_CHECKED = 8;

constexpr const char* kyber_domain_names[KYBER_NUM_DOMAINS] = {"READ", "WRITE", "DISCARD", "OTHER"};

using T = KyberTunables;
constexpr Tunable<T> kTunables[] = {
    // kyber_sched_attrs[]: kstrtoull, any u64 (a JSON scenario holds up to INT64_MAX).
    {"read_lat_nsec", &T::read_lat_nsec, 0, INT64_MAX, TunableUnit::NSEC,
     "read latency target: histogram buckets are 1/4 of it; p90 I/O latency above it is congestion"},
    {"write_lat_nsec", &T::write_lat_nsec, 0, INT64_MAX, TunableUnit::NSEC, "same for writes"},
    {"hz", &T::hz, 100, 1000, TunableUnit::HERTZ,
     "CONFIG_HZ (100, 250, 300, 1000): the timer fires HZ/10 jiffies after a completion, at a jiffy"},
};

// sbq_calc_wake_batch() without a shallow depth (the domain pools have none).
uint32_t sbq_calc_wake_batch(uint32_t depth) { return std::clamp<uint32_t>(depth / SBQ_WAIT_QUEUES, 1, SBQ_WAKE_BATCH); }

}  // namespace

std::span<const Tunable<KyberTunables>> kyber_tunables() { return kTunables; }

const Tunable<KyberTunables>* find_kyber_tunable(std::string_view name) { return find_tunable(kyber_tunables(), name); }

static constinit const SchedulerKindOf<KyberTunables> kKyberKind{
    "kyber", "block/kyber-iosched.c: per-domain token pools, batches, latency targets, depths scaled "
             "every 100 ms from p90/p99 histograms",
    kTunables, [](const KyberTunables& t, const ElevatorContext& c) -> std::unique_ptr<Elevator> {
        return std::make_unique<Kyber>(t, c.eq, c.cpu_to_hctx, c.nr_hw_queues);
    }};
const SchedulerKind& kyber_kind() { return kKyberKind; }

// kyber_queue_data_alloc() + kyber_init_hctx(): every pool starts at its maximum depth.
Kyber::Kyber(const KyberTunables& t, sim::EventQueue& eq, std::span<const uint32_t> cpu_to_hctx, uint32_t nr_hw_queues)
    : eq_(eq), cpu_to_hctx_(cpu_to_hctx.begin(), cpu_to_hctx.end()),
      kcqs_(std::make_unique<KyberCtxQueue[]>(cpu_to_hctx.size())),
      khds_(std::make_unique<KyberHctxData[]>(nr_hw_queues)), nr_hw_queues_(nr_hw_queues),
      timer_(eq, &Kyber::timer_fired, this) {
    set_tunables(t);
    index_hw_.resize(cpu_to_hctx_.size());
    for (uint32_t cpu = 0; cpu < cpu_to_hctx_.size(); ++cpu) {
        std::vector<uint32_t>& ctxs = khds_[cpu_to_hctx_[cpu]].ctxs;
        index_hw_[cpu] = static_cast<uint32_t>(ctxs.size());
        ctxs.push_back(cpu);
    }
    for (uint32_t h = 0; h < nr_hw_queues_; ++h)
        for (auto& map : khds_[h].kcq_map)
            map.assign((khds_[h].ctxs.size() + 63) / 64, 0);
    for (uint32_t d = 0; d < KYBER_NUM_DOMAINS; ++d) {
        DomainTokens& dt = domain_tokens_[d];
        dt.depth = kyber_depth[d];
        dt.wake_batch = dt.wait_cnt = sbq_calc_wake_batch(dt.depth);
        dt.waiters.reserve(nr_hw_queues);
        stats_[d].min_depth = dt.depth;
    }
}

// kyber_exit_sched(): the intrusive lists unlink whatever is left (the Requests outlive us).
Kyber::~Kyber() = default;

void Kyber::set_tunables(const KyberTunables& t) {
    t_ = t;
    if (t_.hz <= 0)
        t_.hz = 250;
    jif_.hz = t_.hz;
}


sim::Duration Kyber::latency_target(KyberDomain d) const {
    switch (d) {
    case KYBER_READ: return t_.read_lat_nsec;
    case KYBER_WRITE: return t_.write_lat_nsec;
    default: return sim::Duration::ns(kyber_latency_targets[KYBER_DISCARD]);
    }
}

// --- the token pools (sbitmap_queue as a counter, see kyber.h) ----------------------------

bool Kyber::sbitmap_queue_get(DomainTokens& dt) {
    if (dt.in_use >= dt.depth)
        return false;
    ++dt.in_use;
    return true;
}

// sbitmap_queue_clear() → sbitmap_queue_wake_up(): frees are counted only while someone
// waits; every wake_batch of them wakes up to wake_batch waiters, oldest first. A woken
// hctx leaves the queue and is run (kyber_domain_wake).
void Kyber::sbitmap_queue_clear(KyberDomain d, sim::Time now) {
    DomainTokens& dt = domain_tokens_[d];
    --dt.in_use;
    if (dt.waiters.empty()) {
        dt.wait_cnt = dt.wake_batch;
        return;
    }
    if (--dt.wait_cnt > 0)
        return;
    dt.wait_cnt = dt.wake_batch;
    const auto n = static_cast<std::ptrdiff_t>(std::min<size_t>(dt.wake_batch, dt.waiters.size()));
    // Wake in order; the callbacks only schedule a run, they do not re-enter the pool.
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const uint32_t h = dt.waiters[static_cast<size_t>(i)];
        khds_[h].waiting[d] = false;
        run_hw_queue(h, now);  // kyber_domain_wake → blk_mq_run_hw_queue(hctx, async)
    }
    dt.waiters.erase(dt.waiters.begin(), dt.waiters.begin() + n);
}

// sbitmap_queue_resize(): new gets see the new depth; tokens held above it stay held until
// freed. The wake batch follows the depth (sbitmap_queue_update_wake_batch).
void Kyber::sbitmap_queue_resize(KyberDomain d, uint32_t depth) {
    DomainTokens& dt = domain_tokens_[d];
    dt.depth = depth;
    dt.wake_batch = sbq_calc_wake_batch(depth);
    dt.wait_cnt = std::min(dt.wait_cnt, dt.wake_batch);
}

void Kyber::sbitmap_del_wait_queue(KyberDomain d, uint32_t hctx_idx) {
    DomainTokens& dt = domain_tokens_[d];
    dt.waiters.erase(std::find(dt.waiters.begin(), dt.waiters.end(), hctx_idx));
    khds_[hctx_idx].waiting[d] = false;
}

// rq_clear_domain_token(): a request that got a token at dispatch gives it back when it
// ends or is requeued.
void Kyber::rq_clear_domain_token(Request* rq, sim::Time now) {
    if (!rq_get_domain_token(*rq))
        return;
    rq_set_domain_token(rq, false);
    sbitmap_queue_clear(kyber_sched_domain(rq->op), now);
}

// --- insert and merge ----------------------------------------------------------------------

// kyber_insert_requests(): into the submitting CPU's kcq list of the request's domain; the
// hctx's kcq_map bit says there is something to flush.
void Kyber::insert_request(Request* rq, bool at_head, sim::Time /*now*/) {
    const KyberDomain d = kyber_sched_domain(rq->op);
    const uint32_t cpu = rq->mq_ctx_cpu;
    RqList& head = kcqs_[cpu].rq_list[d];
    if (at_head)
        head.push_front(*rq);
    else
        head.push_back(*rq);
    KyberHctxData& khd = khds_[cpu_to_hctx_[cpu]];
    const uint32_t bit = index_hw_[cpu];
    khd.kcq_map[d][bit / 64] |= uint64_t{1} << (bit % 64);
    ++khd.nr_queued;
    ++stats_[d].inserted;
}

// kyber_bio_merge() → blk_bio_list_merge(): the newest 8 requests of this CPU's kcq list of
// the bio's domain, newest first. The first request the bio touches decides: merged if the
// result fits, else no merge at all (BIO_MERGE_FAILED). Requests already flushed to the
// hctx's lists are out of reach, as in the kernel.
ElvMerge Kyber::bio_merge(uint32_t cpu, const Bio& bio, uint32_t max_sectors, Request** out) {
    const RqList& rq_list = kcqs_[cpu].rq_list[kyber_sched_domain(bio.op)];
    int checked = BIO_LIST_MERGE_CHECKED;
    for (auto it = rq_list.rbegin(); it != rq_list.rend() && checked-- > 0; ++it) {
        const Request& rq = *it;
        // blk_rq_merge_ok(): same operation and the same I/O priority.
        if (rq.op != bio.op || rq.ioprio_class != bio.ioprio_class || rq.ioprio_level != bio.ioprio_level)
            continue;
        ElvMerge type = ElvMerge::NO_MERGE;
        if (rq.end_sector() == bio.sector)
            type = ElvMerge::BACK_MERGE;
        else if (bio.end_sector() == rq.sector)
            type = ElvMerge::FRONT_MERGE;
        if (type == ElvMerge::NO_MERGE)
            continue;
        if (uint64_t{rq.nr_sectors} + bio.nr_sectors > max_sectors)
            return ElvMerge::NO_MERGE;
        *out = const_cast<Request*>(&rq);
        return type;
    }
    return ElvMerge::NO_MERGE;
}

// Kyber offers no request neighbours (former/next), so the core never fuses two of its
// requests; kept for an insert merge should the core add one.
void Kyber::requests_merged(Request* /*rq*/, Request* next) {
    const KyberDomain d = kyber_sched_domain(next->op);
    if (next->queuelist.is_linked()) {
        const uint32_t cpu = next->mq_ctx_cpu;
        RqList& l = kcqs_[cpu].rq_list[d];
        l.erase(l.iterator_to(*next));
        KyberHctxData& khd = khds_[cpu_to_hctx_[cpu]];
        if (l.empty()) {
            const uint32_t bit = index_hw_[cpu];
            khd.kcq_map[d][bit / 64] &= ~(uint64_t{1} << (bit % 64));
        }
        --khd.nr_queued;
    } else {
        ++stats_[d].inserted;  // never inserted: count it in, so that it balances
    }
    ++stats_[d].merged;
}

// --- dispatch ------------------------------------------------------------------------------

// kyber_flush_busy_kcqs(): every kcq of the hctx with requests of the domain, in ctx order
// (the set bits of kcq_map, as sbitmap_for_each_set() visits them), spliced to the tail of
// `list`.
void Kyber::kyber_flush_busy_kcqs(KyberHctxData& khd, uint32_t sched_domain, RqList& list) {
    std::vector<uint64_t>& map = khd.kcq_map[sched_domain];
    for (std::size_t w = 0; w < map.size(); ++w) {
        for (uint64_t bits = map[w]; bits != 0; bits &= bits - 1) {
            const uint32_t cpu = khd.ctxs[w * 64 + static_cast<std::size_t>(std::countr_zero(bits))];
            list.splice(list.end(), kcqs_[cpu].rq_list[sched_domain]);
        }
        map[w] = 0;
    }
}

// kyber_get_domain_token(): a token of cur_domain, or else the hctx queues itself to be
// run when one is freed (once per domain). The kernel retries the get after queueing, for a
// token freed meanwhile; in a discrete-event model nothing can be freed in between.
bool Kyber::kyber_get_domain_token(KyberHctxData& khd, uint32_t hctx_idx) {
    const auto d = static_cast<KyberDomain>(khd.cur_domain);
    DomainTokens& dt = domain_tokens_[d];
    const bool got = sbitmap_queue_get(dt);
    if (!got && !khd.waiting[d]) {
        khd.waiting[d] = true;
        dt.waiters.push_back(hctx_idx);
    }
    // Got one while on the wait queue: leave it, so that every wake-up makes progress.
    if (got && khd.waiting[d])
        sbitmap_del_wait_queue(d, hctx_idx);
    if (got)
        stats_[d].max_in_use = std::max(stats_[d].max_in_use, dt.in_use);
    return got;
}

Request* Kyber::take(KyberHctxData& khd, RqList& rqs) {
    Request* rq = &rqs.front();
    rqs.pop_front();
    --khd.nr_queued;
    khd.batching++;
    rq_set_domain_token(rq, true);
    ++stats_[khd.cur_domain].dispatched;
    return rq;
}

// kyber_dispatch_cur_domain(): a request already flushed just needs a token. Otherwise, if
// the kcqs hold requests of the domain, flush them, but only once a token is in hand:
// without one they stay in the kcqs, where they can still be merged.
Request* Kyber::kyber_dispatch_cur_domain(KyberHctxData& khd, uint32_t hctx_idx) {
    RqList& rqs = khd.rqs[khd.cur_domain];
    if (!rqs.empty()) {
        if (kyber_get_domain_token(khd, hctx_idx))
            return take(khd, rqs);
        ++stats_[khd.cur_domain].throttled;
    } else if (khd.kcq_busy(khd.cur_domain)) {
        if (kyber_get_domain_token(khd, hctx_idx)) {
            kyber_flush_busy_kcqs(khd, khd.cur_domain, rqs);
            return take(khd, rqs);
        }
        ++stats_[khd.cur_domain].throttled;
    }
    // There were either no pending requests or no tokens.
    return nullptr;
}

// kyber_dispatch_request() (under khd->lock).
Request* Kyber::dispatch_request(uint32_t hctx_idx, sim::Time /*now*/) {
    KyberHctxData& khd = khds_[hctx_idx];

    // First, if we are still entitled to batch, try to dispatch a request from the batch.
    if (khd.batching < kyber_batch_size[khd.cur_domain]) {
        if (Request* rq = kyber_dispatch_cur_domain(khd, hctx_idx))
            return rq;
    }

    // Either we were no longer entitled to a batch, the domain we were batching had no
    // requests, or it was out of tokens. Start another batch; this wraps back around to
    // the original domain if no other domain has requests or tokens.
    khd.batching = 0;
    for (uint32_t i = 0; i < KYBER_NUM_DOMAINS; i++) {
        if (khd.cur_domain == KYBER_NUM_DOMAINS - 1)
            khd.cur_domain = 0;
        else
            khd.cur_domain++;
        if (Request* rq = kyber_dispatch_cur_domain(khd, hctx_idx))
            return rq;
    }
    return nullptr;
}

// kyber_has_work(): some domain's list or kcqs hold a request (the count audit() checks).
bool Kyber::has_work(uint32_t hctx_idx) const { return khds_[hctx_idx].nr_queued != 0; }

// --- completion and the feedback timer ----------------------------------------------------

uint32_t Kyber::latency_bucket(int64_t target_ns, int64_t latency_ns) {
    if (latency_ns <= 0)
        return 0;
    const uint64_t divisor = std::max<uint64_t>(static_cast<uint64_t>(target_ns) >> KYBER_LATENCY_SHIFT, 1);
    return static_cast<uint32_t>(
        std::min<uint64_t>((static_cast<uint64_t>(latency_ns) - 1) / divisor, KYBER_LATENCY_BUCKETS - 1));
}

void Kyber::add_latency_sample(uint32_t sched_domain, KyberLatencyType type, int64_t target, int64_t latency) {
    ++latency_buckets_[sched_domain][type][latency_bucket(target, latency)];
}

// kyber_completed_request() then kyber_finish_request(): a request that went to the device
// (it holds a token) adds its total latency (since allocation, rq->start_time_ns) and I/O
// latency (since issue, rq->io_start_time_ns) to its domain's histograms and pulls the
// timer to within HZ/10 (timer_reduce: never pushed later); then the token goes back. A
// request freed without being dispatched (merged away) holds no token and was not sampled.
void Kyber::finish_request(Request* rq, sim::Time now) {
    if (!rq_get_domain_token(*rq))
        return;
    const KyberDomain d = kyber_sched_domain(rq->op);
    if (d != KYBER_OTHER) {
        const int64_t target = latency_target(d).count();
        add_latency_sample(d, KYBER_TOTAL_LATENCY, target, (now - rq->t_get).count());
        add_latency_sample(d, KYBER_IO_LATENCY, target, (now - rq->t_issue).count());
        const sim::Time when = jiffies_to_time(jiffies(now) + t_.hz / 10);
        if (!timer_.armed() || timer_.expires() > when)
            timer_.arm(when);
    }
    ++stats_[d].completed;
    rq_clear_domain_token(rq, now);
}

// ops.requeue_request = kyber_finish_request: the token goes back; the core inserts the
// request again (at head).
void Kyber::requeue_request(Request* rq) {
    if (rq_get_domain_token(*rq))
        ++stats_[kyber_sched_domain(rq->op)].requeued;
    rq_clear_domain_token(rq, eq_.now());
}

// calculate_percentile(): the bucket holding the given percentile of the samples, or -1
// while there are fewer than 500 samples and less than a second has passed since the first
// call that saw some. The window (latency_timeout) is per domain, shared by both latency
// types, as in the kernel. Computing a percentile empties that histogram.
int Kyber::calculate_percentile(uint32_t sched_domain, KyberLatencyType type, uint32_t percentile, int64_t now_j) {
    uint32_t* buckets = latency_buckets_[sched_domain][type];
    uint32_t samples = 0;
    for (uint32_t b = 0; b < KYBER_LATENCY_BUCKETS; b++)
        samples += buckets[b];
    if (!samples)
        return -1;

    // We do the calculation once we have 500 samples or one second passes since the first
    // sample was recorded, whichever comes first.
    if (!latency_timeout_[sched_domain])
        latency_timeout_[sched_domain] = std::max<int64_t>(now_j + t_.hz, 1);
    if (samples < 500 && now_j < latency_timeout_[sched_domain])  // time_is_after_jiffies()
        return -1;
    latency_timeout_[sched_domain] = 0;

    uint32_t percentile_samples = (samples * percentile + 99) / 100;  // DIV_ROUND_UP
    uint32_t bucket;
    for (bucket = 0; bucket < KYBER_LATENCY_BUCKETS - 1; bucket++) {
        if (buckets[bucket] >= percentile_samples)
            break;
        percentile_samples -= buckets[bucket];
    }
    std::fill(buckets, buckets + KYBER_LATENCY_BUCKETS, 0u);
    return static_cast<int>(bucket);
}

void Kyber::kyber_resize_domain(uint32_t sched_domain, uint32_t depth, int p99, uint32_t congested) {
    depth = std::clamp<uint32_t>(depth, 1, kyber_depth[sched_domain]);
    const auto d = static_cast<KyberDomain>(sched_domain);
    const uint32_t orig = domain_tokens_[d].depth;
    if (depth == orig)
        return;
    sbitmap_queue_resize(d, depth);
    KyberDomainStats& s = stats_[d];
    (depth < orig ? s.shrinks : s.grows)++;
    s.min_depth = std::min(s.min_depth, depth);
    // Bucket b of a histogram holds latencies in [b, b + 1) * target / 4; the last one,
    // everything from twice the target on.
    const int64_t target_us = latency_target(d).count() / 1000;
    explain_(eq_.now(), "kyber: {} depth {} -> {}: p99 latency {} {} us (target {} us){}{}", kyber_domain_names[d], orig,
             depth, p99 + 1 < static_cast<int>(KYBER_LATENCY_BUCKETS) ? "<" : ">=",
             (p99 + 1 < static_cast<int>(KYBER_LATENCY_BUCKETS) ? p99 + 1 : p99) * target_us / KYBER_GOOD_BUCKETS,
             target_us, congested < KYBER_OTHER ? ", congestion: p90 of " : "",
             congested < KYBER_OTHER ? kyber_domain_names[congested] : "");
}

// kyber_timer_fn().
void Kyber::kyber_timer_fn() {
    const int64_t now_j = jiffies(eq_.now());
    ++timer_runs_;
    bool bad = false;

    // Check if any domains have a high I/O latency, which might indicate congestion in the
    // device. The p90 is used so as not to be too sensitive to outliers.
    uint32_t congested = KYBER_OTHER;  // the first domain that found it, for explain_
    for (uint32_t d = 0; d < KYBER_OTHER; d++) {
        const int p90 = calculate_percentile(d, KYBER_IO_LATENCY, 90, now_j);
        if (p90 >= static_cast<int>(KYBER_GOOD_BUCKETS) && !bad) {
            bad = true;
            congested = d;
        }
    }

    // Adjust the domain depths. With congestion, throttle every domain with good latency;
    // either way, ease up on domains with bad latency.
    for (uint32_t d = 0; d < KYBER_OTHER; d++) {
        int p99 = calculate_percentile(d, KYBER_TOTAL_LATENCY, 99, now_j);
        // Domains do not necessarily get enough samples in the same window, so a p99 is
        // remembered for the next congestion; once used, it is forgotten (-1) so that the
        // domain is not throttled again before there is new data.
        if (bad) {
            if (p99 < 0)
                p99 = domain_p99_[d];
            domain_p99_[d] = -1;
        } else if (p99 >= 0) {
            domain_p99_[d] = p99;
        }
        if (p99 < 0)
            continue;

        // The new depth scales linearly with p99 / target: a p99 at 3/4 of the target
        // throttles to 3/4 of the depth, one at 2x the target doubles it.
        if (bad || p99 >= static_cast<int>(KYBER_GOOD_BUCKETS)) {
            const uint32_t orig_depth = domain_tokens_[d].depth;
            const uint32_t depth = (orig_depth * static_cast<uint32_t>(p99 + 1)) >> KYBER_LATENCY_SHIFT;
            kyber_resize_domain(d, depth, p99, congested);
        }
    }
}

// --- depth limit and accounting ------------------------------------------------------------

uint32_t Kyber::kyber_limit_depth(bool op_is_sync, uint32_t nr_requests) {
    if (op_is_sync)
        return nr_requests;
    return std::max<uint32_t>(nr_requests * KYBER_ASYNC_PERCENT / 100u, 1);
}

// The core asks only for allocations that are not reads. blksim's writes are O_DIRECT and
// so REQ_SYNC (rwbs "WS"), which kyber never limits; an async write (buffered writeback)
// would be limited to async_depth.
uint32_t Kyber::limit_depth(bool /*is_sync_read*/, uint32_t nr_requests) const {
    constexpr bool op_is_sync = true;
    return kyber_limit_depth(op_is_sync, nr_requests);
}

uint64_t Kyber::queued() const {
    uint64_t n = 0;
    for (const KyberDomainStats& s : stats_)
        n += s.inserted - s.dispatched - s.merged;
    return n;
}

// What the ctx and hctx lists hold against the counters, domain by domain; and no more
// tokens out than the pool's maximum depth.
std::string Kyber::audit() const {
    for (uint32_t d = 0; d < KYBER_NUM_DOMAINS; ++d) {
        uint64_t linked = 0;
        for (std::size_t c = 0; c < cpu_to_hctx_.size(); ++c)
            linked += kcqs_[c].rq_list[d].size();
        for (uint32_t h = 0; h < nr_hw_queues_; ++h)
            linked += khds_[h].rqs[d].size();
        const KyberDomainStats& s = stats_[d];
        if (linked != s.inserted - s.dispatched - s.merged)
            return fmt::format("kyber domain {}: {} requests in its lists, its counters say {} "
                               "(inserted {} - dispatched {} - merged {})", d, linked,
                               s.inserted - s.dispatched - s.merged, s.inserted, s.dispatched, s.merged);
        if (domain_tokens_[d].in_use > kyber_depth[d])
            return fmt::format("kyber domain {}: {} tokens in use, more than its maximum depth {}", d,
                               domain_tokens_[d].in_use, kyber_depth[d]);
    }
    for (uint32_t h = 0; h < nr_hw_queues_; ++h) {
        const KyberHctxData& khd = khds_[h];
        uint64_t linked = 0;
        for (uint32_t d = 0; d < KYBER_NUM_DOMAINS; ++d) {
            linked += khd.rqs[d].size();
            for (std::size_t i = 0; i < khd.ctxs.size(); ++i) {
                const RqList& l = kcqs_[khd.ctxs[i]].rq_list[d];
                linked += l.size();
                const bool bit = (khd.kcq_map[d][i / 64] >> (i % 64)) & 1;
                if (bit == l.empty())
                    return fmt::format("kyber hctx {}: the kcq_map bit of ctx {} (cpu {}) for domain {} is {}, "
                                       "its list holds {} requests (rule: a bit is set while its kcq holds some)",
                                       h, i, khd.ctxs[i], d, bit ? 1 : 0, l.size());
            }
        }
        if (linked != khd.nr_queued)
            return fmt::format("kyber hctx {}: {} requests in its lists and kcqs, has_work counts {}", h, linked,
                               khd.nr_queued);
    }
    return {};
}

std::string Kyber::check_idle() const {
    for (uint32_t d = 0; d < KYBER_NUM_DOMAINS; ++d) {
        const KyberDomainStats& s = stats_[d];
        const DomainTokens& dt = domain_tokens_[d];
        if (dt.in_use != 0 || s.dispatched != s.completed + s.requeued || !dt.waiters.empty())
            return fmt::format("kyber domain {}: {} tokens in use, {} dispatched, {} completed, {} requeued, "
                               "{} hctx(s) waiting for a token",
                               kyber_domain_names[d], dt.in_use, s.dispatched, s.completed, s.requeued,
                               dt.waiters.size());
    }
    return {};
}

}  // namespace blksim::sched
