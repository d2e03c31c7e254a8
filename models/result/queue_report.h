// What a request queue measured beyond fio's disk stats: where requests waited (btt's stage
// names), tags, budget, flushes and the elevator's locks. Filled by RequestQueue::report().
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "models/result/lock_report.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace blksim::result {

struct DiskUtil {
    std::string name;
    std::array<uint64_t, 2> ios{};     // completed requests
    std::array<uint64_t, 2> merges{};
    std::array<uint64_t, 2> ticks{};   // ms spent by requests in the queue
    uint64_t in_queue = 0;             // ms (sum of ticks)
    double util = 0.0;                 // percent of the run the device had requests in flight
};

// What fio cannot show: where requests waited (btt's stage names), tags, CPUs.
struct StageStat {
    sim::SumStat stat;                 // ns
    sim::LatencyHistogram hist;        // ns, for percentiles
    void add(int64_t ns) {
        stat.add(ns);
        hist.add(static_cast<uint64_t>(ns));
    }
    // The histogram's percentiles within the exact min and max.
    std::vector<uint64_t> percentiles(std::span<const double> plist) const {
        return hist.percentiles_within(plist, static_cast<uint64_t>(stat.min()),
                                       static_cast<uint64_t>(stat.max()));
    }
};

struct QueueReport {
    std::string name;                  // the disk
    std::string scheduler;
    // btt: Q2G bio queued → request allocated (includes sleeping for a tag), G2I → inserted,
    // I2D → issued to the driver, D2C → completed by the driver, Q2C total.
    StageStat q2g, g2i, i2d, d2c, q2c;
    uint32_t nr_hw_queues = 0;
    uint32_t tag_depth = 0;            // driver tags per hctx
    double tags_in_use_mean = 0.0;     // time average over the run, summed over hctxs
    // The queues sharing the driver's tag set (an HBA's disks): with more than one, the tags
    // and tags_in_use_mean are the set's, every queue's requests together.
    uint32_t tag_set_queues = 1;
    uint64_t tag_sleeps = 0;           // submitters that slept for a driver tag (no elevator)
    // With an elevator (has_elevator): submitters that slept for a scheduler tag (nr_requests
    // used up), and dispatches that found no driver tag for the elevator's request.
    bool has_elevator = false;
    uint64_t sched_tag_sleeps = 0;
    uint64_t driver_tag_waits = 0;
    // Dispatch loops that ended on need_resched() and handed the hctx to kblockd (a task woken
    // by ->queue_rq onto the dispatching CPU: loop's worker).
    uint64_t resched_handoffs = 0;
    uint64_t direct_issues = 0;        // requests issued straight from the plug (no I)
    uint64_t inserts = 0;              // requests that went through the software queue (I)
    uint64_t resource_requeues = 0;    // ->queue_rq answered BLK_STS_*RESOURCE
    uint64_t requeues = 0;             // the driver gave a request back (blk_mq_requeue_request)
    uint32_t budget = 0;               // dispatch budget (sdev->queue_depth); 0 = none
    uint64_t budget_exhausted = 0;     // dispatches that found the budget used up
    uint64_t flushes = 0;              // flush requests completed by the driver (diskstats)
    sim::Duration flush_time;          // their time from issue to completion, summed
    std::vector<LockReport> locks;     // the elevator's locks (none: empty)
    // The policy's own figures (sched::ElevatorFigures), for regress; not printed.
    std::vector<std::pair<std::string, double>> sched_figures;
};

}  // namespace blksim::result
