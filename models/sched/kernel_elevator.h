// kernel:<name>: a Linux elevator's own source file, run unmodified through kcompat/
// (docs/kernel-schedulers.md). The adapter implements blksim's Elevator by calling the
// plugin's elevator_type ops, as blk-mq calls them; each blksim request has a kernel struct
// request beside it (Request::elv_priv), copied from blksim's before every call that may
// read it.
//
// The merges are split where the kernel touches the bios: the plugin's bio_merge op looks
// the candidate up (kcompat/block/blk-mq-sched.h), blksim's core merges the bio and calls
// back request_merged / requests_merged, which run elv_merged_request() and
// elv_merge_requests() in the plugin. The insert merge is tried by the core with the
// plugin's q->last_merge and back-merge hash before ops.insert_requests.
//
// Locking: the core charges the elevator lock as for blksim's own model of the same
// elevator (mq-deadline: one queue-wide lock around insert, bio merge and dispatch; kyber:
// the ctx's kcq->lock and the hctx's khd->lock), with ElevatorCost's default hold times;
// the plugin's spin_lock() costs nothing more.
//
// What the plugin asks of blksim (kcompat_host): its timers (jiffies) and hrtimers
// (nanoseconds: bfq's idle slice timer) become events on the simulation's queue, fired on
// the CPU that armed them, a wake-up (kyber_domain_wake's blk_mq_run_hw_queue, and
// bfq_schedule_dispatch's blk_mq_run_hw_queues, which under QUEUE_FLAG_SQ_SCHED runs the
// calling CPU's hctx) runs hctxs through the core, and its tracepoints (kyber_latency, kyber_adjust, kyber_throttled) are --explain lines.
//
// Tasks: every request and bio names its submitting job thread (pid, and the io priority
// of its io_context); kcompat makes that thread `current` for the call, with an io_context
// and io_cq of its own (bfq's bic), kept for the run.
//
// The seed patches' parts outside the elevator's file (kernel-patches/): E1's queue attribute
// nr_sched_batch is kcompat's q->nr_sched_batch, handed to the core's dispatch round; a file
// with E3's direct-dispatch ops is the queue's ElevatorBypass, asked by the core's insert path.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/sched/elevator.h"
#include "models/sched/jiffies.h"
#include "models/sched/kernel_plugin.h"
#include "models/sched/scheduler_kind.h"
#include "sim/timer.h"

namespace blksim::sched {

// The sysfs attributes a scenario set, in the order given: written to the plugin's
// elevator_attrs after init_sched, as `echo v > .../iosched/<name>` would.
struct KernelTunables {
    std::vector<std::pair<std::string, int64_t>> values;
};

class KernelElevator final : public Elevator, public ElevatorBypass, public ElevatorCost {
public:
    KernelElevator(std::string name, std::shared_ptr<const KernelPlugin> plugin, const ElevatorContext& ctx,
                   KernelTunables tunables);
    ~KernelElevator() override;
    KernelElevator(const KernelElevator&) = delete;
    KernelElevator& operator=(const KernelElevator&) = delete;

    std::string_view name() const override { return name_; }

    void init_sched(ElevatorQueueAttrs& q) override;
    uint32_t depth_updated(uint32_t nr_requests) const override;
    uint32_t limit_depth(bool is_sync_read, uint32_t nr_requests) const override;
    void prepare_request(blkmq::Request* rq) override;
    void insert_request(blkmq::Request* rq, bool at_head, sim::Time now) override;
    blkmq::Request* dispatch_request(uint32_t hctx_idx, sim::Time now) override;
    bool has_work(uint32_t hctx_idx) const override;
    ElvMerge bio_merge(uint32_t cpu, const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out) override;
    void request_merged(blkmq::Request* rq, ElvMerge type) override;
    blkmq::Request* former_request(blkmq::Request* rq) override;
    blkmq::Request* next_request(blkmq::Request* rq) override;
    void requests_merged(blkmq::Request* rq, blkmq::Request* next) override;
    blkmq::Request* insert_merge_last() const override;
    blkmq::Request* insert_merge_find(uint64_t sector) override;
    void finish_request(blkmq::Request* rq, sim::Time now) override;
    void requeue_request(blkmq::Request* rq) override;

    LockCost lock_cost(const cpu::CpuCosts& c) const override;

    bool may_direct_dispatch(const blkmq::Request& rq, bool hctx_idle) const override;
    void direct_dispatched(blkmq::Request* rq, sim::Time now) override;

    // The attribute as sysfs shows it (for tests and reports); "" if there is none.
    std::string show(const char* attr) const;

private:
    // The kernel request beside rq, its fields copied from rq.
    kcompat_rq* sync(blkmq::Request* rq) const;
    void set_clock(sim::Time now) const;
    void set_clock() const;

    // A plugin timer's event (struct timer_list, opaque here).
    struct TimerEvent {
        TimerEvent(KernelElevator* s, timer_list* t) : self(s), timer(t), event(s->eq_, &KernelElevator::timer_fired, this) {}
        KernelElevator* self;
        timer_list* timer;
        sim::Timer event;
        uint32_t cpu = 0;  // the CPU that armed it (mod_timer / hrtimer_start), where it fires
    };
    static void timer_arm(void* self, timer_list* t, unsigned long expires);
    static void timer_arm_ns(void* self, timer_list* t, uint64_t expires_ns);
    static void timer_cancel(void* self, timer_list* t);
    static void timer_fired(void* ev, uint64_t);
    static void host_run_hw_queue(void* self, unsigned int hctx);
    static void host_run_hw_queues_sq(void* self, unsigned int cpu);
    static int host_tracing(void* self);
    static void host_message(void* self, const char* text);

    std::string name_;
    std::shared_ptr<const KernelPlugin> plugin_;
    const kcompat_api& api_;
    sim::EventQueue& eq_;
    std::vector<uint32_t> cpu_to_hctx_;
    uint32_t nr_hw_queues_;
    bool rotational_;
    uint32_t nomerges_;
    KernelTunables tunables_;
    Jiffies jif_;
    // The instant the plugin's clock was set to for the call under way: a wake-up it asks for
    // (blk_mq_run_hw_queue) runs from there, not from the event's instant, as blksim's own
    // schedulers run it from the `now` of their call.
    mutable sim::Time clock_;
    kcompat_queue* q_ = nullptr;
    std::vector<kcompat_rq*> rqs_;  // every kernel request made, freed with the elevator
    std::unordered_map<timer_list*, std::unique_ptr<TimerEvent>> timers_;
};

// The kernel elevator a kernel:<name> kind runs ("mq-deadline", "kyber", "bfq"), or "" for
// blksim's own.
std::string_view kernel_elevator_of(const SchedulerKind& k);

}  // namespace blksim::sched
