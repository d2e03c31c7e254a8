// struct request_queue for one disk with no elevator ("none"): request allocation from
// driver tags, the plug flush with direct issue, the software-queue insert and hardware
// queue run when the hctx is busy, and completion (blk-mq.c). Elevators come with the
// scheduler work and plug in at insert / dispatch.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/blkmq/blk_mq_submit.h"
#include "models/blkmq/driver_api.h"
#include "models/blkmq/explain.h"
#include "models/blkmq/hw_queue.h"
#include "models/blkmq/queue_config.h"
#include "models/blkmq/request.h"
#include "models/blkmq/tag_set.h"
#include "models/blkmq/trace.h"
#include "models/cpu/cpu.h"
#include "models/cpu/cpu_config.h"
#include "models/cpu/spinlock.h"
#include "models/device/device.h"
#include "models/sched/elevator.h"
#include "models/result/queue_report.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/timer.h"

namespace blksim::sched {
class SchedulerKind;
}

namespace blksim::blkmq {

class Plug;

// What the queue measured: /proc/diskstats (fio's "Disk stats") and btt's stage latencies.
struct QueueStats {
    std::array<uint64_t, 2> ios{};       // completed requests per direction
    std::array<uint64_t, 2> sectors{};
    std::array<uint64_t, 2> merges{};
    std::array<int64_t, 2> ticks_ns{};   // sum of request lifetimes (G..C)
    sim::Duration busy;                  // time with at least one request at the driver
    uint64_t direct_issues = 0;          // issued straight from the plug (no I)
    uint64_t inserts = 0;                // went through the software queue (I)
    uint64_t resource_requeues = 0;      // ->queue_rq said BLK_STS_*RESOURCE
    uint64_t requeues = 0;               // the driver gave a request back (blk_mq_requeue_request)
    uint64_t budget_exhausted = 0;       // a dispatch found the device's budget used up
    uint64_t driver_tag_waits = 0;       // an elevator's request found no driver tag at dispatch
    uint64_t resched_handoffs = 0;       // a dispatch loop handed the hctx to kblockd on need_resched()
    // /proc/diskstats' flush fields: flush requests the driver completed (blk-flush.c's
    // flush_rq, REQ_OP_FLUSH) and their time from issue by the flush machinery to completion.
    uint64_t flushes = 0;
    int64_t flush_ticks_ns = 0;
    result::StageStat q2g, g2i, i2d, d2c, q2c;  // btt's stage latencies, ns
};

class RequestQueue final : public DriverQueue {
public:
    // `elevator` is the scheduler's descriptor (the kernel's elevator_type, which
    // elevator_init_mq() finds by name), found by whoever builds the queue.
    RequestQueue(std::string name, sim::EventQueue& eq, const QueueConfig& cfg,
                 const sched::SchedulerKind& elevator, dev::Device& dev, TagSet& tag_set, std::span<const std::unique_ptr<cpu::Cpu>> cpus,
                 const cpu::CpuCosts& costs, uint32_t budget_depth = 0);
    RequestQueue(const RequestQueue&) = delete;
    RequestQueue& operator=(const RequestQueue&) = delete;

    const std::string& name() const { return name_; }
    dev::Device& device() { return dev_; }
    const QueueConfig& config() const { return cfg_; }
    uint32_t nr_hw_queues() const override { return static_cast<uint32_t>(hctxs_.size()); }
    HwQueue& hctx(uint32_t i) { return *hctxs_[i]; }
    const HwQueue& hctx(uint32_t i) const { return *hctxs_[i]; }
    // blk_mq_map_queue(): the hctx of the submitting CPU (blk_mq_map_queues' contiguous
    // groups: CPU c → hctx c * nr_hw_queues / nr_cpus).
    HwQueue& map_queue(uint32_t cpu) { return single_hctx_ ? *single_hctx_ : *hctxs_[mq_map_[cpu]]; }
    // The tags a task on `cpu` sleeps on when it finds none (blk_mq_get_tag()'s bt): the
    // scheduler tags with an elevator, else the driver tags (one space for all hctxs when
    // the tags are shared).
    BlkMqTags& wait_tags(uint32_t cpu) {
        HwQueue& h = map_queue(cpu);
        return h.sched_tags ? *h.sched_tags : h.tags;
    }
    uint32_t hctx_first_cpu(uint32_t i) const override { return hctx_first_cpu_[i]; }
    std::span<const std::unique_ptr<cpu::Cpu>> cpus() const override { return cpus_; }
    const cpu::CpuCosts& costs() const override { return costs_; }
    uint64_t capacity_sectors() const { return dev_.capacity_sectors(); }
    uint32_t logical_block_size() const { return dev_.logical_block_size(); }
    // The dispatch budget (->get_budget): SCSI disks may have at most sdev->queue_depth
    // commands at the driver, whatever the host's tags allow; 0 = no budget (NVMe, null_blk).
    uint32_t budget_depth() const { return budget_depth_; }

    // blk_mq_submit_bio() for a bio of the task on CPU `cpu` holding `plug`
    // (models/blkmq/blk_mq_submit.cc): split, merge, or a request on the plug. `cpu_time` gets
    // the CPU time the submission takes beyond one bio's (bio_submit + rq_alloc + plug).
    SubmitStatus submit_bio(SplitBio& bio, Plug& plug, uint32_t cpu, sim::Time now, sim::Duration& cpu_time);

    // __blk_mq_alloc_requests(): a request with a driver tag from the submitting CPU's
    // hctx, or nullptr when the tags are exhausted or the shared-tag fair share is used up
    // (the caller then sleeps, see wait_for_tag).
    // With an elevator the request comes from the scheduler tags, within the elevator's
    // depth limit for anything but synchronous reads (limit_depth).
    Request* alloc_request(uint32_t cpu, sim::Time now, bool sync_read = true);
    void wait_for_tag(uint32_t cpu, TagWaiter* w, sim::Time now) { tag_wait(wait_tags(cpu), w, now); }
    // blk_mq_get_tag() after its sleep: a task woken for a tag that wakes on a CPU of another
    // hctx retries there, and makes up the wake-up it took from the tags it slept on
    // (sbitmap_queue_wake_up(bt_prev, 1)), so that a sleeper left there is not starved.
    // *Simplification:* when the task is placed (JobThread::wakeup_event), a wake-up latency
    // before it runs.
    void tag_wake_moved(uint32_t from_cpu, uint32_t to_cpu, sim::Time now) {
        BlkMqTags& prev = wait_tags(from_cpu);
        if (&prev != &wait_tags(to_cpu))
            prev.wake_up(now);
    }
    sched::Elevator* elevator() { return elevator_.get(); }
    // The elevator's checks and its part of the report; nullptr without an elevator or
    // when the policy has none.
    const sched::ElevatorAudit* elevator_audit() const { return elv_audit_; }
    const sched::ElevatorReport* elevator_report() const { return elv_report_; }
    uint32_t nr_requests() const { return nr_requests_; }
    const cpu::Spinlock& elevator_lock() const { return elv_lock_; }
    // The elevator's locks for the report: dd->lock, or kyber's kcq / khd locks summed by
    // kind. Empty without an elevator.
    std::vector<result::LockReport> lock_reports() const;
    // The queue's figures at the run's end `end`: fio's disk stats and blksim's queue report.
    // The stage statistics are moved into the report, not copied (their histograms are most
    // of a queue's memory, and a copy of each at the end was the run's peak): call it once,
    // when the run is over.
    void report(sim::Time end, result::DiskUtil& du, result::QueueReport& qr);

    // blk_attempt_plug_merge(): merge `bio` into the plug's last request if it is
    // contiguous (back merge: M, front merge: F), of the same op, and the result stays within
    // max_sectors_kb. True when merged: the bio rides on that request and needs no tag.
    bool attempt_plug_merge(RequestList& plug, Bio* bio, sim::Time now, uint32_t cpu);
    // blk_mq_sched_bio_merge(): without an elevator, merge `bio` into a request waiting in
    // the submitting CPU's software queue; with one, under its lock, merge `bio` into a
    // request the elevator holds (back or front), then try to fuse that request with its
    // neighbour (attempt_back_merge / attempt_front_merge), freeing the absorbed one.
    // `lock_time` gets the spin + hold the submitting step must add to its CPU time.
    bool attempt_sched_merge(Bio* bio, sim::Time now, uint32_t cpu, sim::Duration& lock_time);
    // blk_mq_bio_to_request(): the request starts out carrying `bio`.
    void bio_to_request(Request* rq, Bio* bio, uint32_t pid, sim::Time now);
    uint32_t max_sectors() const { return max_sectors_; }
    uint32_t max_segments() const { return cfg_.max_segments; }
    // bio_split_to_limits(): the largest piece, in sectors, a bio may be submitted as: within
    // max_sectors and max_segments pages, whole logical blocks. Larger bios are split.
    uint32_t split_sectors() const { return split_sectors_; }
    // queue/discard_max_bytes >> 9: the largest discard piece (bio_split_discard(): whole
    // discard_granularity units); 0 = the device takes no discards.
    uint32_t max_discard_sectors() const { return max_discard_sectors_; }

    // hctx_may_queue(): may this hctx take one more driver tag of a shared set?
    bool hctx_may_queue(const HwQueue& h) const;
    // The fair-share depth a unit of a shared set gets now: max(ceil(depth/users), 4).
    static uint32_t fair_share_depth(uint32_t depth, uint32_t users);
    TagSet& tag_set() { return tag_set_; }

    // blk_mq_flush_plug_list() for a queue without elevator, from CPU `cpu` at `now`:
    // direct issue (->queue_rqs / blk_mq_issue_direct) unless the hctx is busy, in which
    // case the requests go to the software queue (trace I) and the hctx is run.
    // `async_run`: the hctx is run by kblockd rather than inline, as blk_mq_submit_bio()
    // does for a request submitted with no plug (cpu::HostConfig::submit_bio_plug false).
    void flush_plug(RequestList& plug, sim::Time now, uint32_t cpu, bool async_run = false);

    // The flush machinery (blk-flush.c, models/blkmq/blk_flush.cc).
    // blk_queue_write_cache(): what the device declared at probe.
    bool write_cache() const { return write_cache_; }
    bool fua() const { return fua_; }
    // submit_bio_noacct(): on a queue without a volatile write cache REQ_PREFLUSH and REQ_FUA
    // are stripped from `bio`, and an empty flush has nothing left to do: true when `bio` is
    // finished by this (the caller ends it; no request, no trace event).
    bool flush_bio_stripped(Bio& bio) const {
        if (!(bio.cmd_flags & REQ_NOMERGE_FLAGS) || write_cache_)
            return false;
        bio.cmd_flags &= static_cast<uint8_t>(~REQ_NOMERGE_FLAGS);
        return bio.nr_sectors == 0;
    }
    // blk_insert_flush(), for a request carrying REQ_PREFLUSH or REQ_FUA right after its
    // allocation (before the plug): works out which of PREFLUSH, DATA and POSTFLUSH it needs
    // and adjusts its flags for the driver. False: it is an ordinary request now (data and
    // no flush needed, or a FUA write on a device that honours FUA, or the data of a
    // DATA + POSTFLUSH sequence), the caller plugs it. True: the flush machinery has it.
    bool insert_flush(Request* rq, sim::Time now, uint32_t cpu);

    // The driver's side (driver_api.h).
    void start_request(Request* rq, sim::Time now) override;
    void requeue_request(Request* rq, sim::Time now, uint32_t cpu) override;
    void complete_request(Request* rq, sim::Time now, uint32_t irq_cpu, CompletionPath path) override;
    bool complete_need_ipi(uint32_t cpu, uint32_t submitter) const override;

    // blktrace: attach a sink (nullptr detaches); `dev` identifies this disk in it.
    void set_trace(TraceSink* sink, uint32_t dev) {
        trace_ = sink;
        trace_dev_ = dev;
    }
    bool tracing() const { return trace_ != nullptr; }
    // --explain: the decisions of the core (tag waits, plug flushes), of the elevator and of
    // the device go to `sink` as this disk, `dev` (models/blkmq/explain.h).
    void set_explain(TraceSink* sink, uint32_t dev);
    const Explain& explain() const { return explain_; }
    void trace(TraceAction a, const Request& rq, sim::Time t, uint32_t cpu, uint32_t pdu = 0) const {
        if (trace_)
            emit(a, rq, t, cpu, pdu);
    }
    void trace_bio(TraceAction a, const Bio& bio, sim::Time t, uint32_t cpu, uint32_t pid) const {
        if (trace_)
            emit_bio(a, bio, t, cpu, pid, 0);
    }
    // blk_add_trace_split: `piece` was cut off the front of its bio; the rest starts at its end.
    void trace_split(const Bio& piece, sim::Time t, uint32_t cpu, uint32_t pid) const {
        if (trace_)
            emit_bio(TraceAction::SPLIT, piece, t, cpu, pid, piece.nr_sectors);
    }
    void trace_unplug(TraceAction a, uint32_t nr, sim::Time t, uint32_t cpu, uint32_t pid) const {
        if (trace_)
            emit_event(a, false, ReqOp::READ, 0, 0, t, cpu, pid, nr);
    }

    // The run's periodic audit (any instant between events): the core's own counts against
    // each other and against the elevator's; "" when all balance, else the rule broken.
    std::string audit() const;
    // The queue's state now as /sys/kernel/debug/block/<dev>/ shows it (each hctx's tags,
    // sched_tags, dispatch list and state, then the elevator's sched/ attributes), for the
    // dump that goes with a stall or an invariant violation (models/blkmq/debugfs.cc).
    std::string debugfs_show(sim::Time now) const;
    uint64_t elv_held() const { return elv_held_; }

    const QueueStats& stats() const { return stats_; }
    sim::Duration busy_time(sim::Time now) const;
    uint32_t in_flight() const { return in_flight_; }
    uint64_t allocated() const { return allocated_; }
    uint64_t freed() const { return freed_; }

private:
    void init_hw_queues(TagSet& tag_set);
    void map_queues(uint32_t nr_cpus);
    void init_elevator(const cpu::CpuCosts& costs);
    void init_sched_tags();
    void split_bio(SplitBio& sb, sim::Time now, uint32_t cpu) const;
    bool issue_directly(HwQueue& h, Request* rq, bool last, sim::Time now, uint32_t cpu);
    void requeue_refused(Request* rq, sim::Time now, uint32_t cpu);
    bool attempt_sw_merge(Bio* bio, sim::Time now, uint32_t cpu);
    bool bio_attempt_merge(Request* rq, Bio* bio, sim::Time now, uint32_t cpu);
    // blk_mq_sched_has_work(): an elevator holding no request has none (audit() checks it),
    // which spares the policy's virtual ->has_work on the dispatch loop's last rounds.
    bool elv_has_work(const HwQueue& h) const { return elv_held_ != 0 && elevator_->has_work(h.queue_num()); }
    // blk_mq_get_dispatch_budget(): one more command may go to the driver. The budget is
    // taken right before ->queue_rq and given back when the driver ends the request, so
    // the commands at the driver are the budget in use.
    bool budget_ok(uint32_t extra = 0) const { return budget_depth_ == 0 || in_flight_ + extra < budget_depth_; }
    void note_budget_exhausted() {
        budget_restart_ = true;
        ++stats_.budget_exhausted;
    }
    // BLK_STS_DEV_RESOURCE: the device (not the hctx) is busy, and the driver reruns the
    // queue when one of its commands completes (SCSI: scsi_run_queue_async runs every hw
    // queue of the device), whichever hctx that command came from.
    void device_busy_restart() {
        if (hctxs_.size() > 1)
            budget_restart_ = true;
    }
    void run_hw_queue(HwQueue& h, sim::Time now, uint32_t cpu);
    sim::Time sched_dispatch(HwQueue& h, sim::Time now, uint32_t cpu);
    void loop_goes_on(HwQueue& h, sim::Time t, uint32_t cpu);
    void insert_requests(RequestList& list, sim::Time now, uint32_t cpu, bool async_run);
    // blk_mq_run_hw_queue(hctx, async = true): hctx->run_work queued on kblockd.
    void run_hw_queue_async(HwQueue& h, sim::Time t, uint32_t cpu);
    void kblockd_run(uint64_t arg);
    void work_done(HwQueue& h, uint32_t cpu);
    // Inline, the request that already has one (taken in the dispatch round that pulled it).
    bool get_driver_tag(HwQueue& h, Request* rq, sim::Time now) {
        return rq->driver_tag != BlkMqTags::NO_TAG || get_driver_tag_slow(h, rq, now);
    }
    bool get_driver_tag_slow(HwQueue& h, Request* rq, sim::Time now);
    // __blk_mq_put_driver_tag(): the driver tag back to h's tags (and out of the active
    // count), if rq holds one.
    void put_driver_tag(HwQueue& h, Request* rq, sim::Time now) {
        if (rq->driver_tag == BlkMqTags::NO_TAG)
            return;
        active_put(h);
        h.tags.put(rq->driver_tag, now);
        rq->driver_tag = BlkMqTags::NO_TAG;
    }
    Request* init_request(Request& rq, HwQueue& h, uint32_t driver_tag, uint32_t cpu, sim::Time now);
    bool mergeable(const Request& a, const Request& b) const;
    bool attempt_insert_merge(Request* rq, sim::Time now, uint32_t cpu);
    void merge_requests(Request* rq, Request* next, sim::Time now, uint32_t cpu);
    sim::Time elv_lock(cpu::Spinlock& lock, uint32_t cpu, sim::Time t, sim::Duration hold);
    // The elevator lock a step takes: the queue-wide one (dd->lock), or with a per-hctx
    // policy (kyber) the submitting CPU's kcq->lock around insert and bio merge and the
    // hctx's khd->lock around dispatch.
    cpu::Spinlock& insert_lock(uint32_t cpu) { return elv_ctx_locks_.empty() ? elv_lock_ : elv_ctx_locks_[cpu]; }
    cpu::Spinlock& dispatch_lock(const HwQueue& h) {
        return elv_hctx_locks_.empty() ? elv_lock_ : elv_hctx_locks_[h.queue_num()];
    }
    // run_work's event argument: the hctx index and its run generation (hw_queue.h).
    static uint64_t run_work_arg(const HwQueue& h) { return uint64_t{h.run_gen} << 32 | h.queue_num(); }
    void run_work(uint64_t arg);
    // hctx->run_work queued for `when` (kblockd_schedule_work / a delayed run).
    void queue_run_work(HwQueue& h, sim::Time when) {
        h.run_pending = true;
        h.run_at = when;
        eq_.at<&RequestQueue::run_work>(when, this, run_work_arg(h));
    }
    void requeue_work(uint64_t cpu);
    void dispatch_continue(uint64_t arg);
    bool run_hw_queue_yields(HwQueue& h, sim::Time now, uint32_t cpu);
    // True when every request of `list` reached the driver (the kernel's return value).
    bool dispatch_rq_list(HwQueue& h, RequestList& list, sim::Time now, uint32_t cpu);
    bool dispatch_hctx_lists(HwQueue& h, RequestList& list, sim::Time now, uint32_t cpu);
    bool mark_tag_wait(Request* rq, sim::Time t, uint32_t cpu, sim::Time& ahead);
    void free_request(Request* rq, sim::Time now);
    // blk_mq_finish_request(): the elevator's finish hook, once per request, its lock hold
    // charged to `cpu` at `tc` (the completion's side of bfq_finish_requeue_request).
    void finish_request(Request* rq, sim::Time tc, uint32_t cpu, sim::Time now) {
        if (!elevator_ || (rq->rq_flags & RQF_SCHED_FINISHED))
            return;
        if (hold_.finish.count() > 0)
            cpus_[cpu]->irq(tc, hold_.finish, cpu::Work::FINISH);
        elevator_->explain().set_cpu(cpu);
        elevator_->finish_request(rq, now);
        rq->rq_flags |= RQF_SCHED_FINISHED;
    }
    // blk_mq_end_request() once the driver is done: diskstats, btt's stages, the bios'
    // end_io, the elevator's finish hook, the request freed, the restarts a completion owes.
    void end_request(Request* rq, sim::Time tc, uint32_t ccpu, sim::Time now);
    // end_request's body, defined in request_queue.cc and forced inline into
    // complete_request (the path of every I/O); blk_flush.cc calls the out-of-line one.
    void end_request_body(Request* rq, sim::Time tc, uint32_t ccpu, sim::Time now);
    // blk_mq_sched_restart() and scsi_run_queue_async() after a completion on h: nothing to
    // do unless a dispatch left requests behind.
    void completion_restart(HwQueue& h, sim::Time now) {
        if (budget_restart_ || h.sched_restart)
            completion_restart_slow(h, now);
    }
    void completion_restart_slow(HwQueue& h, sim::Time now);
    // blk_mq_sched_restart(): a completion reruns a hctx that had to leave requests behind.
    void sched_restart(HwQueue& h, sim::Time now) {
        if (h.sched_restart) {
            h.sched_restart = false;
            if (!h.run_pending)
                queue_run_work(h, now);
        }
    }
    // prepare_to_wait on `tags` from `now`, with the replays it asks for scheduled.
    void tag_wait(BlkMqTags& tags, TagWaiter* w, sim::Time now);
    void kick_requeue_list(sim::Time now, uint32_t cpu) {
        if (!requeue_work_pending_) {
            requeue_work_pending_ = true;
            eq_.at<&RequestQueue::requeue_work>(now, this, cpu);
        }
    }
    // blk-flush.c
    void flush_complete_seq(Request* rq, HwQueue& h, uint8_t seq, sim::Time now, uint32_t cpu);
    void kick_flush(HwQueue& h, sim::Time now, uint32_t cpu);
    void flush_end_io(Request* flush_rq, sim::Time tc, uint32_t cpu);
    void flush_data_end_io(Request* rq, sim::Time tc, uint32_t cpu, sim::Time now);
    void delay_run_hw_queue(HwQueue& h, sim::Time when);
    // The fair share's unit for h: the hctx, or with host-wide tags the queue.
    TagUser& tag_user(HwQueue& h) { return tag_set_.hctx_shared() ? shared_user_ : h.tag_user; }
    const TagUser& tag_user(const HwQueue& h) const { return tag_set_.hctx_shared() ? shared_user_ : h.tag_user; }
    // A driver tag taken / given back by h (hctx->nr_active; the queue's count too with
    // host-wide tags, __blk_mq_inc_active_requests).
    void active_get(HwQueue& h) {
        ++h.nr_active;
        shared_nr_active_ += tag_set_.hctx_shared() ? 1 : 0;
    }
    void active_put(HwQueue& h) {
        --h.nr_active;
        shared_nr_active_ -= tag_set_.hctx_shared() ? 1 : 0;
    }
    void tag_busy(HwQueue& h);
    void note_tag_shortage(HwQueue& h);
    void tag_idle(HwQueue& h, sim::Time now);
    void timeout_work();
    static void timeout_fired(void* self, uint64_t) { static_cast<RequestQueue*>(self)->timeout_work(); }

    [[noreturn]] void rq_violation(const Request& rq, const char* what, const char* rule) const;
    void emit(TraceAction a, const Request& rq, sim::Time t, uint32_t cpu, uint32_t pdu) const;
    void emit_bio(TraceAction a, const Bio& bio, sim::Time t, uint32_t cpu, uint32_t pid, uint32_t pdu) const;
    void emit_event(TraceAction a, bool has_op, ReqOp op, uint64_t sector, uint32_t nr_sectors,
                    sim::Time t, uint32_t cpu, uint32_t pid, uint32_t pdu, bool from_request = false,
                    uint8_t cmd_flags = 0, const Request* rq = nullptr) const;

    std::string name_;
    sim::EventQueue& eq_;
    TraceSink* trace_ = nullptr;
    uint32_t trace_dev_ = 0;
    // What a bio's submission and a request's issue and completion read on the common path,
    // together: a machine of many devices keeps few of a queue's cache lines between its
    // I/Os, and each line the path reaches is a miss then (docs/performance.md, Cost per
    // device). The rest follows.
    uint32_t in_flight_ = 0;   // at the driver
    dev::Device& dev_;
    TagSet& tag_set_;
    std::span<const std::unique_ptr<cpu::Cpu>> cpus_;
    const cpu::CpuCosts& costs_;
    // queue_rq and complete_rq with the device's driver stack (ATA, SCSI) added.
    sim::Duration queue_rq_cost_, complete_rq_cost_;
    std::vector<std::unique_ptr<HwQueue>> hctxs_;
    std::vector<uint32_t> mq_map_;
    HwQueue* single_hctx_ = nullptr;  // the only hctx, if there is one (map_queue())
    uint64_t allocated_ = 0, freed_ = 0;
    sim::Time busy_since_;
    sim::Time busy_until_;         // the end of the last busy period
    uint32_t budget_depth_;
    uint32_t shared_nr_active_ = 0;   // with host-wide tags: driver tags the queue holds
    uint32_t max_sectors_;
    uint32_t split_sectors_;
    uint32_t max_discard_sectors_ = 0;
    const uint32_t nomerges_;         // cfg_.nomerges, which every bio asks about
    bool budget_restart_ = false;  // sdev->restarts: rerun every hctx at the next completion
    // The scheduler tags' requests outlive the elevator: its intrusive containers must be
    // gone before the requests they may still link (a run stopped by a broken invariant).
    std::vector<std::unique_ptr<BlkMqTags>> sched_tags_;
    std::unique_ptr<sched::Elevator> elevator_;  // nullptr: none

    Explain explain_;
    QueueConfig cfg_;
    sim::Timer timeout_timer_;  // q->timeout: lazy idle detection of shared-tag users
    std::vector<uint32_t> hctx_first_cpu_;
    QueueStats stats_;
    void end_busy(sim::Time t);
    RequestList requeue_list_;     // q->requeue_list
    RequestList flush_list_;       // q->flush_list: flush_rqs the requeue work puts at the dispatch head
    bool write_cache_ = false;     // BLK_FEAT_WRITE_CACHE
    bool fua_ = false;             // BLK_FEAT_FUA
    bool requeue_work_pending_ = false;
    bool loop_yielded_ = false;    // the last sched_dispatch() went on in a dispatch_continue event
    bool task_loop_ = false;       // the dispatch loop running now is a task's (its plug flush)
    // dispatch_continue's argument: the loop holds its CPU (a task's, Cpu::hold).
    static constexpr uint64_t kHoldsCpu = uint64_t{1} << 63;
    uint64_t elv_held_ = 0;       // requests in the elevator by the core's count (Request::elv_queued)
    TagUser shared_user_;             // with host-wide tags: the queue as one user
    const sched::ElevatorAudit* elv_audit_ = nullptr;
    const sched::ElevatorReport* elv_report_ = nullptr;
    sched::ElevatorBypass* elv_bypass_ = nullptr;  // E3's bypass, when the policy offers it
    uint32_t max_dispatch_ = 0;                  // per dispatch round: q->nr_sched_batch or nr_requests
    uint32_t nr_requests_ = 0;
    cpu::Spinlock elv_lock_;                     // the elevator's lock (dd->lock, bfqd->lock)
    sched::LockHold hold_;             // how long each section holds it
    std::vector<cpu::Spinlock> elv_ctx_locks_;   // kyber: kcq->lock per CPU
    std::vector<cpu::Spinlock> elv_hctx_locks_;  // kyber: khd->lock per hctx
};

}  // namespace blksim::blkmq
