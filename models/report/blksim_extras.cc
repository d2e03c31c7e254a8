// blksim's own text section, printed after fio's report: what fio cannot see from user space.
// Per disk: the queue's shape (scheduler, hardware queues, driver tags), how requests got to
// the driver (direct issue vs insert, tag sleeps, BLK_STS_RESOURCE requeues) and a btt-style
// table of where they waited (Q2G G2I I2D D2C Q2C, as btt names the stages). Per CPU: busy and
// interrupt time as a share of the simulated run. Fixed column widths and fixed precision so
// the same result always prints the same bytes.
#include <array>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "models/report/fio_output.h"

namespace blksim::report {

namespace {

using Out = std::back_insert_iterator<std::string>;

// The percentiles of the stage table: the median and the tail, as latency work reads it.
constexpr std::array<double, 4> STAGE_PERCENTILES = {50.0, 90.0, 99.0, 99.9};

// One column per value: "stage (usec)" label, N, then mean, percentiles and max.
constexpr int LABEL_W = 12;
constexpr int COUNT_W = 10;
constexpr int VALUE_W = 12;

double usec(double ns) { return ns / 1000.0; }

double percent_of(sim::Duration part, sim::Duration whole) {
    return whole.count() > 0
               ? 100.0 * static_cast<double>(part.count()) / static_cast<double>(whole.count())
               : 0.0;
}

void format_queue_header(Out out, const QueueReport& q) {
    // A tag set shared by several queues (an HBA's disks) is counted once, whoever holds the
    // tags: the line says so, or an idle disk would seem to hold its busy neighbours' tags.
    fmt::format_to(out, "  {}: scheduler={}, nr_hw_queues={}, tag_depth={}, tags_in_use_mean={:.2f}{}\n",
                   q.name, q.scheduler, q.nr_hw_queues, q.tag_depth, q.tags_in_use_mean,
                   q.tag_set_queues > 1
                       ? fmt::format(" (tag set shared by {} queues)", q.tag_set_queues)
                       : std::string());
    // With an elevator a submitter waits for a scheduler tag and the dispatch for a driver
    // tag: both beside the driver-tag sleeps, or a full nr_requests would wait unseen.
    fmt::format_to(out, "    tag_sleeps={}{}, direct_issues={}, inserts={}, resource_requeues={}, requeues={}\n",
                   q.tag_sleeps,
                   q.has_elevator ? fmt::format(", sched_tag_sleeps={}, driver_tag_waits={}", q.sched_tag_sleeps,
                                                q.driver_tag_waits)
                                  : std::string(),
                   q.direct_issues, q.inserts, q.resource_requeues, q.requeues);
    if (q.budget)
        fmt::format_to(out, "    budget={} (sdev queue_depth), budget_exhausted={}\n", q.budget, q.budget_exhausted);
    // Only when some happened (a driver that wakes a task from ->queue_rq: loop), so that
    // other runs read as before.
    if (q.resched_handoffs)
        fmt::format_to(out, "    resched_handoffs={} (dispatch loops handed to kblockd on need_resched)\n",
                       q.resched_handoffs);
    // The flush requests the device received (diskstats' flush fields); only when there were
    // some, so that a run without flushes reads as before.
    if (q.flushes)
        fmt::format_to(out, "    flushes={}, flush_time_mean={:.3f} ms\n", q.flushes,
                       static_cast<double>(q.flush_time.count()) / static_cast<double>(q.flushes) / 1e6);
    for (const LockReport& l : q.locks) {
        const double mean_ns = l.contended ? static_cast<double>(l.wait.count()) / static_cast<double>(l.contended) : 0.0;
        fmt::format_to(out,
                       "    lock {}{}: acquisitions={}, contended={:.2f}%, wait={:.3f} ms (mean {:.0f} ns when contended, "
                       "max {:.0f} ns), held={:.3f} ms\n",
                       l.name, l.instances > 1 ? fmt::format(" (x{})", l.instances) : std::string(), l.acquisitions,
                       l.acquisitions ? 100.0 * static_cast<double>(l.contended) / static_cast<double>(l.acquisitions) : 0.0,
                       static_cast<double>(l.wait.count()) / 1e6, mean_ns, static_cast<double>(l.wait_max.count()),
                       static_cast<double>(l.held.count()) / 1e6);
    }
}

void format_stage_table_header(Out out) {
    fmt::format_to(out, "    {:<{}}{:>{}}{:>{}}", "stage (usec)", LABEL_W, "N", COUNT_W, "mean", VALUE_W);
    for (const std::string_view p : {"p50", "p90", "p99", "p99.9"})
        fmt::format_to(out, "{:>{}}", p, VALUE_W);
    fmt::format_to(out, "{:>{}}\n", "max", VALUE_W);
}

// One btt stage: count and mean from the exact running stat, percentiles from the
// log-linear histogram (fio's bucket midpoints, <= 1/64 relative error) kept within the
// exact min and max, max exact.
void format_stage_row(Out out, std::string_view name, const StageStat& s) {
    const std::vector<uint64_t> pct = s.percentiles(STAGE_PERCENTILES);
    fmt::format_to(out, "    {:<{}}{:>{}}{:>{}.3f}", name, LABEL_W, s.stat.count(), COUNT_W,
                   usec(s.stat.mean()), VALUE_W);
    for (const uint64_t v : pct)
        fmt::format_to(out, "{:>{}.3f}", usec(static_cast<double>(v)), VALUE_W);
    fmt::format_to(out, "{:>{}.3f}\n", usec(s.stat.max()), VALUE_W);
}

void format_queue(Out out, const QueueReport& q) {
    format_queue_header(out, q);
    format_stage_table_header(out);
    format_stage_row(out, "Q2G", q.q2g);
    format_stage_row(out, "G2I", q.g2i);
    format_stage_row(out, "I2D", q.i2d);
    format_stage_row(out, "D2C", q.d2c);
    format_stage_row(out, "Q2C", q.q2c);
}

// A device model's own figures (Device::report), "key=value" as the model listed them.
void format_device(Out out, const DeviceReport& d) {
    fmt::format_to(out, "  {} ({}):\n", d.name, d.model);
    for (const auto& line : d.lines) {
        fmt::format_to(out, "   ");
        const char* sep = " ";
        for (const DeviceReport::Field& f : line) {
            if (f.decimals > 0)
                fmt::format_to(out, "{}{}={:.{}f}", sep, f.key, f.value, f.decimals);
            else
                fmt::format_to(out, "{}{}={}", sep, f.key, static_cast<int64_t>(f.value));
            sep = ", ";
        }
        fmt::format_to(out, "\n");
    }
}

void format_cpus(Out out, const std::vector<CpuReport>& cpus, sim::Duration sim_time) {
    if (cpus.empty())
        return;
    fmt::format_to(out, "  cpus (% of {:.6f} s simulated):\n", sim_time.seconds());
    for (const CpuReport& c : cpus)
        fmt::format_to(out, "    cpu {:>3}: busy={:6.2f}%, irq={:6.2f}%, spin={:6.2f}%\n", c.id,
                       percent_of(c.busy, sim_time), percent_of(c.irq, sim_time),
                       percent_of(c.spin, sim_time));
}

}  // namespace

std::string format_blksim_extras(const RunResult& r) {
    std::string s = "\nblksim (what fio cannot show):\n";
    const Out out(s);
    for (const QueueReport& q : r.queues)
        format_queue(out, q);
    for (const DeviceReport& d : r.devices)
        format_device(out, d);
    format_cpus(out, r.cpus, r.sim_time);
    return s;
}

}  // namespace blksim::report
