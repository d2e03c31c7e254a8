// The I/O scheduler contract, after the kernel's struct elevator_mq_ops (block/elevator.h).
// The block-layer core owns the loop (allocation, insert, the hctx dispatch round, budgets,
// driver tags, completion); the policy only answers questions and keeps its own queues.
// Hooks with a default body are optional, as they are in the kernel. What the kernel has
// no op for is apart: the run's checks (ElevatorAudit), the lock cost the core charges
// (ElevatorCost), the policy's part of the report (ElevatorReport), its state as figures for
// regress (ElevatorFigures) and E3's bypass
// (ElevatorBypass); a policy implements those it has.
//
// Locking is the core's job: the policy never takes a lock itself, it documents which of
// its entry points the kernel runs under the elevator lock (for mq-deadline: dd->lock for
// insert, bio_merge and dispatch) and the core charges that lock on the CPU timeline.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "models/blkmq/explain.h"
#include "models/blkmq/request.h"
#include "models/cpu/cpu_config.h"
#include "sim/time.h"

namespace blksim::result {
struct DeviceReport;
}

namespace blksim::sched {

// enum elv_merge (ELEVATOR_DISCARD_MERGE left out: blksim merges no discards, docs/fio.md Trims).
enum class ElvMerge : uint8_t { NO_MERGE, FRONT_MERGE, BACK_MERGE };

class ElevatorBypass;

// ops.init_sched's settings of the queue the elevator is attached to.
struct ElevatorQueueAttrs {
    // q->nr_requests as init_sched finds it: the scheduler tags of each hctx (set by the core).
    uint32_t nr_requests = 0;
    // q->nr_sched_batch (the E1 patch's queue attribute): how many requests one
    // __blk_mq_do_dispatch_sched() round may pull from the policy when the hctx is not
    // dispatch_busy; 0 = nr_requests (mainline). A busy hctx still pulls one at a time.
    uint32_t nr_sched_batch = 0;
    // The bypass the patched insert path asks before inserting (E3), or nullptr (mainline).
    ElevatorBypass* bypass = nullptr;
};

class Elevator {
public:
    virtual ~Elevator() = default;
    // elevator_type.elevator_name
    virtual std::string_view name() const = 0;

    // ops.init_sched: what the policy sets on the queue it is attached to, read once by the
    // core (the kernel's init_sched sets queue flags and attributes the same way).
    virtual void init_sched(ElevatorQueueAttrs& /*q*/) {}
    // ops.depth_updated: sbitmap_queue_min_shallow_depth() on the scheduler tags, the
    // smallest depth limit_depth() can return, which bounds their wake batch.
    virtual uint32_t depth_updated(uint32_t nr_requests) const { return nr_requests; }
    // ops.limit_depth: shallow depth for allocations other than synchronous reads; return
    // nr_requests for no limit.
    virtual uint32_t limit_depth(bool /*is_sync_read*/, uint32_t nr_requests) const { return nr_requests; }

    // ops.prepare_request (blk_mq_rq_ctx_init): a request was just allocated from the
    // scheduler tags; reset the policy's per-request state.
    virtual void prepare_request(blkmq::Request* /*rq*/) {}
    // One request of ops.insert_requests (dd_insert_request, bfq_insert_request): at_head
    // for requeues / flush; now = insertion instant. The core inserts a whole list under one
    // acquisition of the elevator lock, trying the insert merge first for each.
    virtual void insert_request(blkmq::Request* rq, bool at_head, sim::Time now) = 0;
    // ops.dispatch_request(hctx): the next request to hand to the driver, or nullptr. May be
    // nullptr even when has_work() (mq-deadline's strict priority holds lower levels back
    // while a higher level still owns requests in the device). A policy with one queue-wide
    // state (mq-deadline, bfq) ignores the hctx and may return another hctx's request.
    virtual blkmq::Request* dispatch_request(uint32_t hctx_idx, sim::Time now) = 0;
    // ops.has_work(hctx)
    virtual bool has_work(uint32_t hctx_idx) const = 0;

    // The lookup of ops.bio_merge for a bio submitted on `cpu` (the kernel's bio_merge finds
    // the CPU's ctx itself): elv_merge() + ops.request_merge for a queue-wide policy, the
    // ctx's list for kyber. A request `bio` can be merged into, checking op, ioprio (class
    // and level), contiguity and that the result stays within max_sectors. The core then
    // merges the bio into *out and calls request_merged().
    virtual ElvMerge bio_merge(uint32_t cpu, const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out) = 0;
    // ops.request_merged (elv_merged_request()): the core merged a bio into rq (rq grew):
    // re-position it (a front merge changes the sort key, a back merge the end-sector key).
    virtual void request_merged(blkmq::Request* /*rq*/, ElvMerge /*type*/) {}
    // ops.former_request / ops.next_request: rq's neighbours in the policy's sort order,
    // for the core's attempt_front_merge / attempt_back_merge after a bio merge.
    virtual blkmq::Request* former_request(blkmq::Request* /*rq*/) { return nullptr; }
    virtual blkmq::Request* next_request(blkmq::Request* /*rq*/) { return nullptr; }
    // ops.requests_merged (elv_merge_requests()): the core appended `next` to `rq` (rq grew
    // at its back); next leaves the scheduler and will be freed (and must then be passed to
    // finish_request like any other request). `next` may be a request that was never
    // inserted (blk_mq_sched_try_insert_merge at insert time).
    virtual void requests_merged(blkmq::Request* /*rq*/, blkmq::Request* /*next*/) {}
    // elv_attempt_insert_merge()'s lookups, for a policy that inserts with
    // blk_mq_sched_try_insert_merge (mq-deadline, bfq; kyber keeps no hash and does not):
    // q->last_merge, and elv_rqhash_find(), the newest request ending at `sector`.
    virtual blkmq::Request* insert_merge_last() const { return nullptr; }
    virtual blkmq::Request* insert_merge_find(uint64_t /*sector*/) { return nullptr; }

    // ops.finish_request (blk_mq_free_request; kyber's completed_request runs in it too): rq
    // is freed, after completing in the device or after being merged into another request.
    virtual void finish_request(blkmq::Request* /*rq*/, sim::Time /*now*/) {}
    // ops.requeue_request: rq comes back from the driver and will be inserted at head.
    virtual void requeue_request(blkmq::Request* /*rq*/) {}

    // blk_mq_run_hw_queue(hctx, async=true), for policies that must restart dispatch on
    // their own (kyber's token wake-up, bfq's idle timer): the core runs the hctx from
    // kblockd at `now`, pulling in a delayed run that may be pending.
    using RunHwQueueFn = void (*)(void* ctx, uint32_t hctx_idx, sim::Time now);
    void set_run_hw_queue(RunHwQueueFn fn, void* ctx) {
        run_fn_ = fn;
        run_ctx_ = ctx;
    }
    // blk_mq_run_hw_queues(q, async=true) of a queue with QUEUE_FLAG_SQ_SCHED (bfq,
    // mq-deadline: a policy that dispatches queue-wide from any hctx), called on `cpu`: the
    // core runs the hctx `cpu` maps to (blk_mq_get_sq_hctx) and every hctx whose dispatch
    // list holds requests, each as run_hw_queue does.
    using RunHwQueuesFn = void (*)(void* ctx, uint32_t cpu, sim::Time now);
    void set_run_hw_queues(RunHwQueuesFn fn, void* ctx) {
        runs_fn_ = fn;
        runs_ctx_ = ctx;
    }

    // --explain: the policy's decisions (models/blkmq/explain.h). The core attaches it and
    // sets the CPU before it calls insert, dispatch, finish and requeue.
    blkmq::Explain& explain() { return explain_; }

protected:
    void run_hw_queue(uint32_t hctx_idx, sim::Time now) const {
        if (run_fn_)
            run_fn_(run_ctx_, hctx_idx, now);
    }
    void run_hw_queues_sq(uint32_t cpu, sim::Time now) const {
        if (runs_fn_)
            runs_fn_(runs_ctx_, cpu, now);
    }
    // smp_processor_id() of the call under way: the CPU the core set before it (the
    // submitter's at insert, the hctx runner's at dispatch, the completing CPU at finish).
    uint32_t this_cpu() const { return explain_.cpu(); }

    blkmq::Explain explain_;

private:
    RunHwQueueFn run_fn_ = nullptr;
    void* run_ctx_ = nullptr;
    RunHwQueuesFn runs_fn_ = nullptr;
    void* runs_ctx_ = nullptr;
};

// The run's checks of a policy's own bookkeeping (what the kernel would leave to WARN_ONs).
class ElevatorAudit {
public:
    virtual ~ElevatorAudit() = default;
    // Requests held by the policy now; the invariant checker compares it with
    // inserted + requeued - dispatched - merged.
    virtual uint64_t queued() const = 0;
    // The policy's structures against its counters, at any instant between events (the
    // run's periodic audit): "" when what its lists hold is what queued() says, else what
    // is wrong.
    virtual std::string audit() const { return {}; }
    // The end-of-run check of the policy's own accounting (tokens returned, dispatched =
    // completed, ...): "" when it balances, else what is wrong.
    virtual std::string check_idle() const { return {}; }
    // The policy's state now as /sys/kernel/debug/block/<dev>/sched/ shows it, one
    // "attribute: value" per line: printed with the queues' state when a run stalls or
    // breaks an invariant, so that a hang shows where the requests are held.
    virtual std::string debugfs_show(sim::Time now) const { (void)now; return {}; }
};

// Which lock the core charges: QUEUE = one lock for the whole queue around insert, bio
// merge and dispatch (dd->lock, bfqd->lock); PER_HCTX = the submitting CPU's ctx lock
// around insert and bio merge (kyber's kcq->lock) and the hctx's lock around dispatch
// (khd->lock).
enum class LockScope : uint8_t { QUEUE, PER_HCTX };

// How long each section holds the elevator lock. A zero `finish` means finish_request()
// takes no lock (mq-deadline's and kyber's finish hooks are lock-free;
// bfq_finish_requeue_request takes bfqd->lock on the completing CPU).
struct LockHold {
    sim::Duration insert;    // per request inserted
    sim::Duration dispatch;  // per dispatch call
    sim::Duration merge;     // per bio merge attempt (the elv_merge lookup)
    sim::Duration finish;    // per request freed (ops.finish_request)
};

struct LockCost {
    LockScope scope = LockScope::QUEUE;
    LockHold hold;
};

// The policy's locking as the core charges it on the CPU timeline, from the host's cost
// profile; read once when the elevator is attached.
class ElevatorCost {
public:
    virtual ~ElevatorCost() = default;
    virtual LockCost lock_cost(const cpu::CpuCosts& c) const {
        return {LockScope::QUEUE, {c.elv_insert, c.elv_dispatch, c.elv_insert, {}}};
    }
};

// What the policy adds to blksim's report (its debugfs, in effect).
class ElevatorReport {
public:
    virtual ~ElevatorReport() = default;
    virtual void report(result::DeviceReport& r) const = 0;
};

// The policy's own state at the end of a run as named figures that `blksim regress` gates
// (kyber's domain depths and latency buckets): what no fio figure shows when the policy
// itself goes wrong. Not printed, so reports stay as they are.
class ElevatorFigures {
public:
    virtual ~ElevatorFigures() = default;
    virtual void figures(std::vector<std::pair<std::string, double>>& out) const = 0;
};

// Issue past the scheduler, for a policy that lets a request bypass it (mq-deadline's E3
// patch: its init_sched hands this to the queue when the direct_dispatch tunable is on).
// The patched blk-mq insert path asks it
// before inserting: hctx_idle = hctx->dispatch is empty and the hctx is not dispatch_busy
// (the core's part of the conditions). The core must also have a budget and a driver tag
// without waiting, and never asks for at-head / flush requests. After issuing it calls
// direct_dispatched() so that the policy's accounting and sweep position stay right.
class ElevatorBypass {
public:
    virtual ~ElevatorBypass() = default;
    virtual bool may_direct_dispatch(const blkmq::Request& rq, bool hctx_idle) const = 0;
    virtual void direct_dispatched(blkmq::Request* rq, sim::Time now) = 0;
};

// One scheduler tunable as sysfs shows it: the scenario loader sets tunables by `name`
// (rejecting values outside [min, max]) and `blksim list` prints the table.
enum class TunableUnit : uint8_t {
    COUNT,     // plain integer
    BOOL,      // 0 or 1
    MSEC,      // milliseconds in sysfs, a sim::Duration in the struct
    USEC,      // microseconds in sysfs (bfq's slice_idle_us), a sim::Duration in the struct
    NSEC,      // nanoseconds in sysfs (kyber's *_lat_nsec), a sim::Duration in the struct
    REQUESTS,  // a number of requests (0 = follow nr_requests where documented)
    HERTZ,     // a kernel build constant (CONFIG_HZ), not a sysfs attribute
};

template <class Config>
struct Tunable {
    using Member = std::variant<int32_t Config::*, sim::Duration Config::*>;

    std::string_view name;
    Member member;
    int64_t min, max;  // in the sysfs unit (ms for MSEC, us for USEC, ns for NSEC)
    TunableUnit unit;
    std::string_view help;

    int64_t get(const Config& c) const {
        if (const auto* m = std::get_if<int32_t Config::*>(&member))
            return c.**m;
        const int64_t ns = (c.*std::get<sim::Duration Config::*>(member)).count();
        return ns / ns_per_unit();
    }
    // The caller checks the range first.
    void set(Config& c, int64_t v) const {
        if (const auto* m = std::get_if<int32_t Config::*>(&member))
            c.**m = static_cast<int32_t>(v);
        else
            c.*std::get<sim::Duration Config::*>(member) = sim::Duration::ns(v * ns_per_unit());
    }
    int64_t ns_per_unit() const {
        return unit == TunableUnit::NSEC ? 1 : unit == TunableUnit::USEC ? 1000 : 1000000;
    }
};

// A policy's tunable by sysfs name, or nullptr.
template <class Config>
const Tunable<Config>* find_tunable(std::span<const Tunable<Config>> table, std::string_view name) {
    for (const auto& t : table)
        if (t.name == name)
            return &t;
    return nullptr;
}

}  // namespace blksim::sched
