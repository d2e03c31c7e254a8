// A spinlock as a timeline (docs/architecture.md): it knows the instant it is released and
// which core held it last. A path step on core c that needs the lock at t gets it at
//     max(t, released) + hand-off   (hand-off only when the last holder was another core:
//                                    the lock's cache line has to move)
// and the core spins until then, busy but doing nothing useful. One computation, no event:
// a contended lock's throughput comes out as 1 / (hold + hand-off), and the spin shows up as
// CPU busy time. Callers arrive in (roughly) increasing time, as steps do; a caller that
// arrives "earlier" than the last release simply queues behind it (FIFO, like a ticket or
// queued spinlock).
#pragma once

#include <algorithm>
#include <cstdint>
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
        sim::Time avail = released_;
        if (acquisitions_ > 0 && last_holder_ != cpu)
            avail += handoff_;
        const sim::Time start = sim::max(t, avail);
        const sim::Duration spin = start - t;
        released_ = start + hold;
        last_holder_ = cpu;
        ++acquisitions_;
        if (spin.count() > 0)
            ++contended_;
        spin_total_ += spin;
        hold_total_ += hold;
        if (spin > spin_max_)
            spin_max_ = spin;
        return {start, released_, spin};
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
    std::string name_;
    sim::Duration handoff_;
    sim::Time released_;
    uint32_t last_holder_ = 0;
    uint64_t acquisitions_ = 0, contended_ = 0;
    sim::Duration spin_total_, spin_max_, hold_total_;
};

}  // namespace blksim::cpu
