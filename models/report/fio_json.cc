// fio's --output-format=json report (json+: the same plus latency "bins"), with fio 3.33's
// keys, nesting and number formats (integers as integers, doubles as printf "%f"), printed
// with fio's json.c layout. What fio takes from the wall clock (timestamps, date, elapsed)
// is fixed or derived from simulated time so that output is deterministic. After fio's keys
// comes blksim's own "blksim" object (per-queue btt stages and tags, per-CPU time), the
// JSON side of format_blksim_extras().
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "models/report/fio_format.h"
#include "models/report/fio_output.h"

namespace blksim::report {

namespace {

using fio::N2S;

// A streaming writer reproducing fio's json_print_object(): "{" then one "key" : value pair
// per line, indented two spaces per level, ",\n" between items, and the closing bracket on
// its own line at the container's level. An empty container prints as "{}" / "[]".
class FioJsonWriter {
public:
    void open_object(std::string_view key) { begin_item(key); open('{'); }
    void open_object() { begin_item({}); open('{'); }
    void close_object() { close('}'); }
    void open_array(std::string_view key) { begin_item(key); open('['); }
    void close_array() { close(']'); }

    void add_int(std::string_view key, uint64_t v) {
        begin_item(key);
        fmt::format_to(std::back_inserter(out_), "{}", v);
    }
    void add_signed(std::string_view key, int64_t v) {
        begin_item(key);
        fmt::format_to(std::back_inserter(out_), "{}", v);
    }
    // fio prints doubles with "%f". A NaN or infinity would not be JSON; there is none in a
    // sane result, but print 0 rather than break every parser if one appears.
    void add_float(std::string_view key, double v) {
        begin_item(key);
        fmt::format_to(std::back_inserter(out_), "{:f}", std::isfinite(v) ? v : 0.0);
    }
    void add_string(std::string_view key, std::string_view v) {
        begin_item(key);
        out_ += '"';
        out_ += escape(v);
        out_ += '"';
    }

    std::string take() { return std::move(out_); }

    // fio's --output-format=json+ (FIO_OUTPUT_JSON_PLUS, a global in fio): every latency
    // object that prints percentiles also gets its histogram's "bins".
    bool json_plus = false;

private:
    // fio escapes '\' and '"'; control characters are escaped too so the output stays JSON.
    static std::string escape(std::string_view s) {
        std::string e;
        for (const char c : s) {
            if (c == '\\' || c == '"') {
                e += '\\';
                e += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                fmt::format_to(std::back_inserter(e), "\\u{:04x}", static_cast<unsigned>(c));
            } else {
                e += c;
            }
        }
        return e;
    }

    void indent(std::size_t level) { out_.append(2 * level, ' '); }

    // Separator and indentation before an item of the innermost container; `key` is empty
    // for array elements and the root.
    void begin_item(std::string_view key) {
        if (first_.empty())
            return;  // the root object
        out_ += first_.back() ? "\n" : ",\n";
        first_.back() = false;
        indent(first_.size());
        if (!key.empty()) {
            out_ += '"';
            out_ += escape(key);
            out_ += "\" : ";
        }
    }
    void open(char bracket) {
        out_ += bracket;
        first_.push_back(true);
    }
    void close(char bracket) {
        const bool empty = first_.back();
        first_.pop_back();
        if (!empty) {
            out_ += '\n';
            indent(first_.size());
        }
        out_ += bracket;
    }

    std::string out_;
    std::vector<bool> first_;  // per open container: nothing written into it yet
};

// fio's option strings for sizes are what the job file said; blksim writes them in fio's
// short form ("4k", "1m"), and "r,w" when the directions differ.
std::string short_size(uint64_t v) {
    if (v && v % (1024 * 1024) == 0)
        return fmt::format("{}m", v / (1024 * 1024));
    if (v && v % 1024 == 0)
        return fmt::format("{}k", v / 1024);
    return fmt::format("{}", v);
}

std::string per_ddir(const std::string& r, const std::string& w) {
    return r == w ? r : r + "," + w;
}

// bs, or the bsrange / bssplit the job was given (bssplit with the percentages fio filled in).
std::pair<std::string_view, std::string> bs_option(const JobOptions& o) {
    std::string text[2];
    const bool split = !o.bs[0].split.empty() || !o.bs[1].split.empty();
    const bool range = o.bs[0].max || o.bs[1].max;
    for (unsigned d = 0; d < 2; ++d) {
        if (split && !o.bs[d].split.empty()) {
            for (const SizeShare& e : o.bs[d].split)
                text[d] += (text[d].empty() ? "" : ":") + short_size(e.bs) + "/" + std::to_string(e.percent);
        } else if (range && !split) {
            text[d] = short_size(o.bs[d].min) + "-" + short_size(o.bs[d].largest());
        } else {
            text[d] = short_size(o.bs[d].min);
        }
    }
    return {split ? "bssplit" : range ? "bsrange" : "bs", per_ddir(text[0], text[1])};
}

// The job options blksim models (fio lists only those the job file set).
void json_add_job_opts(FioJsonWriter& w, const JobOptions& o) {
    w.open_object("job options");
    w.add_string("rw", o.rw);
    const auto [bs_name, bs_value] = bs_option(o);
    w.add_string(bs_name, bs_value);
    w.add_string("ioengine", o.ioengine);
    w.add_string("iodepth", fmt::format("{}", o.iodepth));
    w.add_string("numjobs", fmt::format("{}", o.numjobs));
    w.close_object();
}

// json+: stat.c add_ddir_lat_json()'s "bins", one "value" : count per non-empty bucket in
// index order, the value being plat_idx_to_val() of the bucket (its midpoint, in ns).
void add_bins_json(FioJsonWriter& w, const sim::LatencyHistogram& hist) {
    w.open_object("bins");
    for (unsigned i = 0; i < sim::LatencyHistogram::PLAT_NR; ++i)
        if (const uint64_t n = hist.bin(i))
            w.add_int(fmt::format("{}", sim::LatencyHistogram::idx_to_val(i)), n);
    w.close_object();
}

// stat.c add_ddir_lat_json(): min/max/mean/stddev/N, plus the percentiles when asked for
// and there are samples (and with json+, the bins after them).
void add_ddir_lat_json(FioJsonWriter& w, std::string_view key, const sim::RunningStat& stat,
                       const sim::LatencyHistogram* hist, std::span<const double> plist) {
    const fio::LatStat s = fio::calc_lat(stat);
    w.open_object(key);
    w.add_int("min", s.min);
    w.add_int("max", s.max);
    w.add_float("mean", s.mean);
    w.add_float("stddev", s.dev);
    w.add_int("N", s.samples);
    if (hist && s.samples) {
        const std::vector<uint64_t> ovals = hist->percentiles(plist);
        w.open_object("percentile");
        for (std::size_t i = 0; i < plist.size(); ++i)
            w.add_int(fmt::format("{:f}", plist[i]), ovals[i]);
        w.close_object();
        if (w.json_plus)
            add_bins_json(w, *hist);
    }
    w.close_object();
}

// stat.c add_ddir_status_json()'s "prios" array, between "lat_ns" and "bw_min": one object
// per priority fio prints (see prios_to_show()), its latency under "clat_ns" ("lat_ns" with
// lat_percentiles), with percentiles when clat_percentiles or lat_percentiles is on. fio
// 3.33 has no "priohint" key yet.
void add_prios_json(FioJsonWriter& w, const DirResult& dr, const result::JobOptions& c) {
    const std::vector<const PrioResult*> prios = fio::prios_to_show(dr);
    if (prios.empty())
        return;
    const bool percentiles = c.percentiles.clat || c.percentiles.lat;
    const std::string key = fmt::format("{}_ns", fio::prio_lat_type(c));
    w.open_array("prios");
    for (const PrioResult* p : prios) {
        const uint32_t ioprio = fio::ioprio_value(*p);
        w.open_object();
        w.add_int("prioclass", fio::ioprio_class(ioprio));
        w.add_int("prio", fio::ioprio(ioprio));
        add_ddir_lat_json(w, key, p->clat, percentiles ? &p->clat_hist : nullptr, fio::percentile_list(c));
        w.close_object();
    }
    w.close_array();
}

// stat.c add_ddir_status_json() for read/write/trim. `runt` is 0 for a direction without
// data, which zeroes the rates as fio does.
void add_ddir_status_json(FioJsonWriter& w, std::string_view name, const DirResult& dr,
                          uint64_t runt, const fio::GroupRunStats* rs, Ddir d, const result::JobOptions& c) {
    uint64_t bw_bytes = 0, bw = 0;
    double iops = 0.0;
    if (runt) {
        bw_bytes = 1000 * dr.io_bytes / runt;
        bw = bw_bytes / 1024;
        iops = 1000.0 * static_cast<double>(dr.total_ios) / static_cast<double>(runt);
    }
    w.open_object(name);
    w.add_int("io_bytes", dr.io_bytes);
    w.add_int("io_kbytes", dr.io_bytes >> 10);
    w.add_int("bw_bytes", bw_bytes);
    w.add_int("bw", bw);
    w.add_float("iops", iops);
    w.add_int("runtime", runt);
    w.add_int("total_ios", dr.total_ios + dr.failed_ios);  // fio's total_io_u: issued
    w.add_int("short_ios", 0);
    w.add_int("drop_ios", 0);
    // Percentiles where the job asks for them (fio's default: clat only).
    const std::span<const double> plist = fio::percentile_list(c);
    const auto asked = [](bool on, const std::optional<sim::LatencyHistogram>& h) { return on && h ? &*h : nullptr; };
    add_ddir_lat_json(w, "slat_ns", dr.slat, asked(c.percentiles.slat, dr.slat_hist), plist);
    add_ddir_lat_json(w, "clat_ns", dr.clat, c.percentiles.clat ? &dr.clat_hist : nullptr, plist);
    add_ddir_lat_json(w, "lat_ns", dr.lat, asked(c.percentiles.lat, dr.lat_hist), plist);
    add_prios_json(w, dr, c);

    const fio::SampleStat bws = fio::bw_kib(dr);
    const double p_of_agg =
        bws.samples && rs ? fio::convert_agg_kbytes_percent(*rs, d, bws.mean) : 0.0;
    w.add_int("bw_min", bws.min);
    w.add_int("bw_max", bws.max);
    w.add_float("bw_agg", p_of_agg);
    w.add_float("bw_mean", bws.mean);
    w.add_float("bw_dev", bws.dev);
    w.add_int("bw_samples", bws.samples);

    const fio::SampleStat io = fio::iops(dr);
    w.add_int("iops_min", io.min);
    w.add_int("iops_max", io.max);
    w.add_float("iops_mean", io.mean);
    w.add_float("iops_stddev", io.dev);
    w.add_int("iops_samples", io.samples);
    w.close_object();
}

// stat.c add_ddir_status_json(DDIR_SYNC): the fsyncs issued and the sync latency, with
// percentiles (lat_percentiles | clat_percentiles: clat's default is on) once there are any.
void add_sync_status_json(FioJsonWriter& w, const SyncResult& s, const result::JobOptions& c) {
    w.open_object("sync");
    w.add_int("total_ios", s.total_ios);
    add_ddir_lat_json(w, "lat_ns", s.lat, c.percentiles.clat || c.percentiles.lat ? &s.hist : nullptr,
                      fio::percentile_list(c));
    w.close_object();
}

template <std::size_t N>
void add_pct_object(FioJsonWriter& w, std::string_view key, const std::array<double, N>& pct,
                    std::span<const std::string_view> labels) {
    w.open_object(key);
    for (std::size_t i = 0; i < N; ++i)
        w.add_float(labels[i], pct[i]);
    w.close_object();
}

// stat.c show_thread_status_json(): one job (or merged group) object.
void show_thread_status_json(FioJsonWriter& w, const JobResult& t, const fio::GroupRunStats& rs,
                             uint64_t elapsed_sec) {
    w.open_object();
    w.add_string("jobname", t.name);
    w.add_int("groupid", t.groupid);
    w.add_int("error", static_cast<uint64_t>(std::max(t.error, 0)));
    w.add_int("eta", 0);
    w.add_int("elapsed", elapsed_sec);
    json_add_job_opts(w, t.options);

    add_ddir_status_json(w, "read", t.dir[DDIR_READ], fio::ddir_runtime_msec(t, DDIR_READ), &rs,
                         DDIR_READ, t.options);
    add_ddir_status_json(w, "write", t.dir[DDIR_WRITE], fio::ddir_runtime_msec(t, DDIR_WRITE), &rs,
                         DDIR_WRITE, t.options);
    add_ddir_status_json(w, "trim", t.dir[DDIR_TRIM], fio::ddir_runtime_msec(t, DDIR_TRIM), &rs,
                         DDIR_TRIM, t.options);
    add_sync_status_json(w, t.sync, t.options);

    const fio::CpuUsage cpu = fio::cpu_usage(t);
    w.add_int("job_runtime", fio::runtime_msec(t.total_run_time()));
    w.add_float("usr_cpu", cpu.usr);
    w.add_float("sys_cpu", cpu.sys);
    w.add_int("ctx", t.ctx);
    w.add_int("majf", 0);
    w.add_int("minf", 0);

    const uint64_t total = fio::ddir_rw_sum_ios(t);
    static constexpr std::array<std::string_view, 7> level_keys = {"1", "2", "4", "8", "16", "32", ">=64"};
    static constexpr std::array<std::string_view, 7> batch_keys = {"0", "4", "8", "16", "32", "64", ">=64"};
    add_pct_object(w, "iodepth_level", fio::stat_calc_dist(t.depth.level, t.depth.level_samples),
                   level_keys);
    add_pct_object(w, "iodepth_submit", fio::stat_calc_dist(t.depth.submit, t.depth.submit_calls),
                   batch_keys);
    add_pct_object(w, "iodepth_complete",
                   fio::stat_calc_dist(t.depth.complete, t.depth.complete_calls), batch_keys);

    // Completion-latency distribution, as in the normal report's "lat (usec)" lines.
    const LatDist b = fio::lat_dist(t);
    add_pct_object(w, "latency_ns", fio::stat_calc_lat(b.n, total), fio::LAT_RANGES);
    add_pct_object(w, "latency_us", fio::stat_calc_lat(b.u, total), fio::LAT_RANGES);
    add_pct_object(w, "latency_ms", fio::stat_calc_lat(b.m, total), fio::LAT_RANGES);

    // No latency_target in blksim: fio reports the job's depth, target/window 0, 100%.
    if (t.options.iodepth) {
        w.add_int("latency_depth", t.options.iodepth);
        w.add_int("latency_target", 0);
        w.add_float("latency_percentile", 100.0);
        w.add_int("latency_window", 0);
    }
    w.close_object();
}

// stat.c json_array_add_disk_util() (fio 3.33 fields).
void json_add_disk_utils(FioJsonWriter& w, const std::vector<DiskUtil>& disks) {
    if (disks.empty())
        return;  // fio omits "disk_util" when it tracked no disk
    w.open_array("disk_util");
    for (const DiskUtil& du : disks) {
        w.open_object();
        w.add_string("name", du.name);
        w.add_int("read_ios", du.ios[0]);
        w.add_int("write_ios", du.ios[1]);
        w.add_int("read_merges", du.merges[0]);
        w.add_int("write_merges", du.merges[1]);
        w.add_int("read_ticks", du.ticks[0]);
        w.add_int("write_ticks", du.ticks[1]);
        w.add_int("in_queue", du.in_queue);
        w.add_float("util", std::min(du.util, 100.0));
        w.close_object();
    }
    w.close_array();
}

// blksim's btt stage (ns) in the shape of fio's latency objects: N, mean, exact min/max,
// and the percentiles the text section prints (within min and max), keyed like fio's
// ("99.900000").
void add_stage_json(FioJsonWriter& w, std::string_view key, const StageStat& s) {
    static constexpr std::array<double, 4> plist = {50.0, 90.0, 99.0, 99.9};
    w.open_object(key);
    w.add_int("N", s.stat.count());
    w.add_float("mean", s.stat.mean());
    w.add_int("min", static_cast<uint64_t>(s.stat.min()));
    w.add_int("max", static_cast<uint64_t>(s.stat.max()));
    const std::vector<uint64_t> vals = s.percentiles(plist);
    w.open_object("percentile");
    for (std::size_t i = 0; i < plist.size(); ++i)
        w.add_int(fmt::format("{:f}", plist[i]), vals[i]);
    w.close_object();
    w.close_object();
}

void add_queue_json(FioJsonWriter& w, const QueueReport& q) {
    w.open_object();
    w.add_string("name", q.name);
    w.add_string("scheduler", q.scheduler);
    w.add_int("nr_hw_queues", q.nr_hw_queues);
    w.add_int("tag_depth", q.tag_depth);
    w.add_float("tags_in_use_mean", q.tags_in_use_mean);
    if (q.tag_set_queues > 1)  // (only when shared, as the text line says it)
        w.add_int("tag_set_queues", q.tag_set_queues);
    w.add_int("tag_sleeps", q.tag_sleeps);
    if (q.has_elevator) {  // (only with an elevator, as the text line says them)
        w.add_int("sched_tag_sleeps", q.sched_tag_sleeps);
        w.add_int("driver_tag_waits", q.driver_tag_waits);
    }
    w.add_int("direct_issues", q.direct_issues);
    w.add_int("inserts", q.inserts);
    w.add_int("resource_requeues", q.resource_requeues);
    w.add_int("requeues", q.requeues);
    w.add_int("budget", q.budget);
    w.add_int("budget_exhausted", q.budget_exhausted);
    if (q.resched_handoffs)  // (only when some happened, as the text line says them)
        w.add_int("resched_handoffs", q.resched_handoffs);
    if (q.flushes) {  // (only with flushes: other runs' JSON has no such keys)
        w.add_int("flushes", q.flushes);
        w.add_int("flush_time_ns", static_cast<uint64_t>(q.flush_time.count()));
    }
    w.open_array("locks");
    for (const LockReport& l : q.locks) {
        w.open_object();
        w.add_string("name", l.name);
        w.add_int("instances", l.instances);
        w.add_int("acquisitions", l.acquisitions);
        w.add_int("contended", l.contended);
        w.add_int("wait_ns", static_cast<uint64_t>(l.wait.count()));
        w.add_int("wait_max_ns", static_cast<uint64_t>(l.wait_max.count()));
        w.add_int("held_ns", static_cast<uint64_t>(l.held.count()));
        w.close_object();
    }
    w.close_array();
    w.open_object("stages_ns");
    add_stage_json(w, "q2g", q.q2g);
    add_stage_json(w, "g2i", q.g2i);
    add_stage_json(w, "i2d", q.i2d);
    add_stage_json(w, "d2c", q.d2c);
    add_stage_json(w, "q2c", q.q2c);
    w.close_object();
    w.close_object();
}

void add_cpu_json(FioJsonWriter& w, const CpuReport& c, sim::Duration sim_time) {
    auto pct = [&](sim::Duration d) {
        return sim_time.count() > 0
                   ? 100.0 * static_cast<double>(d.count()) / static_cast<double>(sim_time.count())
                   : 0.0;
    };
    w.open_object();
    w.add_int("id", c.id);
    w.add_int("busy_ns", static_cast<uint64_t>(c.busy.count()));
    w.add_int("irq_ns", static_cast<uint64_t>(c.irq.count()));
    w.add_float("busy_pct", pct(c.busy));
    w.add_float("irq_pct", pct(c.irq));
    w.add_int("spin_ns", static_cast<uint64_t>(c.spin.count()));
    w.add_float("spin_pct", pct(c.spin));
    w.close_object();
}

// A device model's own figures (Device::report): one object, integers where the model
// gave no decimals.
void add_device_json(FioJsonWriter& w, const DeviceReport& d) {
    w.open_object();
    w.add_string("name", d.name);
    w.add_string("model", d.model);
    for (const auto& line : d.lines)
        for (const DeviceReport::Field& f : line) {
            if (f.decimals > 0)
                w.add_float(f.key, f.value);
            else if (f.value < 0)
                w.add_signed(f.key, static_cast<int64_t>(f.value));  // bfq's hw_tag -1: not yet known
            else
                w.add_int(f.key, static_cast<uint64_t>(f.value));
        }
    w.close_object();
}

// blksim's own object after fio's keys (the JSON side of format_blksim_extras()). Tools that
// read fio's JSON ignore an unknown top-level key. Like "disk_util", it is left out when the
// run has nothing to put in it.
void add_blksim_json(FioJsonWriter& w, const RunResult& r) {
    if (r.queues.empty() && r.cpus.empty())
        return;
    w.open_object("blksim");
    w.open_array("queues");
    for (const QueueReport& q : r.queues)
        add_queue_json(w, q);
    w.close_array();
    w.open_array("cpus");
    for (const CpuReport& c : r.cpus)
        add_cpu_json(w, c, r.sim_time);
    w.close_array();
    if (!r.devices.empty()) {
        w.open_array("devices");
        for (const DeviceReport& d : r.devices)
            add_device_json(w, d);
        w.close_array();
    }
    w.close_object();
}

}  // namespace

std::string format_json(const RunResult& r, bool group_reporting, bool json_plus) {
    const std::vector<JobResult> ts = fio::reported_stats(r, group_reporting);
    const std::vector<fio::GroupRunStats> groups = fio::group_run_stats(ts);
    // fio's "elapsed" is whole seconds since start, rounded up; here, of simulated time.
    const uint64_t elapsed_sec = (fio::runtime_msec(r.sim_time) + 999) / 1000;

    FioJsonWriter w;
    w.json_plus = json_plus;
    w.open_object();
    w.add_string("fio version", "blksim-0.1");
    w.add_int("timestamp", 0);
    w.add_int("timestamp_ms", 0);
    w.add_string("time", fio::REPORT_CTIME);
    w.open_object("global options");
    w.close_object();
    w.open_array("jobs");
    for (const JobResult& t : ts)
        show_thread_status_json(w, t, fio::group_of(groups, t.groupid), elapsed_sec);
    w.close_array();
    json_add_disk_utils(w, r.disks);
    add_blksim_json(w, r);
    w.close_object();
    return w.take() + "\n";
}

namespace {
std::string print_json(const RunResult& r, bool group_reporting) { return format_json(r, group_reporting); }
std::string print_json_plus(const RunResult& r, bool group_reporting) {
    return format_json(r, group_reporting, true);
}
}  // namespace

const OutputFormat kJsonFormat = {
    "json", "fio's JSON report, blksim's figures in its \"blksim\" object", OutputSlot::JSON, nullptr, print_json,
};
const OutputFormat kJsonPlusFormat = {
    "json+", "json plus each clat histogram's non-empty buckets as \"bins\"", OutputSlot::JSON, nullptr,
    print_json_plus,
};

}  // namespace blksim::report
