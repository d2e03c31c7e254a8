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
// The timeline keeps the last kSpans spans (adjacent sections that leave no usable gap are
// one span, so a saturated lock is a single span); older ones are forgotten, and nothing is
// placed before the end of the newest forgotten one. No allocation.
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

    Section acquire(uint32_t cpu, sim::Time t, sim::Duration hold) {
        if (n_ == kSpans)
            forget_oldest();
        // The gaps that end after t are those before the spans that start after it.
        uint32_t k = n_;
        while (k > 0 && span(k - 1).start > t)
            --k;
        sim::Time start;
        for (;; ++k) {
            const Span& prev = k > 0 ? span(k - 1) : forgotten_;
            start = sim::max(t, prev.end + handoff(prev.last, cpu));
            if (k == n_ || start + hold + handoff(cpu, span(k).first) <= span(k).start)
                break;
        }
        const Section s{start, start + hold, start - t};
        place(k, s, cpu);
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
    static constexpr uint32_t kSpans = 32;  // a power of two
    static constexpr uint32_t kNoCpu = std::numeric_limits<uint32_t>::max();

    // Sections back to back with no usable gap between them, from `first`'s to `last`'s.
    struct Span {
        sim::Time start, end;
        uint32_t first, last;
    };

    sim::Duration handoff(uint32_t from, uint32_t to) const {
        return from != to && from != kNoCpu ? handoff_ : sim::Duration();
    }
    // No section of any core fits in a gap of `g` from a's section to b's.
    bool closed(uint32_t a, uint32_t b, sim::Duration g) const { return g <= handoff(a, b); }

    Span& span(uint32_t i) { return spans_[(head_ + i) & (kSpans - 1)]; }
    const Span& span(uint32_t i) const { return spans_[(head_ + i) & (kSpans - 1)]; }

    void forget_oldest() {
        forgotten_ = span(0);
        head_ = (head_ + 1) & (kSpans - 1);
        --n_;
    }

    // Records section `s` of `cpu` as the gap before span k, joining the spans around it
    // when the gaps it leaves cannot hold a section.
    void place(uint32_t k, const Section& s, uint32_t cpu) {
        const bool join_prev = k > 0 && closed(span(k - 1).last, cpu, s.start - span(k - 1).end);
        const bool join_next = k < n_ && closed(cpu, span(k).first, span(k).start - s.end);
        if (join_prev && join_next) {
            span(k - 1).end = span(k).end;
            span(k - 1).last = span(k).last;
            for (uint32_t i = k; i + 1 < n_; ++i)
                span(i) = span(i + 1);
            --n_;
        } else if (join_prev) {
            span(k - 1).end = s.end;
            span(k - 1).last = cpu;
        } else if (join_next) {
            span(k).start = s.start;
            span(k).first = cpu;
        } else {
            for (uint32_t i = n_; i > k; --i)
                span(i) = span(i - 1);
            span(k) = {s.start, s.end, cpu, cpu};
            ++n_;
        }
    }

    std::string name_;
    sim::Duration handoff_;
    std::array<Span, kSpans> spans_{};
    uint32_t head_ = 0, n_ = 0;
    Span forgotten_{sim::Time::zero(), sim::Time::zero(), kNoCpu, kNoCpu};
    uint64_t acquisitions_ = 0, contended_ = 0;
    sim::Duration spin_total_, spin_max_, hold_total_;
};

}  // namespace blksim::cpu
