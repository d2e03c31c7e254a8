#include "models/report/timeseries.h"

#include <algorithm>
#include <iterator>

#include "models/topology/machine.h"

namespace blksim::report {

namespace {

// The queue's own columns, in row order (timeseries.h says what each one is).
constexpr std::array<const char*, 12> QUEUE_COLUMNS = {
    "in_flight", "driver_tags", "sched_tags", "sched_queued", "dispatch", "sw_queue", "tag_waiters",
    "reads",     "writes",      "read_bytes", "write_bytes", "q2c_mean_ns",
};

}  // namespace

TimeSeriesWriter::TimeSeriesWriter(std::ostream& out, sim::Duration interval,
                                   std::span<const std::unique_ptr<blkmq::RequestQueue>> queues)
    : out_(out), interval_(std::max(interval, MIN_INTERVAL)), queues_(queues), last_(queues.size()) {}

void TimeSeriesWriter::start(sim::Time now) {
    auto o = std::back_inserter(buf_);
    fmt::format_to(o, "time_ns");
    std::size_t most = 0;
    for (const auto& q : queues_) {
        for (const char* c : QUEUE_COLUMNS)
            fmt::format_to(o, ",{}:{}", q->name(), c);
        const std::vector<std::string> dev = q->device().series_columns();
        for (const std::string& c : dev)
            fmt::format_to(o, ",{}:dev.{}", q->name(), c);
        dev_columns_.push_back(static_cast<uint32_t>(dev.size()));
        most = std::max(most, dev.size());
    }
    fmt::format_to(o, "\n");
    dev_values_.assign(most, 0.0);
    last_row_ = now;
}

void TimeSeriesWriter::finish(sim::Time now) {
    if (now > last_row_)
        sample(now);
    flush();
}

void TimeSeriesWriter::sample(sim::Time now) {
    last_row_ = now;
    auto o = std::back_inserter(buf_);
    fmt::format_to(o, "{}", now.ns());
    for (std::size_t i = 0; i < queues_.size(); ++i) {
        blkmq::RequestQueue& q = *queues_[i];
        const QueueOccupancy occ = queue_occupancy(q);
        fmt::format_to(o, ",{},{},{},{},{},{},{}", occ.in_flight, occ.driver_tags, occ.sched_tags, occ.sched_queued,
                       occ.dispatch, occ.sw_queue, occ.tag_waiters);

        const blkmq::QueueStats& s = q.stats();
        Last& l = last_[i];
        fmt::format_to(o, ",{},{},{},{}", s.ios[0] - l.ios[0], s.ios[1] - l.ios[1],
                       (s.sectors[0] - l.sectors[0]) << 9, (s.sectors[1] - l.sectors[1]) << 9);
        const uint64_t n = s.q2c.stat.count() - l.q2c_n;
        if (n > 0)
            fmt::format_to(o, ",{}", (s.q2c.stat.sum() - l.q2c_sum) / static_cast<double>(n));
        else
            fmt::format_to(o, ",");
        l.ios = s.ios;
        l.sectors = s.sectors;
        l.q2c_n = s.q2c.stat.count();
        l.q2c_sum = s.q2c.stat.sum();

        const std::span<double> dev(dev_values_.data(), dev_columns_[i]);
        q.device().series_sample(dev);
        for (const double v : dev)
            fmt::format_to(o, ",{}", v);
    }
    fmt::format_to(o, "\n");
    ++rows_;
    if (buf_.size() >= (1u << 16))
        flush();
}

QueueOccupancy queue_occupancy(const blkmq::RequestQueue& q) {
    QueueOccupancy n;
    n.in_flight = q.in_flight();
    for (uint32_t h = 0; h < q.nr_hw_queues(); ++h) {
        const blkmq::HwQueue& hc = q.hctx(h);
        n.driver_tags += hc.nr_active;
        n.dispatch += hc.dispatch.size();
        n.sw_queue += hc.sw_pending.size();
        // With host-wide tags every hctx points at the same tag spaces: count them once.
        const blkmq::BlkMqTags& alloc = hc.sched_tags ? *hc.sched_tags : hc.tags;
        const blkmq::HwQueue& h0 = q.hctx(0);
        if (h > 0 && &alloc == (h0.sched_tags ? h0.sched_tags : &h0.tags))
            continue;
        if (hc.sched_tags)
            n.sched_tags += hc.sched_tags->in_use();
        n.tag_waiters += alloc.nr_waiters();
    }
    n.sched_queued = q.elevator_audit() ? q.elevator_audit()->queued() : 0;
    return n;
}

void TimeSeriesWriter::flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
}

void attach_timeseries(topology::Machine& m, std::ostream& out, sim::Duration interval) {
    m.set_sampler(std::make_unique<TimeSeriesWriter>(out, interval, m.queues()));
}

}  // namespace blksim::report
