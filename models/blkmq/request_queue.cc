#include "models/blkmq/request_queue.h"

#include "models/sched/scheduler_kind.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace blksim::blkmq {

using sim::Duration;
using sim::Time;

// BLK_MQ_RESOURCE_DELAY: a hctx whose driver said BLK_STS_RESOURCE is rerun after 3 ms.
static constexpr Duration BLK_MQ_RESOURCE_DELAY = Duration::ns(3'000'000);

// The driver stack's share of ->queue_rq or of the completion for a device on `path`.
static Duration driver_cost(dev::HostPath path, Duration ata, Duration scsi) {
    switch (path) {
    case dev::HostPath::ATA: return ata;
    case dev::HostPath::SCSI: return scsi;
    case dev::HostPath::DIRECT: break;
    }
    return {};
}

RequestQueue::RequestQueue(std::string name, sim::EventQueue& eq, const QueueConfig& cfg,
                           const sched::SchedulerKind& elevator, dev::Device& dev, TagSet& tag_set,
                           std::span<const std::unique_ptr<cpu::Cpu>> cpus, const cpu::CpuCosts& costs,
                           uint32_t budget_depth)
    : name_(std::move(name)), eq_(eq), dev_(dev), tag_set_(tag_set), cpus_(cpus), costs_(costs),
      queue_rq_cost_(costs.queue_rq + driver_cost(dev.host_path(), costs.ata_queue_rq, costs.scsi_queue_rq)),
      complete_rq_cost_(costs.complete_rq + driver_cost(dev.host_path(), costs.ata_complete, costs.scsi_complete)),
      budget_depth_(budget_depth), max_sectors_(cfg.max_sectors_kb * 2),
      split_sectors_(std::min(max_sectors_, cfg.max_segments * 8) / (dev.logical_block_size() >> 9) *
                     (dev.logical_block_size() >> 9)),
      nomerges_(cfg.nomerges), cfg_(cfg), timeout_timer_(eq, &RequestQueue::timeout_fired, this),
      elv_lock_(name_ + ".elevator", costs.lock_handoff) {
    write_cache_ = dev.write_cache();
    const uint32_t gran = std::max(1u, dev.discard_granularity() >> 9);
    max_discard_sectors_ = dev.max_discard_sectors() / gran * gran;
    fua_ = write_cache_ && dev.fua();  // blk_validate_limits: no FUA without a write cache
    init_hw_queues(tag_set);
    map_queues(static_cast<uint32_t>(cpus.size()));
    if (hctxs_.size() == 1)
        single_hctx_ = hctxs_[0].get();
    elevator_ = elevator.make(cfg.iosched, {eq_, mq_map_, tag_set.nr_hw_queues(), dev.rotational(), cfg.nomerges,
                                              cfg.kernel_plugin});
    if (elevator_)
        init_elevator(costs);
    // An elevator brings scheduler tags: nr_requests per hctx, by default
    // 2 * min(set->queue_depth, BLKDEV_DEFAULT_RQ = 128) (blk_mq_init_sched); without one
    // nr_requests is the tag set's queue_depth.
    nr_requests_ = cfg.nr_requests ? cfg.nr_requests
                                   : (elevator_ ? 2 * std::min(tag_set.queue_depth(), 128u) : tag_set.queue_depth());
    if (elevator_)
        init_sched_tags();
}

// One hctx per tag set queue: the tag set was sized by the driver for min(submit queues,
// CPUs) hctxs.
void RequestQueue::init_hw_queues(TagSet& tag_set) {
    for (uint32_t i = 0; i < tag_set.nr_hw_queues(); ++i) {
        hctxs_.push_back(std::make_unique<HwQueue>(i, tag_set.tags(i)));
        // blk_mq_dispatch_wake(): blk_mq_run_hw_queue(hctx, true).
        hctxs_.back()->dispatch_wait.bind(this, hctxs_.back().get(), [](void* self, HwQueue& h, Time now) {
            if (!h.run_pending)
                static_cast<RequestQueue*>(self)->queue_run_work(h, now);
        });
    }
    tag_set.add_queue();
}

// blk_mq_map_queues(): CPUs in consecutive runs per hctx; each hctx's first CPU noted.
void RequestQueue::map_queues(uint32_t nr_cpus) {
    const auto nr_hw = static_cast<uint32_t>(hctxs_.size());
    mq_map_.resize(nr_cpus);
    hctx_first_cpu_.assign(nr_hw, 0);
    for (uint32_t c = nr_cpus; c-- > 0;) {
        mq_map_[c] = static_cast<uint32_t>(static_cast<uint64_t>(c) * nr_hw / nr_cpus);
        hctx_first_cpu_[mq_map_[c]] = c;
    }
}

// What the queue needs of its elevator besides the ops: a way for the policy to run an
// hctx, its checks, its report, and what its lock costs (and which locks it takes).
void RequestQueue::init_elevator(const cpu::CpuCosts& costs) {
    // blk_mq_run_hw_queue(hctx, async) from the policy (kyber_domain_wake, bfq's idle
    // timer): kblockd runs the hctx now, pulling in a delayed run that may be pending
    // (mod_delayed_work: still one run, the later event is made stale by the new
    // generation).
    elevator_->set_run_hw_queue([](void* self, uint32_t hctx, Time now) {
        auto* q = static_cast<RequestQueue*>(self);
        HwQueue& h = *q->hctxs_[hctx];
        ++h.run_gen;
        q->queue_run_work(h, now);
    }, this);
    // blk_mq_run_hw_queues(q, async) under QUEUE_FLAG_SQ_SCHED (6.1 blk-mq.c): the hctx of
    // the calling CPU (blk_mq_get_sq_hctx), and any hctx with requests on its dispatch list
    // (those bypass the scheduler and would wait for no one else), in hctx order.
    elevator_->set_run_hw_queues([](void* self, uint32_t cpu, Time now) {
        auto* q = static_cast<RequestQueue*>(self);
        const uint32_t sq = q->mq_map_[cpu < q->mq_map_.size() ? cpu : 0];
        for (auto& hp : q->hctxs_) {
            HwQueue& h = *hp;
            if (h.queue_num() != sq && h.dispatch.empty())
                continue;
            ++h.run_gen;
            q->queue_run_work(h, now);
        }
    }, this);
    elv_audit_ = dynamic_cast<const sched::ElevatorAudit*>(elevator_.get());
    elv_report_ = dynamic_cast<const sched::ElevatorReport*>(elevator_.get());
    const auto* cost = dynamic_cast<const sched::ElevatorCost*>(elevator_.get());
    const sched::LockCost lock_cost = cost ? cost->lock_cost(costs) : sched::ElevatorCost{}.lock_cost(costs);
    hold_ = lock_cost.hold;
    if (lock_cost.scope == sched::LockScope::PER_HCTX) {
        // kyber: kcq->lock per ctx (insert, bio merge), khd->lock per hctx (dispatch).
        for (uint32_t c = 0; c < mq_map_.size(); ++c)
            elv_ctx_locks_.emplace_back(name_ + ".kcq" + std::to_string(c), costs.lock_handoff);
        for (uint32_t i = 0; i < hctxs_.size(); ++i)
            elv_hctx_locks_.emplace_back(name_ + ".khd" + std::to_string(i), costs.lock_handoff);
    }
    // The sections they give out: a merge lookup, an insert of one request or more, a
    // dispatch call.
    const Duration min_hold = std::min({hold_.merge, hold_.insert, hold_.dispatch});
    elv_lock_.set_min_hold(min_hold);
    for (auto* group : {&elv_ctx_locks_, &elv_hctx_locks_})
        for (cpu::Spinlock& l : *group)
            l.set_min_hold(min_hold);
}

// blk_mq_init_sched(): the policy's queue attributes and nr_requests scheduler tags per
// hctx, or, with host-wide tags, one space of nr_requests for the whole queue
// (q->sched_shared_tags).
void RequestQueue::init_sched_tags() {
    sched::ElevatorQueueAttrs attrs;
    attrs.nr_requests = nr_requests_;
    elevator_->init_sched(attrs);
    max_dispatch_ = attrs.nr_sched_batch ? std::min(attrs.nr_sched_batch, nr_requests_) : nr_requests_;
    elv_bypass_ = attrs.bypass;
    for (auto& h : hctxs_) {
        if (sched_tags_.empty() || !tag_set_.hctx_shared()) {
            sched_tags_.push_back(std::make_unique<BlkMqTags>(nr_requests_));
            sched_tags_.back()->set_min_shallow_depth(elevator_->depth_updated(nr_requests_));
        }
        h->sched_tags = sched_tags_.back().get();
    }
}

uint32_t RequestQueue::fair_share_depth(uint32_t depth, uint32_t users) {
    return std::max((depth + users - 1) / users, 4u);
}

bool RequestQueue::hctx_may_queue(const HwQueue& h) const {
    if (!tag_set_.shared() || tag_set_.fairness() == TagFairness::OFF)
        return true;
    const BlkMqTags& t = h.tags;
    if (t.depth() == 1 || !tag_user(h).active)
        return true;
    // Yu Kuai's variant: no cap until some user of the set went short of tags. The
    // divisor stays the active users (docs/references.md §8b gives no other).
    if (tag_set_.fairness() == TagFairness::ON_SHORTAGE && t.pending_queues == 0)
        return true;
    const uint32_t users = t.active_queues;
    if (users == 0)
        return true;
    // The unit's active requests: the hctx's driver tags, or with host-wide tags the
    // queue's (nr_active_requests_shared_tags).
    const uint32_t active = tag_set_.hctx_shared() ? shared_nr_active_ : h.nr_active;
    return active < fair_share_depth(t.depth(), users);
}

// Yu Kuai's patch counts a unit as short of tags when a driver-tag allocation fails: in
// blk_mq_get_tag() before sleeping (no elevator) and in __blk_mq_get_driver_tag() (elevator).
void RequestQueue::note_tag_shortage(HwQueue& h) {
    TagUser& u = tag_user(h);
    if (tag_set_.shared() && tag_set_.fairness() == TagFairness::ON_SHORTAGE && !u.dtag_wait) {
        u.dtag_wait = true;
        ++h.tags.pending_queues;
    }
}

// blk_mq_tag_busy(): the first allocation of an inactive unit makes it a user.
void RequestQueue::tag_busy(HwQueue& h) {
    TagUser& u = tag_user(h);
    if (u.active)
        return;
    u.active = true;
    ++h.tags.active_queues;
    h.tags.update_wake_batch(h.tags.active_queues);  // blk_mq_update_wake_batch
}

// blk_mq_tag_idle(): only from the timeout work, when the queue has nothing in flight.
void RequestQueue::tag_idle(HwQueue& h, Time now) {
    TagUser& u = tag_user(h);
    if (!u.active)
        return;
    u.active = false;
    --h.tags.active_queues;
    h.tags.update_wake_batch(h.tags.active_queues);
    if (u.dtag_wait) {
        u.dtag_wait = false;
        --h.tags.pending_queues;
    }
    h.tags.wake_all(now);
}

// blk_mq_timeout_work(): the lazily armed request timer. With nothing in flight every hctx
// of the queue goes idle; otherwise look again one timeout later.
void RequestQueue::set_explain(TraceSink* sink, uint32_t dev) {
    explain_.attach(sink, dev);
    for (auto& h : hctxs_) {
        h->tags.explain().attach(sink, dev);
        if (h->sched_tags)
            h->sched_tags->explain().attach(sink, dev);
    }
    if (elevator_)
        elevator_->explain().attach(sink, dev);
    dev_.set_explain(sink, dev);
}

void RequestQueue::timeout_work() {
    const Time now = eq_.now();
    if (allocated_ != freed_) {
        timeout_timer_.arm(now + dev_.request_timeout());
        return;
    }
    for (auto& h : hctxs_)
        tag_idle(*h, now);
}

Request* RequestQueue::alloc_request(uint32_t cpu, Time now, bool sync_read) {
    HwQueue& h = map_queue(cpu);
    if (elevator_) {
        // Scheduler tag; the driver tag comes at dispatch (blk_mq_get_driver_tag).
        BlkMqTags& st = *h.sched_tags;
        // blk_mq_limit_depth(): the elevator's ->limit_depth sees every request, sync reads too
        // (each policy decides that they are not limited), so a policy that limits them shows.
        const uint32_t limit = elevator_->limit_depth(sync_read, nr_requests_);
        const uint32_t stag = st.in_use() < limit ? st.get(now) : BlkMqTags::NO_TAG;
        if (stag == BlkMqTags::NO_TAG) {
            explain_.on_cpu(now, cpu, "tag wait: no scheduler tag on hctx {} ({}/{} in use, limit {}), the task sleeps",
                            h.queue_num(), st.in_use(), st.depth(), limit);
            return nullptr;
        }
        // (The elevator's prepare_request comes once the bio is in: prepare_rq().)
        return init_request(st.rq(stag), h, BlkMqTags::NO_TAG, cpu, now);
    }
    if (tag_set_.shared())
        tag_busy(h);
    uint32_t tag = BlkMqTags::NO_TAG;
    if (hctx_may_queue(h))
        tag = h.tags.get(now);
    if (tag == BlkMqTags::NO_TAG) {
        explain_.on_cpu(now, cpu, "tag wait: no driver tag on hctx {} ({}/{} in use, {} active users), the task sleeps",
                        h.queue_num(), h.tags.in_use(), h.tags.depth(), h.tags.active_queues);
        note_tag_shortage(h);
        return nullptr;
    }
    active_get(h);
    return init_request(h.tags.rq(tag), h, tag, cpu, now);
}

// blk_mq_rq_ctx_init(): a request taken from a tag space starts its life here (trace G).
Request* RequestQueue::init_request(Request& rq, HwQueue& h, uint32_t driver_tag, uint32_t cpu, Time now) {
    rq.q = this;
    rq.mq_hctx = &h;
    rq.driver_tag = driver_tag;
    rq.mq_ctx_cpu = cpu;
    rq.t_get = now;
    rq.t_insert = now;
    rq.t_listed = Time{};
    ++allocated_;
    return &rq;
}

// One blktrace record: direct I/O writes are REQ_SYNC (rwbs "WS"); reads carry no flag, as
// the real 6.18 trace shows. Unplugs carry no op, sector or size.
// A flush: REQ_PREFLUSH or REQ_OP_FLUSH (BLK_TC_FLUSH, rwbs 'F' first); REQ_FUA (BLK_TC_FUA,
// 'F' after the direction). The flush machinery's REQ_OP_FLUSH is not a write and carries no
// REQ_SYNC: blkparse prints it "FN".
void RequestQueue::emit_event(TraceAction a, bool has_op, ReqOp op, uint64_t sector, uint32_t nr_sectors,
                              Time t, uint32_t cpu, uint32_t pid, uint32_t pdu, bool from_request,
                              uint8_t cmd_flags, const Request* rq) const {
    TraceEvent e;
    if (rq) {
        e.t_queue = rq->t_queue;
        e.t_get = rq->t_get;
        e.t_insert = rq->t_insert;
        e.t_issue = rq->t_issue;
        e.hctx = rq->mq_hctx ? rq->mq_hctx->queue_num() : 0;
    }
    e.time = t;
    e.cpu = cpu;
    e.action = a;
    e.write = has_op && op_is_write(op);
    e.discard = has_op && op == ReqOp::DISCARD;
    e.sync = has_op && op == ReqOp::WRITE;  // blkdev_issue_discard()'s bios carry no REQ_SYNC
    e.flush = has_op && ((cmd_flags & REQ_PREFLUSH) || op == ReqOp::FLUSH);
    e.fua = has_op && (cmd_flags & REQ_FUA);
    e.sector = sector;
    e.nr_sectors = nr_sectors;
    e.pid = pid;
    e.pdu = pdu;
    e.request = from_request;
    trace_->emit(trace_dev_, e);
}

void RequestQueue::emit(TraceAction a, const Request& rq, Time t, uint32_t cpu, uint32_t pdu) const {
    emit_event(a, true, rq.op, rq.sector, rq.nr_sectors, t, cpu, rq.pid, pdu, true, rq.cmd_flags, &rq);
}

void RequestQueue::emit_bio(TraceAction a, const Bio& bio, Time t, uint32_t cpu, uint32_t pid, uint32_t pdu) const {
    emit_event(a, true, bio.op, bio.sector, bio.nr_sectors, t, cpu, pid, pdu, false, bio.cmd_flags);
}

void RequestQueue::bio_to_request(Request* rq, Bio* bio, uint32_t pid, Time now) {
    rq->sector = bio->sector;
    rq->nr_sectors = bio->nr_sectors;
    // A discard carries no data: one range (blk_rq_nr_discard_segments()).
    rq->nr_phys_segments = bio->op == ReqOp::DISCARD ? 1 : bio_segments(bio->nr_sectors);
    rq->op = bio->op;
    rq->cmd_flags = bio->cmd_flags;
    rq->rq_flags = 0;
    rq->bio = rq->biotail = bio;
    bio->bi_next = nullptr;
    rq->ioprio_class = bio->ioprio_class;  // req_get_ioprio(): the first bio's priority
    rq->ioprio_level = bio->ioprio_level;
    rq->pid = pid;
    rq->t_queue = now;
}

bool RequestQueue::attempt_plug_merge(RequestList& plug, Bio* bio, Time now, uint32_t cpu) {
    // nomerges=2 sets QUEUE_FLAG_NOMERGES, which turns off plug merging too.
    if (nomerges_ == 2 || plug.empty())
        return false;
    return bio_attempt_merge(plug.back(), bio, now, cpu);
}

// blk_bio_list_merge() on the submitting CPU's software queue (no elevator): the kernel
// tries the last 8 requests of that CPU's ctx list; the model's software queues of one hctx
// are one FIFO, so it tries the newest request there when it came from the same CPU
// (docs/model.md).
bool RequestQueue::attempt_sw_merge(Bio* bio, Time now, uint32_t cpu) {
    HwQueue& h = map_queue(cpu);
    Request* rq = h.sw_pending.back();
    return rq != nullptr && rq->mq_ctx_cpu == cpu && bio_attempt_merge(rq, bio, now, cpu);
}

// bio_attempt_back_merge / bio_attempt_front_merge onto `rq`, within the queue's limits.
bool RequestQueue::bio_attempt_merge(Request* rq, Bio* bio, Time now, uint32_t cpu) {
    const uint32_t segs = bio_segments(bio->nr_sectors);
    // REQ_NOMERGE_FLAGS on either side, or a request in a flush sequence (RQF_FLUSH_SEQ):
    // bio_mergeable() / rq_mergeable() say no.
    if (rq->q != this || rq->op != bio->op || (bio->cmd_flags & REQ_NOMERGE_FLAGS) || !rq->mergeable() ||
        rq->nr_sectors + bio->nr_sectors > max_sectors_ ||
        rq->nr_phys_segments + segs > cfg_.max_segments ||
        rq->ioprio_class != bio->ioprio_class || rq->ioprio_level != bio->ioprio_level)
        return false;
    const unsigned dir = op_is_write(bio->op) ? 1u : 0u;
    if (rq->end_sector() == bio->sector) {
        // bio_attempt_back_merge
        rq->biotail->bi_next = bio;
        rq->biotail = bio;
        bio->bi_next = nullptr;
        rq->nr_sectors += bio->nr_sectors;
        rq->nr_phys_segments += segs;
        ++stats_.merges[dir];
        // blk_add_trace_bio_backmerge: the bio's sector and size, with the request's pid
        // (the merging task's for a plug; *simplification:* in a software queue the request
        // may be another task's on the same CPU).
        trace_bio(TraceAction::BACKMERGE, *bio, now, cpu, rq->pid);
        return true;
    }
    if (bio->end_sector() == rq->sector) {
        // bio_attempt_front_merge
        bio->bi_next = rq->bio;
        rq->bio = bio;
        rq->sector = bio->sector;
        rq->nr_sectors += bio->nr_sectors;
        rq->nr_phys_segments += segs;
        ++stats_.merges[dir];
        trace_bio(TraceAction::FRONTMERGE, *bio, now, cpu, rq->pid);
        return true;
    }
    return false;
}

bool RequestQueue::attempt_sched_merge(Bio* bio, Time now, uint32_t cpu, Duration& lock_time) {
    if (nomerges_ == 2 || (bio->cmd_flags & REQ_NOMERGE_FLAGS) || bio->op == ReqOp::DISCARD)
        return false;
    if (!elevator_)
        return attempt_sw_merge(bio, now, cpu);
    const cpu::Spinlock::Section sec = insert_lock(cpu).acquire(cpu, now, hold_.merge, eq_.now());
    cpus_[cpu]->account_spin(sec.spin, now);
    lock_time = sec.end - now;
    // An elevator holding no request has none to merge into: the policy's lookup is
    // skipped, not the lock section around it.
    if (elv_held_ == 0)
        return false;
    Request* rq = nullptr;
    const sched::ElvMerge m = elevator_->bio_merge(cpu, *bio, max_sectors_, &rq);
    const uint32_t segs = bio_segments(bio->nr_sectors);
    // ll_back_merge_fn / ll_front_merge_fn: the elevator's candidate must stay within the
    // segment limit too (its own lookup checked max_sectors).
    // rq_mergeable(): not into a FUA request or one in a flush sequence. *Simplification:* the
    // kernel's lookup would skip it and try the other side; here the merge is just refused.
    if (m == sched::ElvMerge::NO_MERGE || rq->nr_phys_segments + segs > cfg_.max_segments ||
        !rq->mergeable())
        return false;
    rq->nr_phys_segments += segs;
    const unsigned dir = op_is_write(bio->op) ? 1u : 0u;
    ++stats_.merges[dir];
    if (m == sched::ElvMerge::BACK_MERGE) {
        rq->biotail->bi_next = bio;
        rq->biotail = bio;
        bio->bi_next = nullptr;
        rq->nr_sectors += bio->nr_sectors;
        elevator_->request_merged(rq, m);
        // The bio is traced (its sector and size); *simplification:* with the pid of the
        // request's submitter, which is the merging task unless another job's bio joined it.
        trace_bio(TraceAction::BACKMERGE, *bio, now, cpu, rq->pid);
        // attempt_back_merge: the grown request may now reach its successor.
        if (Request* next = elevator_->next_request(rq); next && mergeable(*rq, *next))
            merge_requests(rq, next, now, cpu);
    } else {
        bio->bi_next = rq->bio;
        rq->bio = bio;
        rq->sector = bio->sector;
        rq->nr_sectors += bio->nr_sectors;
        elevator_->request_merged(rq, m);
        trace_bio(TraceAction::FRONTMERGE, *bio, now, cpu, rq->pid);
        // attempt_front_merge: its predecessor may now reach it, and absorbs it.
        if (Request* prev = elevator_->former_request(rq); prev && mergeable(*prev, *rq))
            merge_requests(prev, rq, now, cpu);
    }
    return true;
}

// elv_attempt_insert_merge() (dd_insert_request → blk_mq_sched_try_insert_merge): before a
// request goes into the elevator, try appending it to q->last_merge, then to the request
// ending where it starts; a request that grew may in turn join the one before it. True
// when rq was merged (and freed).
bool RequestQueue::attempt_insert_merge(Request* rq, Time now, uint32_t cpu) {
    if (nomerges_ == 2 || elv_held_ == 0)  // an empty elevator has nothing to merge with
        return false;
    if (Request* last = elevator_->insert_merge_last(); last && last != rq && mergeable(*last, *rq)) {
        merge_requests(last, rq, now, cpu);
        return true;
    }
    if (nomerges_ == 1)
        return false;
    bool merged = false;
    while (Request* prev = elevator_->insert_merge_find(rq->sector)) {
        if (prev == rq || !mergeable(*prev, *rq))
            break;
        merge_requests(prev, rq, now, cpu);
        merged = true;
        rq = prev;
    }
    return merged;
}

// ll_merge_requests_fn's conditions for appending `b` to `a`.
bool RequestQueue::mergeable(const Request& a, const Request& b) const {
    return a.end_sector() == b.sector && a.op == b.op && a.ioprio_class == b.ioprio_class &&
           a.ioprio_level == b.ioprio_level && a.nr_sectors + b.nr_sectors <= max_sectors_ &&
           a.nr_phys_segments + b.nr_phys_segments <= cfg_.max_segments &&
           a.mergeable() && b.mergeable() &&
           b.driver_tag == BlkMqTags::NO_TAG;
}

// attempt_merge(): `next` joins the back of `rq` (trace M for the request merge); the
// elevator forgets it and it is freed, its bios now riding on `rq`.
void RequestQueue::merge_requests(Request* rq, Request* next, Time now, uint32_t cpu) {
    // trace_block_rq_merge(next): the absorbed request, its own sector and size.
    trace(TraceAction::BACKMERGE, *next, now, cpu);
    rq->biotail->bi_next = next->bio;
    rq->biotail = next->biotail;
    rq->nr_sectors += next->nr_sectors;
    rq->nr_phys_segments += next->nr_phys_segments;
    next->bio = next->biotail = nullptr;
    if (next->elv_queued) {
        next->elv_queued = false;
        --elv_held_;
    }
    elevator_->requests_merged(rq, next);
    ++stats_.merges[op_is_write(rq->op) ? 1u : 0u];
    free_request(next, now);
}

// A broken rule about one request stops the run, naming the request and the rule.
void RequestQueue::rq_violation(const Request& rq, const char* what, const char* rule) const {
    static constexpr const char* state_names[] = {"idle", "in flight", "complete"};
    throw std::logic_error(fmt::format(
        "invariant violated: queue {}: request tag {} (sector {} + {}, {}, pid {}, state {}) {} "
        "(rule: {})", name_, rq.tag, rq.sector, rq.nr_sectors,
        rq.op == ReqOp::DISCARD ? "discard" : rq.op == ReqOp::WRITE ? "write" : "read", rq.pid,
        state_names[static_cast<unsigned>(rq.state) % 3], what, rule));
}

void RequestQueue::start_request(Request* rq, Time now) {
    if (rq->state != RqState::IDLE || rq->elv_queued)
        rq_violation(*rq, "was issued to the driver again",
                     "a request reaches the driver once, from outside the elevator, until it ends or is requeued");
    rq->state = RqState::IN_FLIGHT;
    rq->t_issue = now;
    trace(TraceAction::ISSUE, *rq, now, rq->mq_ctx_cpu);
    ++rq->mq_hctx->in_driver;
    // blk_add_timer(): the request timer is armed lazily, rounded up to a whole second.
    if (tag_set_.shared() && !timeout_timer_.armed()) {
        const int64_t when = (now + dev_.request_timeout()).ns();
        timeout_timer_.arm(Time::from_ns((when + 999'999'999) / 1'000'000'000 * 1'000'000'000));
    }
    // The busy periods of /proc/diskstats' io_ticks. Steps stamp their issues ahead of the
    // clock, so a period may be opened with a stamp earlier than the end of the last one:
    // it starts where that one ended, and periods never overlap (util <= 100 %).
    if (in_flight_++ == 0)
        busy_since_ = sim::max(now, busy_until_);
}

bool RequestQueue::issue_directly(HwQueue& h, Request* rq, bool last, Time now, uint32_t cpu) {
    if (!budget_ok()) {
        // blk_mq_get_budget_and_tag() failed: blk_mq_request_bypass_insert + run; the run
        // finds no budget either, so the request waits on hctx->dispatch for the
        // completion that gives budget back (scsi_run_queue_async).
        note_budget_exhausted();
        h.update_dispatch_busy(true);
        h.dispatch.push_back(rq);
        h.sched_restart = true;
        return false;
    }
    const dev::BlkStatus st = dev_.queue_rq(rq, last, now, cpu);
    if (st == dev::BlkStatus::OK) {
        ++stats_.direct_issues;
        h.update_dispatch_busy(false);
        return true;
    }
    // Resource error: the request goes to hctx->dispatch (bypass insert) and the hctx
    // is run (blk_mq_request_bypass_insert + blk_mq_run_hw_queue).
    requeue_refused(rq, now, cpu);  // (an elevator's direct dispatch, E3's patch, too)
    h.update_dispatch_busy(true);
    h.dispatch.push_back(rq);
    h.sched_restart = true;
    if (st == dev::BlkStatus::RESOURCE)
        delay_run_hw_queue(h, now + BLK_MQ_RESOURCE_DELAY);
    else
        device_busy_restart();
    return false;
}

// __blk_mq_requeue_request() for a request ->queue_rq refused (BLK_STS_*RESOURCE), before
// it goes back to hctx->dispatch: with an elevator the driver tag goes back (the scheduler
// tag is the request's own), so that a request ahead of it there (the flush, or any request
// when the hctx has one driver tag) is not kept from the tag it holds, with nothing at the
// driver to complete and restart the hctx.
void RequestQueue::requeue_refused(Request* rq, Time now, uint32_t cpu) {
    ++stats_.resource_requeues;
    trace(TraceAction::REQUEUE, *rq, now, cpu);
    if (elevator_)
        put_driver_tag(*rq->mq_hctx, rq, now);
}

// blk_mq_get_driver_tag(): an elevator's request needs a driver tag to reach the driver;
// the shared-tag fair share applies here, not at allocation.
bool RequestQueue::get_driver_tag_slow(HwQueue& h, Request* rq, Time now) {
    if (tag_set_.shared())
        tag_busy(h);
    const uint32_t tag = hctx_may_queue(h) ? h.tags.get(now) : BlkMqTags::NO_TAG;
    if (tag == BlkMqTags::NO_TAG) {
        note_tag_shortage(h);
        ++stats_.driver_tag_waits;
        return false;
    }
    rq->driver_tag = tag;
    active_get(h);
    return true;
}

// A section under the elevator's lock on `cpu` from `t`: spin until it is ours, hold it for
// `hold`; the core is busy for both. Returns the instant the lock is released.
Time RequestQueue::elv_lock(cpu::Spinlock& lock, uint32_t cpu, Time t, Duration hold) {
    // Inside a step (a plug flushed in the middle of a batch or of a split bio), the core
    // reaches the lock once it is done with the sections the step already charged: asked for
    // earlier, a piece would spin on its own core's previous sections and be charged that
    // spin again after them, doubling with every piece. (Outside a step the lock is taken at
    // `t` whatever the core's backlog: the lock timeline's known simplification.)
    if (cpus_[cpu]->in_step())
        t = sim::max(t, cpus_[cpu]->free_at());
    const cpu::Spinlock::Section s = lock.acquire(cpu, t, hold, eq_.now());
    cpus_[cpu]->charge(t, s.end - t, cpu::Work::LOCK, s.spin);
    cpus_[cpu]->account_charged_spin(s.spin);
    return s.end;
}

// The plug flush with an elevator (blk_mq_dispatch_list → ->insert_requests, then
// blk_mq_run_hw_queue inline): one lock section inserts the batch (trace I), then the hctx
// is run. Requests the policy lets bypass it (E3's direct dispatch) go straight to the driver.
// With `async_run` (no plug: blk_mq_sched_insert_request(rq, false, true, true) in kernels
// before 6.11) the hctx is run by kblockd instead.
void RequestQueue::insert_requests(RequestList& list, Time now, uint32_t cpu, bool async_run) {
    Time t = now;
    RequestList to_insert;
    HwQueue* h_run = nullptr;
    if (!elv_bypass_ && !list.empty()) {  // every request goes in: the whole list, as it is
        h_run = list.back()->mq_hctx;
        to_insert.splice_tail(list);
    }
    while (Request* rq = list.pop_front()) {
        HwQueue& h = *rq->mq_hctx;
        const bool hctx_idle = h.dispatch.empty() && !h.busy();
        if (elv_bypass_ && elv_bypass_->may_direct_dispatch(*rq, hctx_idle) && get_driver_tag(h, rq, t)) {
            // The decision and the accounting (inserted/dispatched, latest_pos) cost about an
            // insert's work but are taken as lock-free (atomic counters): a patch whose
            // every request took dd->lock again could not keep 10 jobs at none's level, as
            // E3's published figure shows it does (docs/model.md).
            t = cpus_[cpu]->charge(t, costs_.elv_insert, cpu::Work::INSERT);
            elv_bypass_->direct_dispatched(rq, t);
            const Time start = t;
            t = cpus_[cpu]->charge(t, queue_rq_cost_, cpu::Work::QUEUE_RQ);
            issue_directly(h, rq, list.empty(), start, cpu);
            continue;
        }
        to_insert.push_back(rq);
        h_run = &h;
    }
    if (to_insert.empty())
        return;
    t = elv_lock(insert_lock(cpu), cpu, t, hold_.insert * to_insert.size());
    elevator_->explain().set_cpu(cpu);
    while (Request* rq = to_insert.pop_front()) {
        rq->t_insert = t;
        trace(TraceAction::INSERT, *rq, t, cpu);
        ++stats_.inserts;
        if (!attempt_insert_merge(rq, t, cpu)) {
            rq->elv_queued = true;
            ++elv_held_;
            elevator_->insert_request(rq, false, t);
        }
    }
    if (async_run)
        run_hw_queue_async(*h_run, t, cpu);
    else
        run_hw_queue(*h_run, t, cpu);
}

// __blk_mq_do_dispatch_sched(): rounds of at most max_dispatch requests pulled from the
// elevator (one lock section each), each needing a driver tag; a round that cannot get one
// stops pulling (what is pulled can no longer be merged or sorted) and the request waits on
// hctx->dispatch for a completion to restart the queue.
Time RequestQueue::sched_dispatch(HwQueue& h, Time now, uint32_t cpu) {
    Time t = now;
    elevator_->explain().set_cpu(cpu);
    for (;;) {
        const uint32_t max_dispatch = h.busy() ? 1 : max_dispatch_;
        RequestList list;
        uint32_t n = 0;
        bool multi_hctxs = false;
        while (n < max_dispatch && elv_has_work(h)) {
            // __blk_mq_do_dispatch_sched takes the budget before it dequeues: without
            // budget the requests stay in the elevator, sorted and mergeable.
            if (!budget_ok(n)) {
                note_budget_exhausted();
                break;
            }
            t = elv_lock(dispatch_lock(h), cpu, t, hold_.dispatch);
            Request* rq = elevator_->dispatch_request(h.queue_num(), t);
            if (rq == nullptr)
                break;
            if (!rq->elv_queued)
                rq_violation(*rq, "was handed out by the elevator without being in it",
                             "the elevator dispatches only requests inserted into it, each once");
            rq->elv_queued = false;
            --elv_held_;
            list.push_back(rq);
            ++n;
            // A queue-wide policy (mq-deadline, bfq) may hand out a request of another hctx:
            // its driver tag is that hctx's, and it goes out in that hctx's batch.
            multi_hctxs |= rq->mq_hctx != &h;
            if (!get_driver_tag(*rq->mq_hctx, rq, t))
                break;
        }
        if (n == 0) {
            // has_work but nothing to hand out (mq-deadline's strict priority, kyber out of
            // tokens): BLK_MQ_BUDGET_DELAY rerun (kyber's token wake-up pulls it in).
            // Out of budget, the completion that returns some reruns the queue instead.
            if (elv_has_work(h) && !budget_restart_)
                delay_run_hw_queue(h, t + BLK_MQ_RESOURCE_DELAY);
            return t;
        }
        // A round that pulled a request with no driver tag stops pulling, but if the tags
        // came back while its list went out (a device completing inline frees them) and all
        // of it reached the driver, the loop goes on (blk_mq_do_dispatch_sched: while
        // blk_mq_dispatch_rq_list queued everything): nothing else would run the hctx for
        // what the elevator still holds.
        const uint64_t woken = cpus_[cpu]->preempting_wakeups();
        const bool all = multi_hctxs ? dispatch_hctx_lists(h, list, t, cpu) : dispatch_rq_list(h, list, t, cpu);
        t = sim::max(t, cpus_[cpu]->free_at());
        if (!all || !h.dispatch.empty())
            return t;
        // blk_mq_do_dispatch_sched(): after a round that dispatched, need_resched() ends the
        // loop and hands the hctx to kblockd (blk_mq_delay_run_hw_queue(hctx, 0)), even
        // when the elevator is empty. It is set when this round's ->queue_rq woke a task
        // onto this CPU that now waits to preempt the one running here (loop's worker, woken
        // on the submitter's CPU).
        if (cpus_[cpu]->preempting_wakeups() != woken && cpus_[cpu]->has_waiting()) {
            ++stats_.resched_handoffs;
            run_hw_queue_async(h, t, cpu);
            return t;
        }
        // Nothing left: the next round would pull nothing and return (the common end of a
        // flush, the elevator drained), so it is not played.
        if (!elv_has_work(h))
            return t;
        // The loop's next round is an event at this one's end (loop_goes_on) if max_dispatch
        // stopped it or another event comes first.
        if (n == max_dispatch || (t > eq_.now() && !cpus_[cpu]->in_step() && eq_.next_time() <= t)) {
            loop_goes_on(h, t, cpu);
            return t;
        }
    }
}

// sched_dispatch()'s loop goes on in a later event. In blk_mq_do_dispatch_sched()'s loop the
// next round starts once this one's ->queue_rq calls are done. While they run, other CPUs
// insert, merge bios into the requests still in the elevator, and dispatch; so a round that
// left work behind (max_dispatch reached: nr_sched_batch, or a dispatch_busy hctx) continues
// as an event at its end rather than at once. A round that drained the elevator needs no
// continuation: whoever inserts later runs the hctx itself.
// Nor does the loop run ahead of the clock: a device completing inline (null_blk
// irqmode=0) ends each round's requests within it, so a policy that hands out one
// request a round (bfq injecting while it idles) would chain round after round in
// one event, while other CPUs' insertions due in between waited for the chain's end.
// When another event comes at or before the next round's start (the submission
// rule, JobThread::submit_bios), the next round is an event at that instant. The
// core stays the loop's meanwhile (Cpu::hold): the task whose plug flush runs it is
// still in blk_finish_plug() and goes on when the loop ends.
// *Simplification:* a loop run from a plug flushed in the middle of a task's step
// (the plug full) goes on inline unless max_dispatch stopped the round: that step is
// itself played out ahead of the clock, and goes on while its loop's rounds do.
void RequestQueue::loop_goes_on(HwQueue& h, Time t, uint32_t cpu) {
    ++h.loops_pending;
    loop_yielded_ = true;
    uint64_t arg = uint64_t{cpu} << 32 | h.queue_num();
    if (task_loop_) {
        cpus_[cpu]->hold();
        arg |= kHoldsCpu;
    }
    eq_.at<&RequestQueue::dispatch_continue>(t, this, arg);
}

// The next round of a dispatch loop that yielded (sched_dispatch), on the same CPU. A loop a
// task's plug flush ran holds the task's core until it ends (Cpu::hold).
void RequestQueue::dispatch_continue(uint64_t arg) {
    HwQueue& h = *hctxs_[static_cast<uint32_t>(arg)];
    const auto cpu = static_cast<uint32_t>((arg & ~kHoldsCpu) >> 32);
    const bool holds = arg & kHoldsCpu;
    --h.loops_pending;
    const bool outer = task_loop_;
    task_loop_ = holds;
    const bool again = h.dispatch.empty() && elv_has_work(h) &&  // else another CPU's run took it
                       run_hw_queue_yields(h, sim::max(eq_.now(), cpus_[cpu]->free_at()), cpu);
    task_loop_ = outer;
    if (!again)
        work_done(h, cpu);
    if (holds)
        cpus_[cpu]->unhold(eq_.now());  // this round's hold; a next round holds the core itself
}

// run_hw_queue(); true when its dispatch loop went on in a dispatch_continue event.
bool RequestQueue::run_hw_queue_yields(HwQueue& h, Time now, uint32_t cpu) {
    const bool outer = loop_yielded_;
    loop_yielded_ = false;
    run_hw_queue(h, now, cpu);
    const bool yielded = loop_yielded_;
    loop_yielded_ = outer;
    return yielded;
}

void RequestQueue::flush_plug(RequestList& plug, Time now, uint32_t cpu, bool async_run) {
    if (elevator_) {
        // The dispatch loop this runs is the task's own (blk_finish_plug() has not returned).
        const bool outer = task_loop_;
        task_loop_ = true;
        insert_requests(plug, now, cpu, async_run);
        task_loop_ = outer;
        return;
    }
    // Each ->queue_rq costs the submitting CPU; the D of request i is stamped when its
    // ->queue_rq starts.
    Time t = now;
    bool inserted = false;
    HwQueue* last_h = nullptr;
    while (Request* rq = plug.pop_front()) {
        HwQueue& h = *rq->mq_hctx;
        if (!h.busy() && h.dispatch.empty() && h.sw_pending.empty()) {
            // ->queue_rqs / blk_mq_issue_direct: no I, straight to D.
            const Time start = t;
            t = cpus_[cpu]->charge(t, queue_rq_cost_, cpu::Work::QUEUE_RQ);
            if (issue_directly(h, rq, plug.empty(), start, cpu))
                continue;
        } else {
            rq->t_insert = t;
            trace(TraceAction::INSERT, *rq, t, cpu);
            h.sw_pending.push_back(rq);
            ++stats_.inserts;
            inserted = true;
            last_h = &h;
        }
    }
    if (inserted && async_run)
        run_hw_queue_async(*last_h, t, cpu);
    else if (inserted)
        run_hw_queue(*last_h, t, cpu);
}

void RequestQueue::run_hw_queue(HwQueue& h, Time now, uint32_t cpu) {
    if (!h.dispatch.empty()) {
        // Requeued / bypassed requests go first; if not all of them went out, stop here.
        RequestList list;
        list.splice_tail(h.dispatch);
        dispatch_rq_list(h, list, now, cpu);
        if (!h.dispatch.empty())
            return;
    }
    if (elevator_) {
        sched_dispatch(h, sim::max(now, cpus_[cpu]->free_at()), cpu);
        return;
    }
    if (!h.sw_pending.empty()) {
        RequestList list;
        list.splice_tail(h.sw_pending);
        dispatch_rq_list(h, list, now, cpu);
    }
}

// blk_mq_mark_tag_wait: wait for a completion (SCHED_RESTART), no delayed rerun; with a tag
// set shared between queues, for a tag freed by any of them. With host-wide tags (one space
// for every hctx) another hctx's completion frees the tag: blk_mq_dispatch_rq_list reruns a
// no-tag hctx that is not on dispatch_wait until it gets one, which comes to the same as
// waiting for a freed tag. *Simplification:* those reruns cost kblockd no CPU time.
// True when a completion frees one of rq's hctx's tags at `ahead`, an instant after `t`
// (the end of its work after a hard-irq handler, ahead of the clock): that completion's
// restart, done earlier in the event order, comes after this dispatch in time, and must
// rerun the hctx then.
bool RequestQueue::mark_tag_wait(Request* rq, Time t, uint32_t cpu, Time& ahead) {
    HwQueue& h = *rq->mq_hctx;
    explain_.on_cpu(t, cpu, "tag wait: no driver tag on hctx {} ({}/{} in use) for sector {}, "
                    "dispatch waits for a completion", h.queue_num(), h.tags.in_use(), h.tags.depth(), rq->sector);
    if (tag_set_.shared() || tag_set_.hctx_shared())
        tag_wait(h.tags, &h.dispatch_wait, t);
    ahead = h.tags.next_put_after(t);
    return ahead > t;
}

// __blk_mq_do_dispatch_sched() when a queue-wide policy (mq-deadline, bfq) handed out
// requests of other hctxs: the list is sorted by hctx (list_sort() by sched_rq_cmp(), which
// is stable) and each hctx's batch goes through blk_mq_dispatch_rq_list() on its own hctx
// (blk_mq_dispatch_hctx_list()), so that a request is tried on its own queue whatever became
// of another's. The kernel orders the hctxs by address; blksim by number. A batch of another
// hctx that did not all go out has that hctx run (blk_mq_dispatch_rq_list: no restart
// marked on it). True when some batch went out whole.
bool RequestQueue::dispatch_hctx_lists(HwQueue& h, RequestList& list, Time now, uint32_t cpu) {
    bool dispatched = false;
    Time t = now;
    while (!list.empty()) {
        HwQueue* bh = list.front()->mq_hctx;
        for (const Request& rq : list)
            if (rq.mq_hctx->queue_num() < bh->queue_num())
                bh = rq.mq_hctx;
        RequestList batch, rest;
        while (Request* rq = list.pop_front())
            (rq->mq_hctx == bh ? batch : rest).push_back(rq);
        list.splice_tail(rest);
        const bool all = dispatch_rq_list(*bh, batch, t, cpu);
        dispatched |= all;
        t = sim::max(t, cpus_[cpu]->free_at());
        if (!all && bh != &h && !bh->run_pending)
            queue_run_work(*bh, t);
    }
    return dispatched;
}

// blk_mq_dispatch_rq_list(): ->queue_rq each request until the driver refuses; leftovers go
// to the tail of hctx->dispatch and a restart is arranged.
bool RequestQueue::dispatch_rq_list(HwQueue& h, RequestList& list, Time now, uint32_t cpu) {
    Time t = now;
    dev::BlkStatus st = dev::BlkStatus::OK;
    bool wait_completion = false;  // no tag or no budget: a completion restarts the hctx
    HwQueue* ahead_hctx = nullptr;  // no tag at t, one freed at tag_ahead (mark_tag_wait)
    Time tag_ahead;
    while (Request* rq = list.pop_front()) {
        // A request became visible here when the section that inserted it ended (its I):
        // submitters play their steps out ahead of the clock, so a completion's restart,
        // processed later but stamped earlier, can find a request that is not there yet at
        // its instant. It issues it no earlier than that, nor earlier than the round that
        // left it on hctx->dispatch (holding the driver tag that round took for it).
        t = sim::max(t, sim::max(rq->t_insert, rq->t_listed));
        // blk_mq_prep_dispatch_rq(): budget first, then the driver tag.
        if (!budget_ok()) {
            list.push_front(rq);
            note_budget_exhausted();
            wait_completion = true;
            break;
        }
        if (!get_driver_tag(*rq->mq_hctx, rq, t)) {
            if (mark_tag_wait(rq, t, cpu, tag_ahead))
                ahead_hctx = rq->mq_hctx;
            list.push_front(rq);
            wait_completion = true;
            break;
        }
        const Time start = t;
        t = cpus_[cpu]->charge(t, queue_rq_cost_, cpu::Work::QUEUE_RQ);
        st = dev_.queue_rq(rq, list.empty(), start, cpu);
        if (st != dev::BlkStatus::OK) {
            requeue_refused(rq, start, cpu);  // blk_mq_handle_dev_resource
            list.push_front(rq);
            break;
        }
    }
    const bool busy = !list.empty();
    h.update_dispatch_busy(busy);
    if (!busy)
        return true;
    // Leftovers wait on hctx->dispatch, which its completions restart, keeping a driver tag
    // the round took for them (a request refused by the driver gave its back).
    while (Request* rq = list.pop_front()) {
        rq->t_listed = t;
        h.dispatch.push_back(rq);
    }
    h.sched_restart = true;
    if (ahead_hctx) [[unlikely]]
        sched_restart(*ahead_hctx, tag_ahead);  // as that completion does it
    if (!wait_completion && st == dev::BlkStatus::RESOURCE)
        delay_run_hw_queue(h, now + BLK_MQ_RESOURCE_DELAY);
    // DEV_RESOURCE: the next completion of this device restarts the hctx.
    if (!wait_completion && st == dev::BlkStatus::DEV_RESOURCE)
        device_busy_restart();
    return false;
}

void RequestQueue::delay_run_hw_queue(HwQueue& h, Time when) {
    if (h.run_pending)
        return;
    queue_run_work(h, when);
}

// blk_mq_run_hw_queue(hctx, async = true) → kblockd_mod_delayed_work_on(
// blk_mq_hctx_next_cpu(hctx), &hctx->run_work, 0). With one hctx next_cpu is
// WORK_CPU_UNBOUND, the submitting CPU's worker; *simplification:* with several hctxs it is
// the submitting CPU too (mapped to the hctx), not the kernel's round-robin over the hctx's
// CPUs every BLK_MQ_CPU_WORK_BATCH runs. A work item runs on one worker at a time: queued
// while it runs (its dispatch loop still going, or its CPU work not done), it runs again
// after, on the same worker. mod_delayed_work pulls in a later pending run (a delayed rerun).
void RequestQueue::run_hw_queue_async(HwQueue& h, Time t, uint32_t cpu) {
    if (h.loops_pending > 0)
        return;  // the loop looks for work again before it ends
    if (t < h.work_busy_until) {
        t = h.work_busy_until;
        cpu = h.run_cpu;
    }
    if (h.run_pending && h.run_at <= t)
        return;
    ++h.run_gen;
    h.run_pending = true;
    h.run_at = t;
    h.run_cpu = cpu;
    eq_.at<&RequestQueue::kblockd_run>(t, this, run_work_arg(h));
}

// The kblockd worker runs hctx->run_work. It reads the elevator when it has its CPU (a task
// running there finishes its step first), not when the work was queued; a worker that was
// idle is first woken and switched in (context_switch), one still busy with this item goes on.
void RequestQueue::kblockd_run(uint64_t arg) {
    HwQueue& h = *hctxs_[static_cast<uint32_t>(arg)];
    if (static_cast<uint32_t>(arg >> 32) != h.run_gen)
        return;
    const Time now = eq_.now();
    const uint32_t cpu = h.run_cpu;
    if (cpus_[cpu]->free_at() > now) {
        eq_.at<&RequestQueue::kblockd_run>(cpus_[cpu]->free_at(), this, arg);
        return;
    }
    if (now > h.work_busy_until) {
        // The worker was asleep: it looks at the elevator once it is switched in.
        h.work_busy_until = cpus_[cpu]->charge(now, costs_.context_switch, cpu::Work::KBLOCKD);
        eq_.at<&RequestQueue::kblockd_run>(h.work_busy_until, this, arg);
        return;
    }
    h.run_pending = false;
    if (!run_hw_queue_yields(h, now, cpu))
        work_done(h, cpu);
}

// A run of hctx->run_work (or an inline dispatch loop) has ended: its CPU work ends at the
// CPU's free_at; a run queued before then waits for it.
void RequestQueue::work_done(HwQueue& h, uint32_t cpu) {
    h.work_busy_until = cpus_[cpu]->free_at();
}

// hctx->run_work on kblockd: runs on the first CPU mapped to the hctx.
void RequestQueue::run_work(uint64_t arg) {
    const auto index = static_cast<uint32_t>(arg);
    HwQueue& h = *hctxs_[index];
    if (static_cast<uint32_t>(arg >> 32) != h.run_gen)
        return;  // replaced by an earlier run (mod_delayed_work)
    h.run_pending = false;
    run_hw_queue(h, eq_.now(), hctx_first_cpu_[index]);
}

void RequestQueue::requeue_request(Request* rq, Time now, uint32_t cpu) {
    HwQueue& h = *rq->mq_hctx;
    // __blk_mq_requeue_request: a started request stops being in flight.
    if (rq->state == RqState::IN_FLIGHT) {
        --h.in_driver;
        if (--in_flight_ == 0)
            end_busy(now);
    } else if (rq->state != RqState::IDLE) {
        rq_violation(*rq, "was requeued after it completed", "only a request the driver holds can be requeued");
    }
    rq->state = RqState::IDLE;
    ++stats_.requeues;
    trace(TraceAction::REQUEUE, *rq, now, cpu);
    if (elevator_) {
        // blk_mq_put_driver_tag: only a request with a scheduler tag gives its driver tag
        // back (without an elevator the driver tag is the request's own).
        put_driver_tag(h, rq, now);
        elevator_->explain().set_cpu(cpu);
        elevator_->requeue_request(rq);  // blk_mq_sched_requeue_request
    }
    // blk_mq_add_to_requeue_list(rq, BLK_MQ_INSERT_AT_HEAD) + blk_mq_kick_requeue_list: the
    // work is unbound and runs on the kicking CPU in the common case.
    requeue_list_.push_front(rq);
    kick_requeue_list(now, cpu);
}

// blk_mq_requeue_work(): each request goes back in at the head (trace I again), then every
// hctx is run. *Simplification:* the work item itself costs no CPU time beyond the
// elevator lock section and the dispatch it runs.
void RequestQueue::requeue_work(uint64_t arg) {
    requeue_work_pending_ = false;
    const auto cpu = static_cast<uint32_t>(arg);
    Time t = eq_.now();
    RequestList list;
    list.splice_tail(requeue_list_);
    // blk_mq_insert_request(): a REQ_OP_FLUSH (the hctx's flush_rq, requeued by the driver)
    // goes back to the head of hctx->dispatch, past the scheduler and not traced, as when
    // blk_kick_flush() first queued it.
    RequestList to_insert;
    while (Request* rq = list.pop_front()) {
        if (rq->op == ReqOp::FLUSH)
            flush_list_.push_back(rq);
        else
            to_insert.push_back(rq);
    }
    list.splice_tail(to_insert);
    if (elevator_ && !list.empty()) {
        t = elv_lock(insert_lock(cpu), cpu, t, hold_.insert * list.size());
        elevator_->explain().set_cpu(cpu);
    }
    while (Request* rq = list.pop_front()) {
        // A request requeued in a step stamped ahead of the clock comes back no earlier
        // than it was allocated, whenever the work item runs.
        rq->t_insert = sim::max(t, rq->t_get);
        trace(TraceAction::INSERT, *rq, rq->t_insert, cpu);
        if (elevator_) {
            rq->elv_queued = true;
            ++elv_held_;
            elevator_->insert_request(rq, true, t);
        } else {
            rq->mq_hctx->sw_pending.push_front(rq);
        }
    }
    // Then the flush requests blk_kick_flush() queued: blk_mq_insert_request() puts a
    // REQ_OP_FLUSH at the head of hctx->dispatch, past the scheduler (so that on an NCQ disk
    // the non-queued flush waits there while more flushes coalesce), not traced.
    while (Request* rq = flush_list_.pop_front())
        rq->mq_hctx->dispatch.push_front(rq);
    // blk_mq_run_hw_queues(q, false)
    for (auto& h : hctxs_)
        run_hw_queue(*h, sim::max(t, cpus_[cpu]->free_at()), cpu);
}

[[gnu::always_inline]] inline void RequestQueue::end_request_body(Request* rq, Time tc, uint32_t ccpu, Time now) {
    // blk_update_request → trace C; diskstats; btt stage times.
    // A discard goes to the kernel's STAT_DISCARD, which fio's disk stats (read/write) leave out.
    if (rq->op != ReqOp::DISCARD) [[likely]] {
        const unsigned dir = rq->op == ReqOp::WRITE ? 1u : 0u;
        ++stats_.ios[dir];
        stats_.sectors[dir] += rq->nr_sectors;
        stats_.ticks_ns[dir] += (tc - rq->t_get).count();
    }
    stats_.q2g.add((rq->t_get - rq->t_queue).count());
    stats_.g2i.add((rq->t_insert - rq->t_get).count());
    stats_.i2d.add((rq->t_issue - rq->t_insert).count());
    stats_.d2c.add((tc - rq->t_issue).count());
    stats_.q2c.add((tc - rq->t_queue).count());

    HwQueue& h = *rq->mq_hctx;
    // blk_update_request ends every bio of the request (bio_endio → bi_end_io) before the
    // request is freed (blk_mq_end_request order).
    Bio* bio = rq->bio;
    rq->bio = rq->biotail = nullptr;
    while (bio) {
        Bio* next = bio->bi_next;
        bio->bi_next = nullptr;
        bio->end_io->end_io(bio, tc);
        bio = next;
    }
    // The elevator's finish hook (bfq_finish_requeue_request takes bfqd->lock) costs the
    // completing CPU its hold time. *Simplification:* it does not enter the lock's timeline:
    // completion work runs at the present instant, while submitters reserve the lock at the
    // end of their steps, slightly ahead; on the FIFO timeline a completion would queue
    // behind such reservations, spin, delay its CPU's next reservation, and so on.
    finish_request(rq, tc, ccpu, now);
    free_request(rq, tc);
    completion_restart(h, tc);
}

// blk_mq_complete_need_ipi(): rq_affinity=1 (QUEUE_FLAG_SAME_COMP) sends a completion to
// the CPU that submitted the request unless it is this one or shares this one's last-level
// cache (cpus_share_cache(): the same sd_llc domain, which a host whose CPUs expose no cache
// topology does not build, host.shared_llc); rq_affinity=2 (QUEUE_FLAG_SAME_FORCE) sends it
// whenever the CPUs differ; rq_affinity=0 completes where it is.
bool RequestQueue::complete_need_ipi(uint32_t cpu, uint32_t submitter) const {
    if (cfg_.rq_affinity == 0 || cpu == submitter)
        return false;
    return cfg_.rq_affinity == 2 || !cpus_[cpu]->has_sd_llc() || !cpus_[submitter]->has_sd_llc();
}

void RequestQueue::complete_request(Request* rq, Time now, uint32_t irq_cpu, CompletionPath path) {
    if (rq->state != RqState::IN_FLIGHT)
        rq_violation(*rq, "was completed while not in flight", "every request completes exactly once, after it was issued");
    rq->state = RqState::COMPLETE;
    // blk_mq_complete_request_remote(): a completion that complete_need_ipi() sends to the
    // submitting CPU runs there (the IPI and BLOCK_SOFTIRQ: the profile's `softirq`).
    uint32_t ccpu = irq_cpu;
    Duration cost = complete_rq_cost_;
    switch (path) {
    case CompletionPath::INLINE:
        break;
    case CompletionPath::SOFTIRQ:
        // Ended from a task's context (the loop worker) or a local softirq: on a host whose
        // CPUs share no cache the kernel sends it to the submitter all the same.
        if (complete_need_ipi(irq_cpu, rq->mq_ctx_cpu))
            ccpu = rq->mq_ctx_cpu;
        cost += costs_.softirq;
        break;
    case CompletionPath::TIMER_IRQ:
        cost += costs_.irq;
        break;
    case CompletionPath::DEVICE_IRQ:
        cpus_[irq_cpu]->irq(now, costs_.irq);
        now = now + costs_.irq;
        if (complete_need_ipi(irq_cpu, rq->mq_ctx_cpu))
            ccpu = rq->mq_ctx_cpu;  // IPI to the submitter, BLOCK_SOFTIRQ there
        if (ccpu != irq_cpu || hctxs_.size() == 1)
            cost += costs_.softirq;
        break;
    case CompletionPath::POLLED:
        // The submitting task, spinning in the poll loop on its own CPU, ends the request:
        // its own (system) time, not an interrupt's.
        ccpu = rq->mq_ctx_cpu;
        break;
    }
    const Time tc = path == CompletionPath::POLLED ? cpus_[ccpu]->charge(now, cost, cpu::Work::COMPLETION)
                                                   : cpus_[ccpu]->irq(now, cost, cpu::Work::COMPLETION);
    trace(TraceAction::COMPLETE, *rq, tc, ccpu);

    HwQueue& h = *rq->mq_hctx;
    --h.in_driver;
    if (--in_flight_ == 0)
        end_busy(tc);
    if (rq->rq_flags & RQF_FLUSH_SEQ) [[unlikely]] {
        // The flush machinery's own flush (flush_end_io) or the data step of a flush
        // sequence (mq_flush_data_end_io): the request is not ended yet.
        if (rq == &h.fq.flush_rq)
            flush_end_io(rq, tc, ccpu);
        else
            flush_data_end_io(rq, tc, ccpu, now);
        return;
    }
    end_request_body(rq, tc, ccpu, now);
}

void RequestQueue::end_request(Request* rq, Time tc, uint32_t ccpu, Time now) {
    end_request_body(rq, tc, ccpu, now);
}


void RequestQueue::tag_wait(BlkMqTags& tags, TagWaiter* w, Time now) {
    if (tags.prepare_to_wait(w, now)) [[unlikely]] {
        for (const int64_t at : tags.replays())
            eq_.at<&BlkMqTags::replay>(Time::from_ns(at), &tags, static_cast<uint64_t>(at));
    }
}

void RequestQueue::completion_restart_slow(HwQueue& h, Time now) {
    // scsi_end_request → scsi_run_queue_async(): a dispatch that ran out of budget left
    // requests somewhere on this queue; the budget just returned lets every hctx run.
    if (budget_restart_) {
        budget_restart_ = false;
        for (auto& hx : hctxs_) {
            if (hx.get() != &h && !hx->run_pending)
                queue_run_work(*hx, now);
        }
        h.sched_restart = true;
    }

    sched_restart(h, now);
}

// __blk_mq_free_request(): the elevator's finish hook (for a request that did not complete:
// merged into another), then the driver tag, then the scheduler tag; freed tags wake
// sleepers.
void RequestQueue::free_request(Request* rq, Time now) {
    HwQueue& h = *rq->mq_hctx;
    if (rq->state == RqState::IN_FLIGHT || rq->elv_queued)
        rq_violation(*rq, "was freed while still at the driver or in the elevator",
                     "a request is freed once it completed or was merged into another");
    rq->state = RqState::IDLE;
    ++freed_;
    if (elevator_ && !(rq->rq_flags & RQF_SCHED_FINISHED))
        elevator_->finish_request(rq, now);
    put_driver_tag(h, rq, now);
    if (elevator_)
        h.sched_tags->put(rq->tag, now);
}

std::string RequestQueue::audit() const {
    uint64_t sched_in_use = 0, nr_active = 0, in_driver = 0;
    for (const auto& st : sched_tags_)
        sched_in_use += st->in_use();
    for (const auto& h : hctxs_) {
        nr_active += h->nr_active;
        in_driver += h->in_driver;
    }
    if (tag_set_.hctx_shared() && shared_nr_active_ != nr_active)
        return fmt::format("the queue holds {} driver tags of the host-wide space by its count, its hctxs {}",
                           shared_nr_active_, nr_active);
    const uint64_t alive = allocated_ - freed_;
    // Every live request holds the tag it was allocated from (a scheduler tag with an
    // elevator, a driver tag without one).
    if (elevator_ ? alive != sched_in_use : alive != nr_active)
        return fmt::format("{} requests allocated and not freed, but {} {} tags in use (rule: every live "
                           "request holds one tag)", alive, elevator_ ? sched_in_use : nr_active,
                           elevator_ ? "scheduler" : "driver");
    if (in_driver != in_flight_ || in_flight_ > nr_active)
        return fmt::format("{} requests at the driver by the hctxs' count, {} by the queue's, {} driver "
                           "tags held (rule: a request at the driver holds a driver tag)", in_driver,
                           in_flight_, nr_active);
    if (budget_depth_ != 0 && in_flight_ > budget_depth_)
        return fmt::format("{} requests at the driver, more than its budget of {}", in_flight_, budget_depth_);
    if (elv_audit_) {
        if (elv_audit_->queued() != elv_held_)
            return fmt::format("the {} scheduler counts {} requests, the core inserted {} it has not had "
                               "back (rule: inserted - dispatched - merged = held)", elevator_->name(),
                               elv_audit_->queued(), elv_held_);
        if (std::string why = elv_audit_->audit(); !why.empty())
            return why;
        if (elv_held_ == 0)
            for (const auto& h : hctxs_)
                if (elevator_->has_work(h->queue_num()))
                    return fmt::format("the {} scheduler has work for hctx {} but holds no request (rule: an "
                                       "elevator with nothing inserted has nothing to dispatch)",
                                       elevator_->name(), h->queue_num());
    } else if (!elevator_ && elv_held_ != 0) {
        return fmt::format("{} requests counted in an elevator the queue does not have", elv_held_);
    }
    return {};
}

void RequestQueue::end_busy(Time t) {
    if (t > busy_since_)
        stats_.busy += t - busy_since_;
    busy_until_ = sim::max(busy_until_, t);
}

Duration RequestQueue::busy_time(Time now) const {
    return in_flight_ > 0 && now > busy_since_ ? stats_.busy + (now - busy_since_) : stats_.busy;
}

}  // namespace blksim::blkmq
