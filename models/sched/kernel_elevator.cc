// kernel:<name>: see kernel_elevator.h.
#include "models/sched/kernel_elevator.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/event_queue.h"

namespace blksim::sched {

using blkmq::Request;

KernelElevator::KernelElevator(std::string name, std::shared_ptr<const KernelPlugin> plugin, const ElevatorContext& ctx,
                               KernelTunables tunables)
    : name_(std::move(name)),
      plugin_(std::move(plugin)),
      api_(plugin_->api()),
      eq_(ctx.eq),
      cpu_to_hctx_(ctx.cpu_to_hctx.begin(), ctx.cpu_to_hctx.end()),
      nr_hw_queues_(ctx.nr_hw_queues),
      rotational_(ctx.rotational),
      nomerges_(ctx.nomerges),
      tunables_(std::move(tunables)) {
    jif_.hz = static_cast<int32_t>(api_.hz);
}

// ops.exit_sched (dd_exit_sched warns about requests still queued), then the requests.
KernelElevator::~KernelElevator() {
    // After a BUG() the plugin's state is whatever the code left (a lock held, a list half
    // edited): exit_sched may BUG again, which must not escape a destructor.
    try {
        api_.queue_destroy(q_);
    } catch (const std::logic_error&) {
    }
    for (kcompat_rq* rq : rqs_)
        api_.rq_free(rq);
}

void KernelElevator::set_clock(sim::Time now) const {
    clock_ = now;
    api_.set_clock(static_cast<uint64_t>(now.ns()), static_cast<unsigned long>(jif_.at(now)));
}

void KernelElevator::set_clock() const { set_clock(eq_.now()); }

// mod_timer(): the event at the instant jiffy `expires` begins, replacing an earlier one.
void KernelElevator::timer_arm(void* self, timer_list* t, unsigned long expires) {
    auto* e = static_cast<KernelElevator*>(self);
    auto& ev = e->timers_[t];
    if (!ev)
        ev = std::make_unique<TimerEvent>(e, t);
    ev->event.arm(std::max(e->jif_.to_time(static_cast<int64_t>(expires)), e->eq_.now()));
    ev->cpu = e->this_cpu();
}

// hrtimer_start(): the event at the nanosecond.
void KernelElevator::timer_arm_ns(void* self, timer_list* t, uint64_t expires_ns) {
    auto* e = static_cast<KernelElevator*>(self);
    auto& ev = e->timers_[t];
    if (!ev)
        ev = std::make_unique<TimerEvent>(e, t);
    ev->event.arm(std::max(sim::Time::from_ns(static_cast<int64_t>(expires_ns)), e->eq_.now()));
    ev->cpu = e->this_cpu();
}

void KernelElevator::timer_cancel(void* self, timer_list* t) {
    auto* e = static_cast<KernelElevator*>(self);
    if (const auto it = e->timers_.find(t); it != e->timers_.end())
        it->second->event.cancel();
}

void KernelElevator::timer_fired(void* ev, uint64_t) {
    auto* te = static_cast<TimerEvent*>(ev);
    te->self->set_clock();
    te->self->explain_.set_cpu(te->cpu);
    te->self->api_.timer_fire(te->self->q_, te->timer, te->cpu);
}

// blk_mq_run_hw_queue(hctx, async) from the plugin: the core runs it from kblockd now.
void KernelElevator::host_run_hw_queue(void* self, unsigned int hctx) {
    auto* e = static_cast<KernelElevator*>(self);
    e->run_hw_queue(hctx, e->clock_);
}

// blk_mq_run_hw_queues(q, async) of a QUEUE_FLAG_SQ_SCHED elevator on `cpu`: the core
// picks the hctxs (it keeps their dispatch lists).
void KernelElevator::host_run_hw_queues_sq(void* self, unsigned int cpu) {
    auto* e = static_cast<KernelElevator*>(self);
    e->run_hw_queues_sq(cpu, e->clock_);
}

// The plugin's tracepoints, as the kernel's trace buffer would show them, become --explain
// lines; the plugin formats them only while a sink is attached.
int KernelElevator::host_tracing(void* self) { return static_cast<KernelElevator*>(self)->explain_ ? 1 : 0; }

void KernelElevator::host_message(void* self, const char* text) {
    auto* e = static_cast<KernelElevator*>(self);
    e->explain_(e->eq_.now(), "{}: {}", e->name_, text);
}

// blk_mq_init_sched(): init_sched and init_hctx on a queue with nr_requests scheduler tags
// per hctx, then the scenario's sysfs writes; then what the core reads of the queue.
void KernelElevator::init_sched(ElevatorQueueAttrs& q) {
    set_clock();
    const kcompat_host host{this, &KernelElevator::timer_arm, &KernelElevator::timer_cancel,
                            &KernelElevator::host_run_hw_queue, &KernelElevator::host_tracing,
                            &KernelElevator::host_message, &KernelElevator::timer_arm_ns,
                            &KernelElevator::host_run_hw_queues_sq};
    q_ = api_.queue_create(nr_hw_queues_, q.nr_requests, rotational_ ? 1 : 0, static_cast<int>(nomerges_),
                           static_cast<unsigned>(cpu_to_hctx_.size()), cpu_to_hctx_.data(), &host);
    if (q_ == nullptr)
        throw std::invalid_argument(fmt::format("{}: the elevator's init_sched failed", name_));
    for (const auto& [attr, value] : tunables_.values) {
        const std::string v = std::to_string(value);
        const long rc = api_.attr_store(q_, attr.c_str(), v.c_str());
        // The one store rule the kind's table cannot give: patch 1's bound is the queue's.
        const std::string allowed =
            attr == "nr_sched_batch" ? fmt::format("; nr_sched_batch: 1..nr_requests ({})", q.nr_requests) : "";
        if (rc < 0)
            throw std::invalid_argument(fmt::format("{}: writing {} to iosched/{} failed ({}{})", name_, value, attr,
                                                    rc == -2 ? "no such attribute" : std::to_string(rc), allowed));
    }
    q.nr_sched_batch = api_.nr_sched_batch(q_);
    q.bypass = api_.has_direct_dispatch() ? this : nullptr;
}

uint32_t KernelElevator::depth_updated(uint32_t /*nr_requests*/) const { return api_.min_shallow_depth(q_, 0); }

uint32_t KernelElevator::limit_depth(bool is_sync_read, uint32_t /*nr_requests*/) const {
    set_clock();
    return api_.limit_depth(q_, 0, is_sync_read ? 1 : 0);
}

kcompat_rq* KernelElevator::sync(Request* rq) const {
    auto* krq = static_cast<kcompat_rq*>(rq->elv_priv);
    const kcompat_rq_state s{
        .sector = rq->sector,
        .nr_sectors = rq->nr_sectors,
        .op = static_cast<uint8_t>(rq->op),
        .fua = static_cast<uint8_t>((rq->cmd_flags & blkmq::REQ_FUA) != 0),
        .preflush = static_cast<uint8_t>((rq->cmd_flags & blkmq::REQ_PREFLUSH) != 0),
        .flush_seq = static_cast<uint8_t>((rq->rq_flags & blkmq::RQF_FLUSH_SEQ) != 0),
        .ioprio_class = rq->ioprio_class,
        .ioprio_level = rq->ioprio_level,
        .hctx = rq->mq_ctx_cpu < cpu_to_hctx_.size() ? cpu_to_hctx_[rq->mq_ctx_cpu] : 0,
        .cpu = rq->mq_ctx_cpu,
        .pid = rq->pid,
        // The task's io_context priority; its first bio carries it (bio_to_request()).
        .task_ioprio_class = rq->bio ? rq->bio->task_ioprio_class : uint8_t{0},
        .task_ioprio_level = rq->bio ? rq->bio->task_ioprio_level : uint8_t{4},
    };
    api_.rq_sync(q_, krq, &s);
    return krq;
}

// blk_mq_rq_ctx_init(): the request's kernel twin is made the first time its tag is used.
void KernelElevator::prepare_request(Request* rq) {
    if (rq->elv_priv == nullptr) {
        kcompat_rq* krq = api_.rq_alloc(q_, rq);
        if (krq == nullptr)
            throw std::bad_alloc();
        rqs_.push_back(krq);
        rq->elv_priv = krq;
    }
    set_clock();
    api_.prepare_request(q_, sync(rq));
}

void KernelElevator::insert_request(Request* rq, bool at_head, sim::Time now) {
    set_clock(now);
    api_.insert_request(q_, sync(rq), at_head ? 1 : 0);
}

Request* KernelElevator::dispatch_request(uint32_t hctx_idx, sim::Time now) {
    set_clock(now);
    return static_cast<Request*>(api_.dispatch_request(q_, hctx_idx));
}

bool KernelElevator::has_work(uint32_t hctx_idx) const { return api_.has_work(q_, hctx_idx) != 0; }

// ops.bio_merge's lookup; the merge must also keep the request within max_sectors
// (ll_back_merge_fn / ll_front_merge_fn), else the kernel gives up on this bio.
ElvMerge KernelElevator::bio_merge(uint32_t cpu, const blkmq::Bio& bio, uint32_t max_sectors, Request** out) {
    set_clock();
    const kcompat_bio_state b{
        .sector = bio.sector,
        .nr_sectors = bio.nr_sectors,
        .op = static_cast<uint8_t>(bio.op),
        .fua = static_cast<uint8_t>((bio.cmd_flags & blkmq::REQ_FUA) != 0),
        .preflush = static_cast<uint8_t>((bio.cmd_flags & blkmq::REQ_PREFLUSH) != 0),
        .ioprio_class = bio.ioprio_class,
        .ioprio_level = bio.ioprio_level,
        .cpu = cpu,
        .pid = bio.pid,
        .task_ioprio_class = bio.task_ioprio_class,
        .task_ioprio_level = bio.task_ioprio_level,
    };
    void* owner = nullptr;
    const int type = api_.bio_merge(q_, &b, &owner);
    auto* rq = static_cast<Request*>(owner);
    if (type == KCOMPAT_NO_MERGE || rq == nullptr || rq->nr_sectors + bio.nr_sectors > max_sectors)
        return ElvMerge::NO_MERGE;
    *out = rq;
    return type == KCOMPAT_BACK_MERGE ? ElvMerge::BACK_MERGE : ElvMerge::FRONT_MERGE;
}

void KernelElevator::request_merged(Request* rq, ElvMerge type) {
    set_clock();
    api_.request_merged(q_, sync(rq), type == ElvMerge::BACK_MERGE ? KCOMPAT_BACK_MERGE : KCOMPAT_FRONT_MERGE);
}

Request* KernelElevator::former_request(Request* rq) {
    return static_cast<Request*>(api_.former_request(q_, sync(rq)));
}

Request* KernelElevator::next_request(Request* rq) { return static_cast<Request*>(api_.next_request(q_, sync(rq))); }

void KernelElevator::requests_merged(Request* rq, Request* next) {
    set_clock();
    api_.requests_merged(q_, sync(rq), sync(next));
}

Request* KernelElevator::insert_merge_last() const { return static_cast<Request*>(api_.last_merge(q_)); }

Request* KernelElevator::insert_merge_find(uint64_t sector) { return static_cast<Request*>(api_.rqhash_find(q_, sector)); }

// blk_mq_end_request() of a request that went to the device runs ops.completed_request
// with its allocation and issue times; every request freed runs ops.finish_request. Both
// run on the completing CPU (the core's), not the request's submitting one.
void KernelElevator::finish_request(Request* rq, sim::Time now) {
    set_clock(now);
    auto* krq = static_cast<kcompat_rq*>(rq->elv_priv);
    if (rq->state == blkmq::RqState::COMPLETE)
        api_.completed_request(q_, krq, this_cpu(), static_cast<uint64_t>(now.ns()),
                               static_cast<uint64_t>(rq->t_get.ns()), static_cast<uint64_t>(rq->t_issue.ns()));
    api_.finish_request(q_, krq, this_cpu());
}

// On the CPU of the driver that hands the request back (the core's).
void KernelElevator::requeue_request(Request* rq) {
    set_clock();
    api_.requeue_request(q_, sync(rq), this_cpu());
}

// blk-mq's half of the conditions (hctx_idle) first; the file's ops decide the rest.
bool KernelElevator::may_direct_dispatch(const Request& rq, bool hctx_idle) const {
    if (!hctx_idle)
        return false;
    set_clock();
    return api_.may_dispatch_directly(q_, sync(const_cast<Request*>(&rq))) != 0;
}

void KernelElevator::direct_dispatched(Request* rq, sim::Time now) {
    set_clock(now);
    api_.dispatched_directly(q_, sync(rq));
}

// kyber's locks are per ctx and per hctx (kcq->lock, khd->lock); mq-deadline's is dd->lock;
// bfq's bfqd->lock, held as long as blksim's bfq model holds it.
LockCost KernelElevator::lock_cost(const cpu::CpuCosts& c) const {
    if (plugin_->elevator_name() == "bfq")
        return {LockScope::QUEUE, {c.bfq_insert, c.bfq_dispatch, c.elv_insert, c.bfq_finish}};
    return {plugin_->elevator_name() == "kyber" ? LockScope::PER_HCTX : LockScope::QUEUE,
            ElevatorCost::lock_cost(c).hold};
}

std::string KernelElevator::show(const char* attr) const {
    char buf[256];
    return api_.attr_show(q_, attr, buf, sizeof(buf)) < 0 ? std::string() : std::string(buf);
}

// --- the descriptors ------------------------------------------------------------------

namespace {

// kernel:<elevator>: the sysfs attributes of the kernel's own file (6.1's deadline_attrs
// with the ranges its store functions clamp to), stored in the plugin by name.
class KernelSchedulerKind final : public SchedulerKind {
public:
    constexpr KernelSchedulerKind(std::string_view name, std::string_view elevator, std::string_view help,
                                  std::span<const TunableInfo> table, std::span<const int64_t> defaults)
        : SchedulerKind(name, help), elevator_(elevator), table_(table), defaults_(defaults) {}

    std::size_t nr_tunables() const override { return table_.size(); }
    TunableInfo tunable(std::size_t i) const override { return table_[i]; }
    int64_t default_value(std::size_t i) const override { return defaults_[i]; }
    void set(std::any& tunables, std::size_t i, int64_t v) const override {
        if (std::any_cast<KernelTunables>(&tunables) == nullptr)
            tunables = KernelTunables{};
        std::any_cast<KernelTunables&>(tunables).values.emplace_back(std::string(table_[i].name), v);
    }
    std::unique_ptr<Elevator> make(const std::any& tunables, const ElevatorContext& ctx) const override {
        if (ctx.kernel_plugin.empty())
            throw std::invalid_argument(fmt::format("scheduler {} needs a kernel tree (scenario kernel.tree)", name()));
        const auto* t = std::any_cast<KernelTunables>(&tunables);
        return std::make_unique<KernelElevator>(std::string(name()), KernelPlugin::load(std::string(ctx.kernel_plugin)),
                                                ctx, t ? *t : KernelTunables{});
    }
    std::string_view elevator() const { return elevator_; }

private:
    std::string_view elevator_;
    std::span<const TunableInfo> table_;
    std::span<const int64_t> defaults_;
};

constexpr TunableInfo kDeadlineAttrs[] = {
    {"read_expire", 0, INT_MAX, TunableUnit::MSEC, "deadline added to a read at insert"},
    {"write_expire", 0, INT_MAX, TunableUnit::MSEC, "same for writes"},
    {"writes_starved", INT_MIN, INT_MAX, TunableUnit::COUNT, "read batches allowed while writes wait"},
    {"front_merges", 0, 1, TunableUnit::BOOL, "look up front merges in the sector tree"},
    {"async_depth", 1, INT_MAX, TunableUnit::REQUESTS,
     "scheduler tags usable by writes and async reads (default: nr_requests, set by depth_updated)"},
    {"fifo_batch", 0, INT_MAX, TunableUnit::COUNT, "requests per batch"},
    {"prio_aging_expire", 0, INT_MAX, TunableUnit::MSEC, "a lower-priority request waiting this long is served anyway"},
    {"nr_sched_batch", 1, INT_MAX, TunableUnit::REQUESTS,
     "queue/nr_sched_batch of E1's first patch, in kcompat's core, not the file: requests per dispatch round, "
     "at most nr_requests (default: nr_requests; kernel-patches/)"},
};
constexpr int64_t kDeadlineDefaults[] = {500, 5000, 2, 1, 0, 16, 10000, 0};

constinit const KernelSchedulerKind kKernelMqDeadline{
    "kernel:mq-deadline", "mq-deadline",
    "the kernel's own block/mq-deadline.c, unmodified, built from scenario kernel.tree (docs/kernel-schedulers.md)",
    kDeadlineAttrs, kDeadlineDefaults};

// kyber_sched_attrs[]: kstrtoull, any u64 (a JSON scenario holds up to INT64_MAX).
constexpr TunableInfo kKyberAttrs[] = {
    {"read_lat_nsec", 0, INT64_MAX, TunableUnit::NSEC,
     "read latency target: histogram buckets are 1/4 of it; p90 I/O latency above it is congestion"},
    {"write_lat_nsec", 0, INT64_MAX, TunableUnit::NSEC, "same for writes"},
};
constexpr int64_t kKyberDefaults[] = {2'000'000, 10'000'000};

constinit const KernelSchedulerKind kKernelKyber{
    "kernel:kyber", "kyber",
    "the kernel's own block/kyber-iosched.c, unmodified, built from scenario kernel.tree (docs/kernel-schedulers.md)",
    kKyberAttrs, kKyberDefaults};

// bfq_attrs[]: the store functions' ranges (STORE_FUNCTION's MIN, MAX; they clamp).
// slice_idle_us is left out: a scenario's tunables have no order, and it writes the same
// bfqd->bfq_slice_idle as slice_idle.
constexpr TunableInfo kBfqAttrs[] = {
    {"fifo_expire_sync", 1, INT_MAX, TunableUnit::MSEC, "age after which a queue's oldest request is served next"},
    {"fifo_expire_async", 1, INT_MAX, TunableUnit::MSEC, "the same for async requests"},
    {"back_seek_max", 0, INT_MAX, TunableUnit::COUNT, "KiB a next request may lie behind the head"},
    {"back_seek_penalty", 1, INT_MAX, TunableUnit::COUNT, "a backward seek counts this many times its distance"},
    {"slice_idle", 0, INT_MAX, TunableUnit::MSEC, "idling for an emptied sync queue (the idle slice hrtimer); 0 = none"},
    {"max_budget", 0, INT_MAX, TunableUnit::COUNT, "largest budget, sectors; 0 = auto"},
    {"timeout_sync", 1, INT_MAX, TunableUnit::MSEC, "budget timeout of the in-service queue"},
    {"strict_guarantees", 0, 1, TunableUnit::BOOL, "always idle, one request in the device at a time"},
    {"low_latency", 0, 1, TunableUnit::BOOL, "weight raising of interactive and soft real-time queues"},
};
constexpr int64_t kBfqDefaults[] = {125, 250, 16384, 2, 8, 0, 125, 0, 1};

constinit const KernelSchedulerKind kKernelBfq{
    "kernel:bfq", "bfq",
    "the kernel's own block/bfq-iosched.c with bfq-wf2q.c and bfq-cgroup.c (root group only), unmodified, built "
    "from scenario kernel.tree (docs/kernel-schedulers.md)",
    kBfqAttrs, kBfqDefaults};

}  // namespace

const SchedulerKind& kernel_mq_deadline_kind() { return kKernelMqDeadline; }
const SchedulerKind& kernel_bfq_kind() { return kKernelBfq; }
const SchedulerKind& kernel_kyber_kind() { return kKernelKyber; }

std::string_view kernel_elevator_of(const SchedulerKind& k) {
    const auto* kk = dynamic_cast<const KernelSchedulerKind*>(&k);
    return kk ? kk->elevator() : std::string_view{};
}

}  // namespace blksim::sched
