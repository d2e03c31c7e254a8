// `--timeseries FILE`: where the requests are, every `interval` of simulated time, as CSV
// streamed to FILE while the run goes (docs/plots.md). fio's logs say what the job saw;
// this says what the block layer held: per request queue, at each sample instant,
//
//   in_flight     requests at the driver (between D and C; the dispatch budget in use)
//   driver_tags   driver tags the queue holds (hctx->nr_active summed over its hctxs)
//   sched_tags    scheduler tags in use (requests allocated with an elevator; 0 with none)
//   sched_queued  requests the elevator holds (inserted, not yet dispatched)
//   dispatch      requests on hctx->dispatch (requeued or bypass, served first)
//   sw_queue      requests in the software queues (none, hctx busy)
//   tag_waiters   submitters asleep on the tag space the queue allocates from (a shared
//                 set's sleepers count for every queue that shares it)
//
// then, over the interval that ends at the sample, the requests completed per direction,
// their bytes and their mean Q2C (empty when none completed), and last the device model's
// own figures (Device::series_columns(), prefixed "dev."). Columns are "<disk>:<name>"
// after "time_ns". Rows are at every multiple of the interval, and one more at the run's
// end for the last partial interval, so the counters add up to the run's totals (rates
// divide by the time since the previous row, not by the interval). The values are snapshots at the instant, not time averages: a queue whose
// occupancy moves faster than the interval shows where it happened to be (a time average
// over the whole run is in the report's tags_in_use_mean).
//
// The machine samples with one event on the simulation's queue, re-armed each interval, that
// only reads (Machine::sample): nothing on the I/O path knows about it, so the run costs
// nothing more when it is off and does exactly the same with it on. Like the invariant
// audit it re-arms only while the model has something pending, so a stalled run still stops
// and is reported. Rows go through a 64 KiB buffer: memory stays bounded whatever the run
// length.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "models/blkmq/request_queue.h"
#include "models/topology/run_sampler.h"
#include "sim/time.h"

namespace blksim::topology {
class Machine;
}

namespace blksim::report {

class TimeSeriesWriter final : public topology::RunSampler {
public:
    // The shortest interval accepted: below it a long run writes absurd files.
    static constexpr sim::Duration MIN_INTERVAL = sim::Duration::ns(1000);

    TimeSeriesWriter(std::ostream& out, sim::Duration interval,
                     std::span<const std::unique_ptr<blkmq::RequestQueue>> queues);
    TimeSeriesWriter(const TimeSeriesWriter&) = delete;
    TimeSeriesWriter& operator=(const TimeSeriesWriter&) = delete;
    // The rows of a run that failed (an invariant, a stall) still reach the file.
    ~TimeSeriesWriter() override { flush(); }

    // The interval, at least MIN_INTERVAL.
    sim::Duration interval() const override { return interval_; }
    // Writes the header; the run starts at `now`.
    void start(sim::Time now) override;
    // One row for the instant `now` (the machine calls it every interval).
    void sample(sim::Time now) override;
    // At the run's end: one last row for the part of an interval since the last sample
    // (none when the run ended on a sample), so that the rows' counters add up to the run's
    // totals; then writes out what is buffered.
    void finish(sim::Time now) override;
    void flush();
    uint64_t rows() const { return rows_; }

private:

    // What a queue had completed at the previous sample, to difference the counters.
    struct Last {
        std::array<uint64_t, 2> ios{}, sectors{};
        uint64_t q2c_n = 0;
        double q2c_sum = 0.0;
    };

    std::ostream& out_;
    sim::Duration interval_;
    std::span<const std::unique_ptr<blkmq::RequestQueue>> queues_;
    std::vector<Last> last_;
    std::vector<uint32_t> dev_columns_;  // per queue, how many device values
    std::vector<double> dev_values_;     // scratch for Device::series_sample
    fmt::memory_buffer buf_;
    uint64_t rows_ = 0;
    sim::Time last_row_;
};

// What a request queue holds at an instant, as the columns above count it.
struct QueueOccupancy {
    uint32_t in_flight = 0, driver_tags = 0, sched_tags = 0, dispatch = 0, sw_queue = 0, tag_waiters = 0;
    uint64_t sched_queued = 0;
};
QueueOccupancy queue_occupancy(const blkmq::RequestQueue& q);

// --timeseries on `m`: a TimeSeriesWriter of its request queues as the machine's sampler.
// Call before m.run(); `out` must outlive the run.
void attach_timeseries(topology::Machine& m, std::ostream& out, sim::Duration interval);

}  // namespace blksim::report
