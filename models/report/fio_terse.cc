// fio's terse output, version 3 (--output-format=terse, --minimal): stat.c
// show_thread_status_terse_all() of fio 3.33, one line per job (per group with
// group_reporting), fields separated by ';':
//
//   3;<version>;<jobname>;<groupid>;<error>
//   then for read, then write (41 fields each):
//     io KiB;bw KiB/s;IOPS;runtime ms
//     slat min;max;mean;stdev (usec)   clat min;max;mean;stdev (usec)
//     20 clat percentiles "p%=usec" (fio's 17 defaults, then "0%=0" up to FIO_IO_U_LIST_MAX_LEN)
//     lat min;max;mean;stdev (usec)    bw min;max;agg%;mean;stdev (KiB/s)
//   usr%;sys%;ctx;majf;minf
//   7 IO depth buckets, 10 usec latency buckets (the nsec ones added to the first), 12 msec
//   then per disk: name;read ios;write ios;read merges;write merges;read ticks;write ticks;
//   in_queue;util%
//
// 121 fields plus 9 per disk. Values are the ones the normal and JSON reports print, in
// terse's units: latencies in whole usec (integer division of ns, as fio does) with %f means.
// What blksim does not model is what fio prints when it has nothing: majf and minf 0, no
// continue_on_error or description fields. The version field is blksim's ("blksim-0.1", as the
// JSON's "fio version"); fio prints "fio-3.33" there.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/report/fio_format.h"
#include "models/report/fio_output.h"

namespace blksim::report {

namespace {

// fio's FIO_IO_U_LIST_MAX_LEN: terse always prints this many percentile fields.
constexpr std::size_t TERSE_PERCENTILES = 20;

void add_lat_usec(std::string& out, const sim::RunningStat& stat) {
    const fio::LatStat s = fio::calc_lat(stat);
    if (!s.samples) {
        out += ";0;0;0.000000;0.000000";
        return;
    }
    fmt::format_to(std::back_inserter(out), ";{};{};{:f};{:f}", s.min / 1000, s.max / 1000,
                   s.mean / 1000.0, s.dev / 1000.0);
}

// stat.c show_ddir_status_terse().
void show_ddir_status_terse(std::string& out, const JobResult& t, const fio::GroupRunStats& rs, Ddir d) {
    const DirResult& dr = t.dir[d];
    const uint64_t runt = fio::ddir_runtime_msec(t, d);
    uint64_t bw = 0, iops = 0;
    if (runt) {
        bw = 1000 * dr.io_bytes / runt / 1024;
        iops = 1000 * dr.total_ios / runt;
    }
    fmt::format_to(std::back_inserter(out), ";{};{};{};{}", dr.io_bytes >> 10, bw, iops, runt);
    add_lat_usec(out, dr.slat);
    add_lat_usec(out, dr.clat);

    // lat_percentiles' or else clat_percentiles' values (neither: none). fio computes them
    // even without samples: every value is then bucket 0's, 0.
    const result::JobOptions& c = t.options;
    const sim::LatencyHistogram* hist = c.percentiles.lat ? (dr.lat_hist ? &*dr.lat_hist : nullptr)
                                        : c.percentiles.clat ? &dr.clat_hist
                                                             : nullptr;
    const std::span<const double> plist =
        c.percentiles.lat || c.percentiles.clat ? fio::percentile_list(c) : std::span<const double>();
    std::vector<uint64_t> ovals(plist.size(), 0);
    if (hist && hist->total())
        ovals = hist->percentiles(plist);
    for (std::size_t i = 0; i < TERSE_PERCENTILES; ++i) {
        if (i < plist.size())
            fmt::format_to(std::back_inserter(out), ";{:f}%={}", plist[i], ovals[i] / 1000);
        else
            out += ";0%=0";
    }
    add_lat_usec(out, dr.lat);

    const fio::SampleStat bws = fio::bw_kib(dr);
    if (!bws.samples) {
        out += ";0;0;0.000000%;0.000000;0.000000";
        return;
    }
    // Terse's own share formula (not convert_agg_kbytes_percent()): the group's aggregate in
    // whole KiB/s. fio would divide by zero below 1 KiB/s; blksim says 100%.
    double p_of_agg = 100.0;
    if (rs.agg[d]) {
        const uint64_t agg_kib = rs.agg[d] / 1024;
        p_of_agg = agg_kib ? std::min(bws.mean * 100.0 / static_cast<double>(agg_kib), 100.0) : 100.0;
    }
    fmt::format_to(std::back_inserter(out), ";{};{};{:f}%;{:f};{:f}", bws.min, bws.max, p_of_agg, bws.mean,
                   bws.dev);
}

// stat.c show_thread_status_terse_all(), version 3.
std::string show_thread_status_terse(const JobResult& t, const fio::GroupRunStats& rs,
                                     const std::vector<DiskUtil>& disks) {
    std::string out = fmt::format("3;blksim-0.1;{};{};{}", t.name, t.groupid, t.error);
    show_ddir_status_terse(out, t, rs, DDIR_READ);
    show_ddir_status_terse(out, t, rs, DDIR_WRITE);

    const fio::CpuUsage cpu = fio::cpu_usage(t);
    fmt::format_to(std::back_inserter(out), ";{:f}%;{:f}%;{};0;0", cpu.usr, cpu.sys, t.ctx);

    const uint64_t total = fio::ddir_rw_sum_ios(t);
    for (double p : fio::stat_calc_dist(t.depth.level, t.depth.level_samples))
        fmt::format_to(std::back_inserter(out), ";{:3.1f}%", p);

    // stat_calc_lat_nu(): terse has no nsec buckets; their share goes to the first usec one.
    const LatDist b = fio::lat_dist(t);
    std::array<double, 10> lat_u = fio::stat_calc_lat(b.u, total);
    if (total) {
        uint64_t ntotal = 0;
        for (uint64_t c : b.n)
            ntotal += c;
        lat_u[0] += 100.0 * static_cast<double>(ntotal) / static_cast<double>(total);
    }
    for (double p : lat_u)
        fmt::format_to(std::back_inserter(out), ";{:3.2f}%", p);
    for (double p : fio::stat_calc_lat(b.m, total))
        fmt::format_to(std::back_inserter(out), ";{:3.2f}%", p);

    // diskutil.c print_disk_util(), terse: every disk on every job's line.
    for (const DiskUtil& du : disks)
        fmt::format_to(std::back_inserter(out), ";{};{};{};{};{};{};{};{};{:3.2f}%", du.name, du.ios[0], du.ios[1],
                       du.merges[0], du.merges[1], du.ticks[0], du.ticks[1], du.in_queue,
                       std::min(du.util, 100.0));
    out += '\n';
    return out;
}

}  // namespace

std::string format_terse(const RunResult& r, bool group_reporting) {
    const std::vector<JobResult> ts = fio::reported_stats(r, group_reporting);
    const std::vector<fio::GroupRunStats> groups = fio::group_run_stats(ts);
    std::string out;
    for (const JobResult& t : ts)
        out += show_thread_status_terse(t, fio::group_of(groups, t.groupid), r.disks);
    return out;
}

const OutputFormat kTerseFormat = {
    "terse", "fio's terse version 3: one ';'-separated line per job, or per group, nothing else", OutputSlot::TERSE,
    nullptr, format_terse,
};

}  // namespace blksim::report
