// When a job thinks (fio 3.33 backend.c handle_thinktime(), checked after each pass of the
// I/O loop): once thinktime_blocks I/Os have completed (thinktime_blocks_type=complete, the
// default) or been issued (issue) since the last pause, or with thinktime_iotime once
// thinktime_iotime + thinktime has passed since the last pause began (fio 3.33 measures
// the cycle from the previous check, so the first pause comes after iotime + thinktime;
// without thinktime_blocks given, iotime alone decides).
//
// The pause itself (JobThread): wait for every I/O in flight (io_u_quiesce()), spin on the
// CPU for thinktime_spin, sleep for the rest of thinktime; both end at the job's runtime.
#pragma once

#include <cstdint>

#include "models/workload/job_config.h"
#include "sim/time.h"

namespace blksim::workload {

class ThinkTime {
public:
    explicit ThinkTime(const JobConfig::ThinkTime& cfg) : cfg_(cfg) {}

    bool enabled() const { return cfg_.enabled(); }
    void start(sim::Time epoch) { last_check_ = epoch; }

    // Whether to pause now, given the job's issued and completed I/O counts; a pause that is
    // due starts the next cycle.
    bool due(sim::Time now, uint64_t issued, uint64_t completed) {
        bool stall = false;
        if (cfg_.iotime.count() > 0) {
            if (now - last_check_ >= cfg_.iotime + cfg_.time)
                stall = true;
            else if (!cfg_.blocks_set)
                return false;
        }
        const uint64_t b = cfg_.blocks_issue ? issued : completed;
        if (b >= last_blocks_ + cfg_.blocks)
            stall = true;
        if (stall) {
            last_blocks_ = b;
            last_check_ = now;
        }
        return stall;
    }

private:
    const JobConfig::ThinkTime& cfg_;
    uint64_t last_blocks_ = 0;   // fio last_thinktime_blocks
    sim::Time last_check_;       // fio last_thinktime
};

}  // namespace blksim::workload
