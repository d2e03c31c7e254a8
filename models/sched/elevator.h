// The I/O scheduler contract, after the kernel's struct elevator_mq_ops (block/elevator.h).
// The block-layer core owns the loop (allocation, insert, the hctx dispatch round, budgets,
// driver tags, completion); the policy only answers questions and keeps its own queues.
// Hooks with a default body are optional, as they are in the kernel.
//
// Locking is the core's job: the policy never takes a lock itself, it documents which of
// its entry points the kernel runs under the elevator lock (for mq-deadline: dd->lock for
// insert, bio_merge and dispatch) and the core charges that lock on the CPU timeline.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "models/blkmq/request.h"
#include "models/cpu/cpu_config.h"
#include "sim/time.h"

namespace blksim::result {
struct DeviceReport;
}

namespace blksim::sched {

// enum elv_merge (ELEVATOR_DISCARD_MERGE left out: blksim has no discards).
enum class ElvMerge : uint8_t { NO_MERGE, FRONT_MERGE, BACK_MERGE };

class Elevator {
public:
    virtual ~Elevator() = default;
    virtual std::string_view name() const = 0;

    // ops.prepare_request (blk_mq_rq_ctx_init): a request was just allocated from the
    // scheduler tags; reset the policy's per-request state.
    virtual void prepare_request(blkmq::Request* /*rq*/) {}

    // ops.insert_requests: at_head for requeues / flush; now = insertion instant. The core
    // inserts a whole list under one acquisition of the elevator lock.
    virtual void insert_request(blkmq::Request* rq, bool at_head, sim::Time now) = 0;
    // ops.dispatch_request: the next request to hand to the driver, or nullptr. May be
    // nullptr even when has_work() (mq-deadline's strict priority holds lower levels back
    // while a higher level still owns requests in the device).
    virtual blkmq::Request* dispatch_request(sim::Time now) = 0;
    virtual bool has_work() const = 0;

    // elv_merge() + ops.request_merge: a request `bio` can be merged into, checking op,
    // ioprio (class and level), contiguity and that the result stays within max_sectors.
    // The core then merges the bio into *out and calls request_merged().
    virtual ElvMerge bio_merge(const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out) = 0;
    // elv_merged_request(): the core merged a bio into rq (rq grew): re-position it (a front
    // merge changes the sort key, a back merge the end-sector key).
    virtual void request_merged(blkmq::Request* rq, ElvMerge type) = 0;
    // elv_former_request / elv_latter_request: rq's neighbours in the policy's sort order,
    // for the core's attempt_front_merge / attempt_back_merge after a bio merge.
    virtual blkmq::Request* former_request(blkmq::Request* /*rq*/) { return nullptr; }
    virtual blkmq::Request* next_request(blkmq::Request* /*rq*/) { return nullptr; }
    // elv_merge_requests() + ops.requests_merged: the core appended `next` to `rq`
    // (rq grew at its back); next leaves the scheduler and will be freed (and must then be
    // passed to completed_request like any other request). `next` may be a request that
    // was never inserted (blk_mq_sched_try_insert_merge at insert time).
    virtual void requests_merged(blkmq::Request* /*rq*/, blkmq::Request* /*next*/) {}
    // elv_attempt_insert_merge()'s lookups, for a policy that inserts with
    // blk_mq_sched_try_insert_merge (mq-deadline; kyber keeps no hash and does not):
    // q->last_merge, and elv_rqhash_find(), the newest request ending at `sector`.
    virtual blkmq::Request* insert_merge_last() const { return nullptr; }
    virtual blkmq::Request* insert_merge_find(uint64_t /*sector*/) { return nullptr; }

    // ops.finish_request (blk_mq_free_request): rq is freed, after completing in the device
    // or after being merged into another request.
    virtual void completed_request(blkmq::Request* /*rq*/, sim::Time /*now*/) {}
    // ops.requeue_request: rq comes back from the driver and will be inserted at head.
    virtual void requeue_request(blkmq::Request* /*rq*/) {}

    // ops.limit_depth: shallow depth for allocations other than synchronous reads; return
    // nr_requests for no limit.
    virtual uint32_t limit_depth(bool /*is_sync_read*/, uint32_t nr_requests) const { return nr_requests; }
    // ops.depth_updated's sbitmap_queue_min_shallow_depth() on the scheduler tags: the
    // smallest depth limit_depth() can return, which bounds their wake batch.
    virtual uint32_t min_shallow_depth(uint32_t nr_requests) const { return nr_requests; }
    // How many requests one __blk_mq_do_dispatch_sched() round may pull from the policy
    // when the hctx is not dispatch_busy (kernel: nr_requests; the E1 patch's
    // q->nr_sched_batch). A busy hctx still pulls one at a time.
    virtual uint32_t max_dispatch_per_round(uint32_t nr_requests) const { return nr_requests; }

    // Direct dispatch past the scheduler (E3): may the core issue rq straight to the driver
    // instead of inserting it? hctx_idle = hctx->dispatch is empty and the hctx is not
    // dispatch_busy (the core's part of the conditions). The core must also have a budget
    // and a driver tag without waiting, and never asks for at-head / flush requests. After
    // issuing it calls direct_dispatched() (under the elevator lock) so that the policy's
    // accounting and sweep position stay right.
    virtual bool may_direct_dispatch(const blkmq::Request& /*rq*/, bool /*hctx_idle*/) const { return false; }
    virtual void direct_dispatched(blkmq::Request* /*rq*/, sim::Time /*now*/) {}

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

    // --- per-hctx policies (kyber) -----------------------------------------------------
    // The kernel passes the hctx to ops.dispatch_request / ops.has_work and bio_merge finds
    // the submitting CPU's ctx itself. Policies with one queue-wide state (mq-deadline)
    // ignore both; kyber keeps its lists per hctx and per ctx and overrides these. The core
    // calls these, never the queue-wide forms above.
    virtual blkmq::Request* hctx_dispatch_request(uint32_t /*hctx_idx*/, sim::Time now) { return dispatch_request(now); }
    virtual bool hctx_has_work(uint32_t /*hctx_idx*/) const { return has_work(); }
    virtual ElvMerge ctx_bio_merge(uint32_t /*cpu*/, const blkmq::Bio& bio, uint32_t max_sectors, blkmq::Request** out) {
        return bio_merge(bio, max_sectors, out);
    }
    // Which lock the core charges: QUEUE = one lock for the whole queue around insert, bio
    // merge and dispatch (dd->lock); PER_HCTX = the submitting CPU's ctx lock around insert
    // and bio merge (kyber's kcq->lock) and the hctx's lock around dispatch (khd->lock).
    enum class LockScope : uint8_t { QUEUE, PER_HCTX };
    virtual LockScope lock_scope() const { return LockScope::QUEUE; }

    // How long each section holds the elevator lock, from the host's cost profile. A zero
    // `finish` means completed_request() takes no lock (mq-deadline's and kyber's finish
    // hooks are lock-free; bfq_finish_requeue_request takes bfqd->lock on the completing CPU).
    struct LockHold {
        sim::Duration insert;    // per request inserted
        sim::Duration dispatch;  // per dispatch call
        sim::Duration merge;     // per bio merge attempt (the elv_merge lookup)
        sim::Duration finish;    // per request freed (ops.finish_request)
    };
    virtual LockHold lock_hold(const cpu::CpuCosts& c) const { return {c.elv_insert, c.elv_dispatch, c.elv_insert, {}}; }

    // blk_mq_run_hw_queue(hctx, async=true), for policies that must restart dispatch on
    // their own (kyber's token wake-up, bfq's idle timer): the core runs the hctx from
    // kblockd at `now`, pulling in a delayed run that may be pending.
    using RunHwQueueFn = void (*)(void* ctx, uint32_t hctx_idx, sim::Time now);
    void set_run_hw_queue(RunHwQueueFn fn, void* ctx) {
        run_fn_ = fn;
        run_ctx_ = ctx;
    }

    // What the policy adds to blksim's report (its debugfs, in effect); nothing by default.
    virtual void report(result::DeviceReport& /*r*/) const {}

protected:
    void run_hw_queue(uint32_t hctx_idx, sim::Time now) const {
        if (run_fn_)
            run_fn_(run_ctx_, hctx_idx, now);
    }

private:
    RunHwQueueFn run_fn_ = nullptr;
    void* run_ctx_ = nullptr;
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
