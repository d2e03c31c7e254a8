// fio's default (--output-format=normal) report, laid out as fio 3.33's stat.c prints it:
// the job description lines fio prints at start-up, one status block per job (or per group
// with group_reporting), the "Run status group" summaries and the disk statistics. The
// wall-clock date fio puts on each job's header line is fio::REPORT_CTIME, as in the JSON.
#include <algorithm>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "models/report/fio_format.h"
#include "models/report/fio_output.h"

namespace blksim::report {

namespace {

using fio::N2S;

// init.c add_job(): "name: (g=0): rw=..., bs=(R) 4096B-64.0KiB, ..., ioengine=..., iodepth=N":
// each direction's min_bs-max_bs (bs=r,w gives trims the last value: JobConfig::bs_trim).
std::string job_description(const JobResult& j) {
    const JobOptions& o = j.options;
    auto bs = [](uint64_t v) { return fio::num2str(v, fio::SIG_FIGS, 1, true, N2S::BYTE); };
    const std::string rmin = bs(o.bs[0].min), rmax = bs(o.bs[0].largest());
    const std::string wmin = bs(o.bs[1].min), wmax = bs(o.bs[1].largest());
    const std::string tmin = bs(o.bs[2].min), tmax = bs(o.bs[2].largest());
    return fmt::format("{}: (g={}): rw={}, bs=(R) {}-{}, (W) {}-{}, (T) {}-{}, ioengine={}, iodepth={}\n",
                       j.name, j.groupid, o.rw, rmin, rmax, wmin, wmax, tmin, tmax, o.ioengine,
                       o.iodepth);
}

// The start-up lines: one description per job, "..." once for its numjobs clones, then the
// version line (blksim's instead of "fio-3.33") and the process count.
std::string show_job_descriptions(const RunResult& r) {
    std::string out;
    std::size_t clone_run = 0;  // position within a run of same-named numjobs clones
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
        const JobResult& j = r.jobs[i];
        const uint32_t numjobs = std::max<uint32_t>(1, j.options.numjobs);
        const bool clone = i > 0 && numjobs > 1 && r.jobs[i - 1].name == j.name;
        clone_run = clone ? clone_run + 1 : 0;
        const std::size_t job_add_num = clone_run % numjobs;
        if (job_add_num == 0)
            out += job_description(j);
        else if (job_add_num == 1)
            out += "...\n";
    }
    out += "blksim\n";
    const std::size_t n = r.jobs.size();
    out += fmt::format("Starting {} process{}\n", n, n > 1 ? "es" : "");
    return out;
}

// stat.c show_ddir_status(), per-priority part 1: one "clat prio <class>/<level>" stat
// line per priority ("lat prio" with lat_percentiles), after the " lat" line, in
// display_lat()'s units.
std::string show_prio_lat(const std::vector<const PrioResult*>& prios, std::string_view type) {
    std::string out;
    for (const PrioResult* p : prios)
        out += fio::display_lat(fmt::format("{} {}", type, fio::prio_name(*p)), fio::calc_lat(p->clat));
    return out;
}

// Part 2: after the direction's percentiles, one block per priority headed with its share
// of the direction's completions, e.g. "clat prio 0/0 (89.99% of IOs) percentiles".
std::string show_prio_percentiles(const std::vector<const PrioResult*>& prios, uint64_t samples,
                                  const result::JobOptions& c) {
    std::string out;
    for (const PrioResult* p : prios) {
        const double share = 100.0 * static_cast<double>(p->clat.count()) / static_cast<double>(samples);
        out += fio::show_clat_percentiles(
            p->clat_hist, fmt::format("{} {} ({:.2f}% of IOs)", fio::prio_lat_type(c), fio::prio_name(*p), share),
            fio::percentile_list(c), c.percentiles.precision);
    }
    return out;
}

// stat.c show_ddir_status(): the "read:"/"write:" line, the slat/clat/lat lines, the
// percentiles the job asked for (slat_percentiles, clat_percentiles, lat_percentiles; the
// per-priority ones after them, when the job used several priorities) and the bw/iops
// sample lines of one direction.
std::string show_ddir_status(const fio::GroupRunStats& rs, const JobResult& t, Ddir d) {
    const DirResult& dr = t.dir[d];
    const result::JobOptions& c = t.options;
    const uint64_t runt = fio::ddir_runtime_msec(t, d);
    if (!runt)
        return {};

    const uint64_t bw = 1000 * dr.io_bytes / runt;
    const uint64_t iops = 1000 * dr.total_ios / runt;
    std::string out = fmt::format(
        "  {}: IOPS={}, BW={} ({})({}/{}msec)\n", fio::ddir_name(d),
        fio::num2str(iops, fio::SIG_FIGS, 1, false, N2S::NONE),
        fio::num2str(bw, fio::SIG_FIGS, 1, true, N2S::BYTEPERSEC),
        fio::num2str(bw, fio::SIG_FIGS, 1, false, N2S::BYTEPERSEC),
        fio::num2str(dr.io_bytes, fio::SIG_FIGS, 1, true, N2S::BYTE), runt);

    if (dr.slat.count())
        out += fio::display_lat("slat", fio::calc_lat(dr.slat));
    if (dr.clat.count())
        out += fio::display_lat("clat", fio::calc_lat(dr.clat));
    if (dr.lat.count())
        out += fio::display_lat(" lat", fio::calc_lat(dr.lat));
    const std::vector<const PrioResult*> prios = fio::prios_to_show(dr);
    out += show_prio_lat(prios, fio::prio_lat_type(c));
    const std::span<const double> plist = fio::percentile_list(c);
    const unsigned precision = c.percentiles.precision;
    if (c.percentiles.slat && dr.slat.count() && dr.slat_hist)
        out += fio::show_clat_percentiles(*dr.slat_hist, "slat", plist, precision);
    if (c.percentiles.clat && dr.clat.count())
        out += fio::show_clat_percentiles(dr.clat_hist, "clat", plist, precision);
    if (c.percentiles.lat && dr.lat.count() && dr.lat_hist)
        out += fio::show_clat_percentiles(*dr.lat_hist, "lat", plist, precision);
    if (c.percentiles.clat || c.percentiles.lat)
        out += show_prio_percentiles(prios, c.percentiles.lat ? dr.lat.count() : dr.clat.count(), c);

    const fio::SampleStat bws = fio::bw_kib(dr);
    if (bws.samples) {
        const double p_of_agg = fio::convert_agg_kbytes_percent(rs, d, bws.mean);
        // Past 1 GiB/s average fio switches the line to MiB/s.
        std::string_view bw_str = "KiB";
        uint64_t min = bws.min, max = bws.max;
        double mean = bws.mean, dev = bws.dev;
        if (mean > 1024.0 * 1024.0) {
            min = static_cast<uint64_t>(static_cast<double>(min) / 1024.0);
            max = static_cast<uint64_t>(static_cast<double>(max) / 1024.0);
            mean /= 1024.0;
            dev /= 1024.0;
            bw_str = "MiB";
        }
        out += fmt::format(
            "   bw ({:>5}/s): min={:5}, max={:5}, per={:3.2f}%, avg={:5.2f}, stdev={:5.2f}, samples={}\n",
            bw_str, min, max, p_of_agg, mean, dev, bws.samples);
    }
    const fio::SampleStat io = fio::iops(dr);
    if (io.samples)
        out += fmt::format("   iops        : min={:5}, max={:5}, avg={:5.2f}, stdev={:5.2f}, samples={}\n",
                           io.min, io.max, io.mean, io.dev, io.samples);
    return out;
}

// stat.c show_lat(): up to five "label=percent%" entries per "  lat (unit)   : " line,
// nonzero buckets only.
template <std::size_t N>
std::string show_lat(const std::array<double, N>& pct, std::string_view unit) {
    std::string out;
    int on_line = 0;
    bool new_line = true, shown = false;
    for (std::size_t i = 0; i < N; ++i) {
        if (pct[i] <= 0.0)
            continue;
        shown = true;
        if (new_line) {
            if (on_line)
                out += "\n";
            out += fmt::format("  lat ({})   : ", unit);
            new_line = false;
            on_line = 0;
        }
        if (on_line)
            out += ", ";
        out += fmt::format("{}={:3.2f}%", fio::LAT_RANGES[i], pct[i]);
        if (++on_line == 5)
            new_line = true;
    }
    if (shown)
        out += "\n";
    return out;
}

// stat.c show_latencies(): the completion-latency distribution, as percent of all I/Os.
std::string show_latencies(const JobResult& t) {
    const LatDist b = fio::lat_dist(t);
    const uint64_t total = fio::ddir_rw_sum_ios(t);
    return show_lat(fio::stat_calc_lat(b.n, total), "nsec") +
           show_lat(fio::stat_calc_lat(b.u, total), "usec") +
           show_lat(fio::stat_calc_lat(b.m, total), "msec");
}

std::string show_depths(const JobResult& t) {
    const auto lvl = fio::stat_calc_dist(t.depth.level, t.depth.level_samples);
    const auto sub = fio::stat_calc_dist(t.depth.submit, t.depth.submit_calls);
    const auto cpl = fio::stat_calc_dist(t.depth.complete, t.depth.complete_calls);
    std::string out = fmt::format(
        "  IO depths    : 1={:3.1f}%, 2={:3.1f}%, 4={:3.1f}%, 8={:3.1f}%, 16={:3.1f}%, 32={:3.1f}%, >=64={:3.1f}%\n",
        lvl[0], lvl[1], lvl[2], lvl[3], lvl[4], lvl[5], lvl[6]);
    out += fmt::format(
        "     submit    : 0={:3.1f}%, 4={:3.1f}%, 8={:3.1f}%, 16={:3.1f}%, 32={:3.1f}%, 64={:3.1f}%, >=64={:3.1f}%\n",
        sub[0], sub[1], sub[2], sub[3], sub[4], sub[5], sub[6]);
    out += fmt::format(
        "     complete  : 0={:3.1f}%, 4={:3.1f}%, 8={:3.1f}%, 16={:3.1f}%, 32={:3.1f}%, 64={:3.1f}%, >=64={:3.1f}%\n",
        cpl[0], cpl[1], cpl[2], cpl[3], cpl[4], cpl[5], cpl[6]);
    return out;
}

// stat.c show_thread_status_normal(): one job's (or one merged group's) block.
std::string show_thread_status_normal(const JobResult& t, const fio::GroupRunStats& rs) {
    const DirResult& rd = t.dir[DDIR_READ];
    const DirResult& wr = t.dir[DDIR_WRITE];
    const DirResult& tr = t.dir[DDIR_TRIM];
    // fio: !ddir_rw_sum(io_bytes) && !ddir_rw_sum(total_io_u), the issued I/Os (a failed
    // trim's too).
    if (!rd.io_bytes && !wr.io_bytes && !tr.io_bytes && !fio::ddir_rw_sum_issued(t))
        return {};

    std::string out;
    if (!t.error)
        out += fmt::format("{}: (groupid={}, jobs={}): err={:2}: pid={}: {}\n", t.name, t.groupid,
                           t.nr_jobs, t.error, t.pid, fio::REPORT_CTIME);
    else
        out += fmt::format("{}: (groupid={}, jobs={}): err={:2} ({}): pid={}: {}\n", t.name, t.groupid,
                           t.nr_jobs, t.error,
                           t.verror.empty() ? std::generic_category().message(t.error) : t.verror, t.pid,
                           fio::REPORT_CTIME);

    for (unsigned d = 0; d < DDIR_RWDIR_CNT; ++d)
        if (t.dir[d].io_bytes)
            out += show_ddir_status(rs, t, static_cast<Ddir>(d));
    out += show_latencies(t);
    // stat.c show_ddir_status(DDIR_SYNC), when the job synced (fio 3.33's heading).
    if (t.sync.lat.count() > 0) {
        out += "  fsync/fdatasync/sync_file_range:\n";
        out += fio::display_lat("sync", fio::calc_lat(t.sync.lat));
        out += fio::show_clat_percentiles(t.sync.hist, "sync", fio::percentile_list(t.options),
                                          t.options.percentiles.precision);
    }

    const fio::CpuUsage cpu = fio::cpu_usage(t);
    out += fmt::format("  cpu          : usr={:3.2f}%, sys={:3.2f}%, ctx={}, majf=0, minf=0\n",
                       cpu.usr, cpu.sys, t.ctx);
    out += show_depths(t);
    // The fourth total is DDIR_SYNC's: the fsyncs issued. A trim that failed was issued.
    out += fmt::format("     issued rwts: total={},{},{},{} short=0,0,0,0 dropped=0,0,0,0\n",
                       rd.total_ios, wr.total_ios, tr.total_ios + tr.failed_ios, t.sync.total_ios);
    // No latency_target in blksim: fio 3.33 then prints target/window 0 and the job's depth.
    if (t.options.iodepth)
        out += fmt::format("     latency   : target=0, window=0, percentile=100.00%, depth={}\n",
                           t.options.iodepth);
    return out;
}

// stat.c show_group_stats(): aggregate bandwidth, per-job min-max, total io, runtimes.
std::string show_group_stats(const fio::GroupRunStats& rs) {
    static constexpr std::string_view str[] = {"   READ", "  WRITE", "   TRIM"};
    std::string out = fmt::format("\nRun status group {} (all jobs):\n", rs.groupid);
    for (unsigned d = 0; d < DDIR_RWDIR_CNT; ++d) {
        if (!rs.max_run[d])
            continue;
        auto rate = [](uint64_t v, bool pow2) {
            return fio::num2str(v, fio::SIG_FIGS, 1, pow2, N2S::BYTEPERSEC);
        };
        auto bytes = [](uint64_t v, bool pow2) {
            return fio::num2str(v, fio::SIG_FIGS, 1, pow2, N2S::BYTE);
        };
        out += fmt::format("{}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec\n", str[d],
                           rate(rs.agg[d], true), rate(rs.agg[d], false), rate(rs.min_bw[d], true),
                           rate(rs.max_bw[d], true), rate(rs.min_bw[d], false),
                           rate(rs.max_bw[d], false), bytes(rs.iobytes[d], true),
                           bytes(rs.iobytes[d], false), rs.min_run[d], rs.max_run[d]);
    }
    return out;
}

// stat.c show_disk_util()/print_disk_util() (fio 3.33: no sectors= field).
std::string show_disk_util(const std::vector<DiskUtil>& disks) {
    if (disks.empty())
        return {};
    std::string out = "\nDisk stats (read/write):\n";
    for (const DiskUtil& du : disks)
        out += fmt::format("  {}: ios={}/{}, merge={}/{}, ticks={}/{}, in_queue={}, util={:3.2f}%\n",
                           du.name, du.ios[0], du.ios[1], du.merges[0], du.merges[1], du.ticks[0],
                           du.ticks[1], du.in_queue, std::min(du.util, 100.0));
    return out;
}

}  // namespace

std::string format_normal(const RunResult& r, bool group_reporting) {
    return format_normal_header(r) + format_normal_body(r, group_reporting);
}

// fio prints the start-up lines when the jobs start, the rest when they have ended; with
// --output-format=normal,terse the terse lines come in between (fio_output.cc).
std::string format_normal_header(const RunResult& r) {
    return show_job_descriptions(r);
}

std::string format_normal_body(const RunResult& r, bool group_reporting) {
    const std::vector<JobResult> ts = fio::reported_stats(r, group_reporting);
    const std::vector<fio::GroupRunStats> groups = fio::group_run_stats(ts);
    std::string out = "\n";
    for (const JobResult& t : ts)
        out += show_thread_status_normal(t, fio::group_of(groups, t.groupid));
    for (const fio::GroupRunStats& rs : groups)
        out += show_group_stats(rs);
    out += show_disk_util(r.disks);
    return out;
}

namespace {
// What follows the start-up lines: fio's statuses, group summaries and disk stats, then
// blksim's own section.
std::string print_normal(const RunResult& r, bool group_reporting) {
    return format_normal_body(r, group_reporting) + format_blksim_extras(r);
}
}  // namespace

const OutputFormat kNormalFormat = {
    "normal", "fio's text report, then blksim's section: btt stages, tags, CPUs, locks", OutputSlot::NORMAL,
    format_normal_header, print_normal,
};

}  // namespace blksim::report
