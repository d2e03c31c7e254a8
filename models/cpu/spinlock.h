// A spinlock as a timeline (docs/architecture.md): the sections it has given out, as spans
// of simulated time, and which core held each span first and last. A path step on core c
// that needs the lock at t for `hold` gets the earliest instant s >= t at which
//     [s, s + hold) fits between the sections already given out,
//     s >= the previous section's end + hand-off,
//     s + hold + hand-off <= the next section's start
// (a hand-off only between sections of different cores: the lock's cache line has to move),
// and the core spins from t to s, busy but doing nothing useful. One computation, no event:
// a contended lock's throughput comes out as 1 / (hold + hand-off), and the spin shows up as
// CPU busy time.
//
// Why gaps and not just "after the last release": a step charges its sections ahead of the
// event queue (a core inside a step reaches the lock when the step's earlier work is done),
// so a caller can arrive at the lock before a section that was given out earlier in call
// order. A queued (ticket / MCS) spinlock serves callers in the order they arrive, so that
// caller goes first if it fits before the reserved section, instead of waiting behind a
// holder that has not arrived yet. What is already given out stays where it is.
//
// The caller passes the simulation clock too: no caller arrives before it, so a gap that
// closes before it can never be used again, and the spans before it (all but the last,
// whose end and holder the next gap still depends on) are dropped. What is left is the
// short stretch of the timeline that steps have charged ahead of the clock (a handful of
// spans under contention). A caller that arrives after the newest span starts goes after
// it: one comparison, no search. One that arrives earlier is fitted by one pass over the
// gaps that end after it arrives, oldest first. (A bound on the widest gap and a count of
// the span ends each core holds, kept to skip that pass when no gap could fit, cost more
// to maintain and to recompute than the pass they saved.) If more than kSpans spans are
// ahead of the clock, the oldest is forgotten, and nothing is placed before its end. No
// allocation.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <string>

#include "models/result/lock_report.h"
#include "sim/time.h"

namespace blksim::cpu {

class Spinlock {
public:
    struct Section {
        sim::Time start;     // the lock is ours
        sim::Time end;       // released
        sim::Duration spin;  // time the core spun before `start`
    };

    Spinlock(std::string name, sim::Duration handoff) : name_(std::move(name)), handoff_(handoff) {}

    // Every section asked for from now on holds the lock for at least `hold` (the shortest
    // of its users' holds): a gap that cannot take that and the hand-offs around it is
    // closed at once, so that the gaps kept, and searched, are the usable ones.
    void set_min_hold(sim::Duration hold) { min_hold_ = std::max(hold, sim::Duration::ns(1)); }

    // A section of `hold` for core `cpu`, which reaches the lock at `t` >= `now`, the
    // simulation clock (never earlier than in a previous call).
    Section acquire(uint32_t cpu, sim::Time t, sim::Duration hold, sim::Time now) {
        if (hi_ == kSlots)
            make_room(sim::min(now, t));
        uint32_t k = hi_;
        if (k > lo_ && start_[k - 1] > t)
            k = earliest_gap(cpu, t, hold, sim::min(now, t));
        const sim::Time avail = end_[k - 1] + handoff(last_[k - 1], cpu);
        const sim::Time start = sim::max(t, avail);
        const Section s{start, start + hold, start - t};
        if (k < hi_)
            place(k, s, cpu);
        else if (k > lo_ && t <= avail) {  // no gap after the newest span: join it
            end_[k - 1] = s.end;
            last_[k - 1] = cpu;
        }
        else
            append(s, cpu);
        ++acquisitions_;
        if (s.spin.count() > 0)
            ++contended_;
        spin_total_ += s.spin;
        hold_total_ += hold;
        if (s.spin > spin_max_)
            spin_max_ = s.spin;
        return s;
    }

    const std::string& name() const { return name_; }
    uint64_t acquisitions() const { return acquisitions_; }
    uint64_t contended() const { return contended_; }
    sim::Duration spin_total() const { return spin_total_; }
    sim::Duration spin_max() const { return spin_max_; }
    sim::Duration hold_total() const { return hold_total_; }
    // Adds this lock's figures to `r` (a report line may sum a group of locks).
    void report(result::LockReport& r) const {
        r.acquisitions += acquisitions_;
        r.contended += contended_;
        r.wait += spin_total_;
        r.wait_max = std::max(r.wait_max, spin_max_);
        r.held += hold_total_;
    }

private:
    static constexpr uint32_t kSpans = 32;
    static constexpr uint32_t kSlots = kSpans + 1;  // and the newest span no longer kept
    static constexpr uint32_t kNoCpu = std::numeric_limits<uint32_t>::max();

    sim::Duration handoff(uint32_t from, uint32_t to) const {
        return from != to && from != kNoCpu ? handoff_ : sim::Duration();
    }
    // No section of any core fits in a gap of `g` from a's section to b's: a core other than
    // a and b would need two hand-offs, a or b one (none if a is b).
    bool closed(uint32_t a, uint32_t b, sim::Duration g) const { return g < min_hold_ + handoff(a, b); }

    // The first span whose gap before it takes the section, or hi_ to go after the newest,
    // for a caller that arrives before the newest span starts.
    [[gnu::noinline]] uint32_t earliest_gap(uint32_t cpu, sim::Time t, sim::Duration hold, sim::Time horizon) {
        drop_before(horizon);
        // The gaps that end after t are those before the spans that start after it.
        uint32_t k = lo_;
        while (start_[k] <= t)
            ++k;
        for (; k < hi_; ++k) {
            const sim::Time start = sim::max(t, end_[k - 1] + handoff(last_[k - 1], cpu));
            if (start + hold + handoff(cpu, first_[k]) <= start_[k])
                break;
        }
        return k;
    }

    // No caller arrives before `h`, so the gaps before the spans that start by then are of
    // no use, nor are the spans before the last of them (which stays: a section may still
    // join it).
    void drop_before(sim::Time h) {
        while (hi_ - lo_ >= 2 && start_[lo_ + 1] <= h)
            ++lo_;
    }

    // Frees the top slot: drops what is no longer needed, forgets the oldest span if all
    // kSpans are still needed, and moves the rest down.
    [[gnu::noinline]] void make_room(sim::Time h) {
        drop_before(h);
        if (lo_ == 1)
            ++lo_;  // all kSpans still needed: forget the oldest
        const uint32_t from = lo_ - 1, n = hi_ - from;
        for (uint32_t i = 0; i < n; ++i)
            move(from + i, i);
        lo_ = 1;
        hi_ = n;
    }

    void move(uint32_t from, uint32_t to) {
        start_[to] = start_[from];
        end_[to] = end_[from];
        first_[to] = first_[from];
        last_[to] = last_[from];
    }

    void append(const Section& s, uint32_t cpu) {
        start_[hi_] = s.start;
        end_[hi_] = s.end;
        first_[hi_] = last_[hi_] = cpu;
        ++hi_;
    }

    // Records section `s` of `cpu` in the gap before span k (< hi_), joining the spans
    // around it when the gaps it leaves cannot hold a section.
    [[gnu::noinline]] void place(uint32_t k, const Section& s, uint32_t cpu) {
        const bool join_prev = k > lo_ && closed(last_[k - 1], cpu, s.start - end_[k - 1]);
        const bool join_next = closed(cpu, first_[k], start_[k] - s.end);
        if (join_prev && join_next) {
            end_[k - 1] = end_[k];
            last_[k - 1] = last_[k];
            for (uint32_t i = k; i + 1 < hi_; ++i)
                move(i + 1, i);
            --hi_;
        } else if (join_prev) {
            end_[k - 1] = s.end;
            last_[k - 1] = cpu;
        } else if (join_next) {
            start_[k] = s.start;
            first_[k] = cpu;
        } else {
            for (uint32_t i = hi_; i > k; --i)
                move(i - 1, i);
            start_[k] = s.start;
            end_[k] = s.end;
            first_[k] = last_[k] = cpu;
            ++hi_;
        }
    }

    std::string name_;
    sim::Duration handoff_;
    sim::Duration min_hold_ = sim::Duration::ns(1);  // see set_min_hold()
    // The spans kept, oldest first, in [lo_, hi_), and at lo_ - 1 the newest one dropped or
    // forgotten (none held at time zero to begin with). A span is sections back to back
    // with no usable gap between them, from first_'s to last_'s.
    std::array<sim::Time, kSlots> start_{}, end_{};
    std::array<uint32_t, kSlots> first_{kNoCpu}, last_{kNoCpu};
    uint32_t lo_ = 1, hi_ = 1;
    uint64_t acquisitions_ = 0, contended_ = 0;
    sim::Duration spin_total_, spin_max_, hold_total_;
};

}  // namespace blksim::cpu
