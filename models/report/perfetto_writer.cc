#include "models/report/perfetto_writer.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/report/timeseries.h"
#include "models/topology/machine.h"

namespace blksim::report {

namespace {

constexpr uint32_t CPU_PID = 1;
constexpr uint32_t LANES = 4096;  // lanes per track; tid = group base + lane
constexpr uint32_t MAX_LANES = 1024;

// Group layout of a disk: device, requests, then one per hctx.
constexpr uint32_t DEVICE_GROUP = 0, REQUEST_GROUP = 1, HCTX_GROUP = 2;

// The counters of a disk, before the device model's own.
constexpr const char* QUEUE_COUNTERS[] = {"at driver", "driver tags", "sched tags", "elevator holds",
                                          "tag sleepers"};
constexpr std::size_t NR_QUEUE_COUNTERS = std::size(QUEUE_COUNTERS);

// Microseconds with the nanoseconds as decimals: the format's unit, without rounding.
void put_ts(fmt::memory_buffer& b, int64_t ns) {
    fmt::format_to(std::back_inserter(b), "{}.{:03}", ns / 1000, ns % 1000);
}

double us(sim::Duration d) {
    return static_cast<double>(d.count()) / 1e3;
}

}  // namespace

PerfettoWriter::PerfettoWriter(Options opt, std::span<const std::unique_ptr<blkmq::RequestQueue>> queues,
                               uint32_t nr_cpus)
    : opt_(opt), queues_(queues), nr_cpus_(nr_cpus), breakdown_(nr_cpus) {
    if (opt_.sample == 0)
        opt_.sample = 1;
    strings_.emplace_back();  // index 0: no args
    for (uint32_t c = 0; c < nr_cpus_; ++c)
        groups_.push_back({CPU_PID, c * LANES, fmt::format("CPU {}", c), true});
    for (std::size_t d = 0; d < queues_.size(); ++d) {
        const blkmq::RequestQueue& q = *queues_[d];
        const uint32_t pid = CPU_PID + 1 + static_cast<uint32_t>(d);
        disk_names_.push_back("disk " + q.name());
        disk_group_.push_back(static_cast<uint32_t>(groups_.size()));
        groups_.push_back({pid, DEVICE_GROUP * LANES, "device", false});
        groups_.push_back({pid, REQUEST_GROUP * LANES, "requests", false});
        for (uint32_t h = 0; h < q.nr_hw_queues(); ++h)
            groups_.push_back({pid, (HCTX_GROUP + h) * LANES, fmt::format("hctx {}", h), false});
        device_disk_[&queues_[d]->device()] = static_cast<uint32_t>(d);
        auto& series = disk_counters_.emplace_back();
        std::vector<std::string> names(std::begin(QUEUE_COUNTERS), std::end(QUEUE_COUNTERS));
        for (const std::string& c : queues_[d]->device().series_columns())
            names.push_back("dev " + c);
        for (const std::string& n : names) {
            series.push_back(static_cast<uint32_t>(counter_names_.size()));
            counter_names_.push_back(fmt::format("{}\t{}", pid, n));
        }
        last_values_.emplace_back(names.size(), -1.0);
        scratch_.resize(std::max(scratch_.size(), names.size()));
    }
}

uint32_t PerfettoWriter::intern(const std::string& s) {
    const auto [it, added] = string_ids_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
    if (added)
        strings_.push_back(s);
    return it->second;
}

// Whether [start, end] is kept: in the window, and room left for it.
bool PerfettoWriter::keep(int64_t start, int64_t end) {
    if (end < opt_.from.ns() || start >= opt_.to.ns())
        return false;
    if (truncated_at_ >= 0)
        return false;
    if (slices_.size() + counters_.size() >= opt_.max_records) {
        truncated_at_ = start;
        return false;
    }
    return true;
}

uint32_t PerfettoWriter::add_unit(uint32_t group, uint32_t count) {
    units_.push_back({group, static_cast<uint32_t>(slices_.size() - count), count});
    return static_cast<uint32_t>(units_.size() - 1);
}

void PerfettoWriter::work(uint32_t cpu, cpu::Work w, sim::Time start, sim::Duration len, sim::Duration cost,
                          sim::Duration spin) {
    if (cpu >= nr_cpus_)
        return;
    breakdown_.work(cpu, w, start, len, cost, spin);
    const int64_t s = start.ns(), e = s + len.count();
    if (!keep(s, e))
        return;
    const uint32_t name = intern(cpu::work_name(w));
    if (spin.count() > 0 && w != cpu::Work::SPIN) {
        // The lock section with its spin before it, as two slices side by side.
        slices_.push_back({s, s + spin.count(), intern("spin"), 0, 0, 0});
        add_unit(cpu, 1);
        slices_.push_back({s + spin.count(), e, name, 0, 0, 0});
    } else {
        slices_.push_back({s, e, name, 0, 0, 0});
    }
    add_unit(cpu, 1);
}

void PerfettoWriter::phase(const dev::Device& d, const char* name, sim::Time start, sim::Time end,
                           uint64_t sector) {
    const auto it = device_disk_.find(&d);
    if (it == device_disk_.end() || !keep(start.ns(), end.ns()))
        return;
    slices_.push_back({start.ns(), end.ns(), intern(name), intern(fmt::format("{{\"sector\":{}}}", sector)), 0, 0});
    add_unit(disk_group_[it->second] + DEVICE_GROUP, 1);
}

void PerfettoWriter::emit(uint32_t dev, const blkmq::TraceEvent& e) {
    if (dev >= queues_.size())
        return;
    sample_counters(dev, e.time.ns());
    if (e.action == blkmq::TraceAction::COMPLETE && e.request)
        completed(dev, e);
}

// The queue's state as it is when the event is emitted, stamped with the event's instant.
void PerfettoWriter::sample_counters(uint32_t dev, int64_t ts) {
    if (ts < opt_.from.ns() || ts >= opt_.to.ns() || truncated_at_ >= 0)
        return;
    const QueueOccupancy occ = queue_occupancy(*queues_[dev]);
    std::vector<double>& v = scratch_;
    v[0] = occ.in_flight;
    v[1] = occ.driver_tags;
    v[2] = occ.sched_tags;
    v[3] = static_cast<double>(occ.sched_queued);
    v[4] = occ.tag_waiters;
    const std::size_t n = last_values_[dev].size();
    queues_[dev]->device().series_sample(std::span<double>(v.data() + NR_QUEUE_COUNTERS, n - NR_QUEUE_COUNTERS));
    for (std::size_t i = 0; i < n; ++i) {
        if (v[i] == last_values_[dev][i])
            continue;
        if (!keep(ts, ts))
            return;
        last_values_[dev][i] = v[i];
        counters_.push_back({ts, disk_counters_[dev][i], v[i]});
    }
}

// A request's whole life, from its stamps, once it completes: on the disk's request track
// (Q to C, its stages as children) and on its hctx's track (D to C), joined by a flow.
void PerfettoWriter::completed(uint32_t dev, const blkmq::TraceEvent& e) {
    const int64_t q = e.t_queue.ns(), c = e.time.ns();
    if (c < opt_.from.ns() || q >= opt_.to.ns())
        return;
    if (completions_++ % opt_.sample != 0)
        return;
    if (!keep(q, c))
        return;
    const int64_t g = std::max(q, e.t_get.ns()), i = std::max(g, e.t_insert.ns());
    const int64_t d = std::clamp(e.t_issue.ns(), i, c);
    const char dir = e.flush && e.nr_sectors == 0 ? 'F' : e.discard ? 'D' : e.write ? 'W' : 'R';
    const std::string what = fmt::format("{} {}+{}", dir, e.sector, e.nr_sectors);
    const uint32_t name = intern(what);
    const uint32_t args = intern(fmt::format(
        "{{\"request\":\"{}\",\"Q2G_us\":{},\"G2I_us\":{},\"I2D_us\":{},\"D2C_us\":{},\"Q2C_us\":{},"
        "\"hctx\":{},\"completion_cpu\":{},\"pid\":{}}}",
        what, us(sim::Duration::ns(g - q)), us(sim::Duration::ns(i - g)), us(sim::Duration::ns(d - i)),
        us(sim::Duration::ns(c - d)), us(sim::Duration::ns(c - q)), e.hctx, e.cpu, e.pid));
    const uint32_t flow = next_flow_++;
    const uint32_t base = disk_group_[dev];
    // The request and its stages; a stage of no length has no slice and no flow step.
    const std::size_t first = slices_.size();
    slices_.push_back({q, c, name, args, 0, 0});
    const std::pair<const char*, std::array<int64_t, 2>> stages[] = {
        {"Q2G", {q, g}}, {"G2I", {g, i}}, {"I2D", {i, d}}, {"D2C", {d, c}}};
    bool started = false;
    for (const auto& [stage, span] : stages) {
        if (span[1] <= span[0])
            continue;
        const bool to_driver = stage[0] == 'D';  // the flow goes through the hctx's track there
        slices_.push_back({span[0], span[1], intern(stage), args, to_driver ? 0 : flow,
                           to_driver ? '\0' : started ? 't' : 's'});
        started = started || !to_driver;
    }
    if (!started) {  // Q = D: the flow starts at the request itself
        slices_[first].flow = flow;
        slices_[first].flow_ph = 's';
    }
    slices_.push_back({c, c, intern("C"), args, flow, 'f'});
    add_unit(base + REQUEST_GROUP, static_cast<uint32_t>(slices_.size() - first));
    slices_.push_back({d, c, name, args, flow, 't'});
    add_unit(base + HCTX_GROUP + (e.hctx < queues_[dev]->nr_hw_queues() ? e.hctx : 0), 1);
    ++requests_kept_;
}

// The events as they go out: comma-separated, through a 64 KiB buffer.
class PerfettoWriter::Out {
public:
    explicit Out(std::ostream& out) : out_(out) {}
    ~Out() { drain(); }
    // Starts an event (after the comma that separates it from the previous one).
    std::back_insert_iterator<fmt::memory_buffer> event() {
        if (!first_)
            fmt::format_to(std::back_inserter(b_), ",\n");
        first_ = false;
        if (b_.size() >= (1u << 16))
            drain();
        return std::back_inserter(b_);
    }
    std::back_insert_iterator<fmt::memory_buffer> more() { return std::back_inserter(b_); }
    void ts(int64_t ns) { put_ts(b_, ns); }
    void drain() {
        out_.write(b_.data(), static_cast<std::streamsize>(b_.size()));
        b_.clear();
    }
    // A process's or a track's name (and a track's place: its tid).
    void name(uint32_t pid, const char* what, int64_t tid, const std::string& name) {
        auto o = event();
        fmt::format_to(o, "{{\"ph\":\"M\",\"pid\":{},", pid);
        if (tid >= 0)
            fmt::format_to(o, "\"tid\":{},", tid);
        fmt::format_to(o, "\"name\":\"{}\",\"args\":{{\"name\":{}}}}}", what, nlohmann::json(name).dump());
        if (tid >= 0)
            fmt::format_to(event(), "{{\"ph\":\"M\",\"pid\":{},\"tid\":{},\"name\":\"thread_sort_index\",\"args\":"
                                    "{{\"sort_index\":{}}}}}", pid, tid, tid);
    }

private:
    std::ostream& out_;
    fmt::memory_buffer b_;
    bool first_ = true;
};

// Lays the units of one track, order[k..] up to the next track's, out on lanes (the
// outermost first at equal starts): on a nesting track a unit goes on the first lane where
// it nests in what is open or follows it; elsewhere on the first lane that is free. Returns
// each lane's slices in the order they are written; advances k.
std::vector<std::vector<uint32_t>> PerfettoWriter::lay_out(const std::vector<uint32_t>& order, std::size_t& k) const {
    const uint32_t gi = units_[order[k]].group;
    const bool nest = groups_[gi].nest;
    std::vector<std::vector<int64_t>> open;  // per lane, the ends of the slices open
    std::vector<std::vector<uint32_t>> lanes;
    for (; k < order.size() && units_[order[k]].group == gi; ++k) {
        const Unit& u = units_[order[k]];
        const Slice& top = slices_[u.first];
        std::size_t l = 0;
        for (; l < lanes.size(); ++l) {
            std::vector<int64_t>& o = open[l];
            while (!o.empty() && o.back() <= top.start)
                o.pop_back();
            if (o.empty() || (nest && top.end <= o.back()))
                break;
        }
        if (l == lanes.size()) {
            if (lanes.size() == MAX_LANES) {
                dropped_ += u.count;
                continue;
            }
            lanes.emplace_back();
            open.emplace_back();
        }
        open[l].push_back(top.end);
        for (uint32_t s = u.first; s < u.first + u.count; ++s)
            lanes[l].push_back(s);
    }
    return lanes;
}

// One lane's slices as B and E events in time order (a slice closes before the next one
// that starts at or after its end opens), each flow step right after the B it binds to.
void PerfettoWriter::write_lane(Out& out, uint32_t pid, uint32_t tid, const std::vector<uint32_t>& lane) const {
    std::vector<int64_t> open;
    const auto close_until = [&](int64_t t, bool all) {
        while (!open.empty() && (all || open.back() <= t)) {
            fmt::format_to(out.event(), "{{\"ph\":\"E\",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
            out.ts(open.back());
            fmt::format_to(out.more(), "}}");
            open.pop_back();
        }
    };
    for (const uint32_t si : lane) {
        const Slice& s = slices_[si];
        close_until(s.start, false);
        fmt::format_to(out.event(), "{{\"ph\":\"B\",\"pid\":{},\"tid\":{},\"ts\":", pid, tid);
        out.ts(s.start);
        fmt::format_to(out.more(), ",\"name\":{}", nlohmann::json(strings_[s.name]).dump());
        if (s.args)
            fmt::format_to(out.more(), ",\"args\":{}", strings_[s.args]);
        fmt::format_to(out.more(), "}}");
        if (s.flow) {
            fmt::format_to(out.event(), "{{\"ph\":\"{}\",\"id\":{},\"pid\":{},\"tid\":{},\"ts\":", s.flow_ph,
                           s.flow, pid, tid);
            out.ts(s.start);
            fmt::format_to(out.more(), ",\"name\":\"request\",\"cat\":\"request\"{}}}",
                           s.flow_ph == 's' ? "" : ",\"bp\":\"e\"");
        }
        open.push_back(s.end);
    }
    close_until(0, true);
}

// The counters: one series per disk and name, in time order.
void PerfettoWriter::write_counters(Out& out) const {
    std::vector<uint32_t> order(counters_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (counters_[a].series != counters_[b].series)
            return counters_[a].series < counters_[b].series;
        return counters_[a].ts < counters_[b].ts;
    });
    for (const uint32_t ci : order) {
        const Counter& c = counters_[ci];
        const std::string& sn = counter_names_[c.series];
        const std::size_t tab = sn.find('\t');
        fmt::format_to(out.event(), "{{\"ph\":\"C\",\"pid\":{},\"name\":{},\"ts\":", sn.substr(0, tab),
                       nlohmann::json(sn.substr(tab + 1)).dump());
        out.ts(c.ts);
        fmt::format_to(out.more(), ",\"args\":{{\"value\":{}}}}}", c.value);
    }
    write_lock_waiters(out);
}

// "lock waiters": how many cores spin on a lock at each instant, from the cores' spin
// slices. A lock here is a timeline, not a queue of waiters: a core that spins is a waiter
// for as long as its spin slice lasts, so the count is the slices open at each instant.
void PerfettoWriter::write_lock_waiters(Out& out) const {
    const auto spin = string_ids_.find("spin");
    if (spin == string_ids_.end())
        return;
    std::vector<std::pair<int64_t, int>> steps;  // (instant, +1 spin starts / -1 ends)
    for (const Unit& u : units_) {
        const Slice& s = slices_[u.first];
        if (u.group < nr_cpus_ && s.name == spin->second && s.end > s.start) {
            steps.emplace_back(s.start, 1);
            steps.emplace_back(s.end, -1);
        }
    }
    std::sort(steps.begin(), steps.end());  // at one instant the ends (-1) first
    int waiters = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        waiters += steps[i].second;
        if (i + 1 < steps.size() && steps[i + 1].first == steps[i].first)
            continue;  // one value per instant
        fmt::format_to(out.event(), "{{\"ph\":\"C\",\"pid\":{},\"name\":\"lock waiters\",\"ts\":", CPU_PID);
        out.ts(steps[i].first);
        fmt::format_to(out.more(), ",\"args\":{{\"value\":{}}}}}", waiters);
    }
}

void PerfettoWriter::write(std::ostream& stream, const std::string& meta) const {
    std::vector<uint32_t> order(units_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const Unit& x = units_[a];
        const Unit& y = units_[b];
        if (x.group != y.group)
            return x.group < y.group;
        const Slice& sx = slices_[x.first];
        const Slice& sy = slices_[y.first];
        return sx.start != sy.start ? sx.start < sy.start : sx.end > sy.end;
    });
    stream << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    {
        Out out(stream);
        out.name(CPU_PID, "process_name", -1, "CPUs");
        for (std::size_t d = 0; d < disk_names_.size(); ++d)
            out.name(CPU_PID + 1 + static_cast<uint32_t>(d), "process_name", -1, disk_names_[d]);
        for (std::size_t k = 0; k < order.size();) {
            const Group& grp = groups_[units_[order[k]].group];
            const std::vector<std::vector<uint32_t>> lanes = lay_out(order, k);
            for (std::size_t l = 0; l < lanes.size(); ++l) {
                const uint32_t tid = grp.tid_base + static_cast<uint32_t>(l);
                out.name(grp.pid, "thread_name", tid, l == 0 ? grp.name : fmt::format("{} +{}", grp.name, l));
                write_lane(out, grp.pid, tid, lanes[l]);
            }
        }
        write_counters(out);
    }
    // What was kept, and where the CPUs' time went.
    nlohmann::json cpu_ns = nlohmann::json::array();
    for (const auto& per : breakdown_.ns()) {
        nlohmann::json row = nlohmann::json::object();
        for (uint32_t w = 0; w < cpu::NR_WORK_KINDS; ++w)
            row[cpu::work_name(static_cast<cpu::Work>(w))] = per[w];
        cpu_ns.push_back(row);
    }
    stream << fmt::format("\n],\"metadata\":{{{}{}\"window_ns\":[{},{}],\"sample\":{},\"requests\":{},"
                          "\"truncated_at_ns\":{},\"dropped_slices\":{},\"cpu_time_ns\":{}}}}}\n",
                          meta, meta.empty() ? "" : ",", opt_.from.ns(),
                          opt_.to == sim::Time::never() ? -1 : opt_.to.ns(), opt_.sample, requests_kept_,
                          truncated_at_, dropped_, cpu_ns.dump());
}

void attach_perfetto(topology::Machine& m, PerfettoWriter& w) {
    attach_cpu_breakdown(m, w);
    for (const auto& q : m.queues())
        q->device().set_phase_trace(&w);
}

}  // namespace blksim::report
