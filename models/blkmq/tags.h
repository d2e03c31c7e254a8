// struct blk_mq_tags: one tag space (driver tags of one hctx, or scheduler tags) with its
// static request array and the sbitmap_queue wait machinery.
//
// Which free tag is handed out carries no meaning (sbitmap's per-CPU hints make it
// arbitrary), so free tags are a LIFO stack: O(1) and cache friendly.
//
// Each free tag carries the instant it was put. Completions free their tags at their own
// instants, which can lie ahead of the clock (the end of the completion work after a
// hard-irq handler, a null_blk completion inside the submitter's ->queue_rq, charged ahead
// in its step); a get at an earlier instant must not take such a tag. get() skips it; a
// caller that then finds none sleeps (or restarts its dispatch) until the earliest such
// instant (next_put_after), and a sleeper that came before such a put counts it towards
// its wake batch at that instant (replay), as it would had the put come after it in the
// event order too.
//
// Waiting follows sbitmap_queue: a task that finds no tag sleeps; freed tags are counted
// and sleepers are woken in groups of wake_batch = clamp(depth / 8, 1, SBQ_WAKE_BATCH = 8)
// (sbq_calc_wake_batch). The kernel spreads sleepers over SBQ_WAIT_QUEUES = 8 wait queues
// served round-robin; one FIFO gives the same order for the model and is what we keep.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <boost/intrusive/list.hpp>

#include "models/blkmq/explain.h"
#include "models/blkmq/request.h"
#include "sim/time.h"

namespace blksim::blkmq {

// A task sleeping for a tag (the sbq_wait entry of a sleeping submitter).
class TagWaiter {
public:
    virtual void tag_wakeup(sim::Time now) = 0;

protected:
    ~TagWaiter() = default;

private:
    friend class BlkMqTags;
    // On the tags' wait queue (a normal hook: the queue never touches a waiter when it is
    // destroyed, whichever of the two goes first at the end of a run).
    using WaitHook = boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>>;
    WaitHook wait_node_;
    bool waiting_ = false;
};

class BlkMqTags {
public:
    static constexpr uint32_t NO_TAG = ~0u;
    static constexpr uint32_t SBQ_WAKE_BATCH = 8;

    explicit BlkMqTags(uint32_t depth);
    BlkMqTags(const BlkMqTags&) = delete;
    BlkMqTags& operator=(const BlkMqTags&) = delete;

    uint32_t depth() const { return depth_; }
    uint32_t in_use() const { return depth_ - nr_free_; }
    uint32_t wake_batch() const { return wake_batch_; }
    uint32_t nr_waiters() const { return nr_waiters_; }
    uint64_t nr_sleeps() const { return nr_sleeps_; }

    // Allocate a tag put back by `now`, or NO_TAG when there is none.
    uint32_t get(sim::Time now) {
        if (nr_free_ == 0)
            return NO_TAG;
        const uint32_t tag = free_[nr_free_ - 1];
        if (put_at_[tag] > now.ns()) [[unlikely]]
            return get_dated(now);
        --nr_free_;
        held_ns_ -= now.ns();
        put_at_[tag] = kInUse;
        return tag;
    }
    // The earliest instant after `now` at which a free tag was put back, or `now` when no
    // free tag was put after it: a get at `now` that failed can succeed there.
    sim::Time next_put_after(sim::Time now) const;
    // Put a tag back and wake sleepers when a wake batch has been freed. Throws
    // std::logic_error (an invariant violation) for a tag that is not in use. Inline, one or
    // two per I/O: the check, the integral and the push; what needs more (a double free, the
    // sleepers) is out of line, so the common case saves no registers.
    void put(uint32_t tag, sim::Time now) {
        if (tag >= depth_ || put_at_[tag] != kInUse) [[unlikely]]
            put_violation(tag);
        held_ns_ += now.ns();
        put_at_[tag] = now.ns();
        free_[nr_free_++] = tag;  // at most depth_: a tag in use is freed once
        if (nr_waiters_ == 0) [[likely]]
            wait_cnt_ = wake_batch_;
        else
            put_wake(now);
    }

    // Sleep `w` from `now` until woken by put(). The caller has just failed get() in the
    // same event, so no tag can have been freed in between (the kernel needs a second try
    // for that). Returns true when the first sleeper came before puts already made at later
    // instants: the caller schedules replay() at each of replays().
    bool prepare_to_wait(TagWaiter* w, sim::Time now);
    // The instants of the puts still to be counted for the sleepers, latest first: the
    // caller schedules replay() at each.
    const std::vector<int64_t>& replays() const { return replay_; }
    // Event (argument: its instant in ns): the puts made by then that came after the first
    // sleeper count towards the wake batch now, as sbitmap_queue_wake_up would have counted
    // them; a later one is scheduled again.
    void replay(uint64_t at_ns);

    Request& rq(uint32_t tag) { return static_rqs_[tag]; }

    // sbitmap_queue_recalculate_wake_batch(): with `users` active users of a shared space,
    // wake in batches of clamp(ceil(depth / users) / 8, 1, 8), so that a user's fair share
    // is never smaller than one wake batch (the hang Laibin Qiu fixed, docs/references.md
    // §2.6).
    void update_wake_batch(uint32_t users);
    // sbitmap_queue_min_shallow_depth(): the smallest shallow depth an allocation may ask
    // for. The wake batch becomes clamp(min(depth, it) / 8, 1, 8), small enough that the
    // tags a limited allocation can use are enough to wake it; with a larger batch a sleeper
    // limited to fewer tags than the batch could wait for frees that never come.
    void set_min_shallow_depth(uint32_t min_shallow);
    // sbitmap_queue_wake_up(bt, 1) without a free: counts towards the wake batch as a put
    // does, when anyone sleeps.
    void wake_up(sim::Time now) {
        if (nr_waiters_ > 0)
            put_wake(now);
    }
    // Wake every sleeper (blk_mq_tag_wakeup_all, when a user goes idle).
    void wake_all(sim::Time now) { wake_up_nr(nr_waiters_, now); }

    // Users of a shared tag space (docs/references.md §2.3): units that allocated since they
    // last went idle, and (ON_SHORTAGE fairness) units that failed to get a tag since then.
    uint32_t active_queues = 0;
    uint32_t pending_queues = 0;

    // Time-weighted occupancy, for the report.
    double mean_in_use(sim::Time now) const;

    // --explain: wake-ups of sleepers (models/blkmq/explain.h).
    Explain& explain() { return explain_; }

private:
    [[noreturn, gnu::cold, gnu::noinline]] void put_violation(uint32_t tag) const;
    [[gnu::noinline]] void put_wake(sim::Time now);
    [[gnu::noinline]] uint32_t get_dated(sim::Time now);
    void wake_up_nr(uint32_t nr, sim::Time now);

    // What get() and put() touch comes first, together (docs/performance.md, Cost per device).
    uint32_t depth_;
    uint32_t wake_batch_;
    uint32_t wait_cnt_;  // frees left until the next batched wake-up
    uint32_t nr_free_ = 0;
    // The free tags, a stack of nr_free_ in an array of depth_ (a fixed array: no capacity
    // check on the per-I/O push).
    std::unique_ptr<uint32_t[]> free_;
    // Per tag: the instant of its last put (ns), or kInUse while it is handed out (a put of a
    // tag not in use is an invariant violation). One array, so that a get or a put reaches
    // one line of it.
    static constexpr int64_t kInUse = -1;  // no instant is negative
    std::unique_ptr<int64_t[]> put_at_;
    // Occupancy for the report: the time each tag was held, summed, kept as minus the
    // instant of each get plus the instant of each put (the tags still held end at the
    // instant asked for). Exact in integers, one addition per call, and it needs no order
    // among the calls' instants, which a step's work charged ahead of the clock does not
    // keep.
    int64_t held_ns_ = 0;
    uint32_t nr_waiters_ = 0;
    // Instants of puts made ahead of the first sleeper's instant, latest first (at most
    // depth_, reserved: no allocation when a task sleeps).
    std::vector<int64_t> replay_;
    std::vector<Request> static_rqs_;
    boost::intrusive::list<
        TagWaiter, boost::intrusive::member_hook<TagWaiter, TagWaiter::WaitHook, &TagWaiter::wait_node_>,
        boost::intrusive::constant_time_size<false>>
        waiters_;  // the sleepers, woken in arrival order
    uint64_t nr_sleeps_ = 0;
    Explain explain_;
};

}  // namespace blksim::blkmq
