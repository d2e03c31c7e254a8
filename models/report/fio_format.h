// Number formatting and derived statistics shared by fio's text (fio_normal.cc) and JSON
// (fio_json.cc) reports. Each function is named after the fio 3.33 routine (stat.c,
// lib/num2str.c, io_u.c) whose rules it reproduces, so the printed digits match fio's.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/result/run_result.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace blksim::report {
// The formatters print the result structs the models fill.
using namespace blksim::result;
}  // namespace blksim::report

namespace blksim::report::fio {

// lib/num2str.h: the unit appended after the prefix.
enum class N2S { NONE, PERSEC, BYTE, BIT, BYTEPERSEC, BITPERSEC };

// fio's defaults: 4 significant figures (sig_figs), kb_base 1024, unit_base bytes.
inline constexpr int SIG_FIGS = 4;

// The date fio takes from the wall clock when it reports (the job header line's ctime(), the
// JSON "time"; "timestamp" 0 with it): a run starts at simulated time 0, printed as the Unix
// epoch in UTC, the same in every run so that output stays byte-identical.
inline constexpr std::string_view REPORT_CTIME = "Thu Jan  1 00:00:00 1970";

// lib/num2str.c: `num` (in units of `base`) with at most `maxlen` digits (a '.' counts),
// dividing by 1000 or 1024 (pow2) and adding a k/M/G (Ki/Mi/Gi) prefix until it fits.
// Rounds the way fio does (carry only when no decimals are left), e.g.
// num2str(352509825, 4, 1, true, BYTEPERSEC) == "336MiB/s".
std::string num2str(uint64_t num, int maxlen, int base, bool pow2, N2S units);

// A latency stat as fio's calc_lat() hands it to the printers (ns).
struct LatStat {
    uint64_t min = 0, max = 0;
    double mean = 0.0, dev = 0.0;
    uint64_t samples = 0;
};
LatStat calc_lat(const sim::RunningStat& s);

// stat.c display_lat(): "    <name> (nsec|usec|msec): min=..., max=..., avg=..., stdev=...\n",
// the unit chosen by nsec_to_msec()/nsec_to_usec() from min, max and stddev.
std::string display_lat(std::string_view name, const LatStat& s);

// stat.c show_clat_percentiles(): the "    clat percentiles (usec):" block, unit chosen
// from the smallest and largest percentile, values rounded up when scaled.
std::string show_clat_percentiles(const sim::LatencyHistogram& h, std::string_view pre,
                                  std::span<const double> plist =
                                      sim::LatencyHistogram::default_percentiles(),
                                  unsigned precision = 2);

// fio's per-priority completion latency (clat_prio), as stat.c prints it.
//
// fio keys an entry by its ioprio value (result::ioprio_value()).
using result::IOPRIO_CLASS_SHIFT;
using result::ioprio_value;
unsigned ioprio_class(uint32_t value);  // "prioclass"
unsigned ioprio(uint32_t value);        // "prio", the level
// "prio <class>/<level>", the name fio 3.33 gives an entry after "clat ".
std::string prio_name(const PrioResult& p);

// The job's percentile_list (fio's default list when it gave none), ascending.
std::span<const double> percentile_list(const result::JobOptions& c);
// "lat" with lat_percentiles (the per-priority statistics are then of the total latency),
// else "clat": stat.c's clat_type.
std::string_view prio_lat_type(const result::JobOptions& c);
// The entries fio prints for a direction: those with samples, in the job's order, and only
// when at least two have samples (stat.c get_nr_prios_with_samples() >= 2) — a job that ran
// everything at one priority shows no per-priority section, as its clat already says it all.
std::vector<const PrioResult*> prios_to_show(const DirResult& d);

// The job's completion-latency distribution (fio's io_u_lat_n/u/m) over both directions:
// a direction's exact clat_dist when the model filled it, else its clat_hist with every bin
// counted at its midpoint (idx_to_val) — exact below 128 ns, and above that only a bin
// straddling a bucket edge (width <= 1/64 of the value) can land on the wrong side.
LatDist lat_dist(const JobResult& j);
LatDist lat_dist_from_hist(const sim::LatencyHistogram& h);
// The bucket labels fio prints ("750=0.01%"); the nsec and usec buckets use the first ten.
inline constexpr std::array<std::string_view, 12> LAT_RANGES = {
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"};

// stat.c stat_calc_lat(): percent of `total` I/Os, nonzero counts shown as at least 0.01.
template <std::size_t N>
std::array<double, N> stat_calc_lat(const std::array<uint64_t, N>& counts, uint64_t total) {
    std::array<double, N> out{};
    for (std::size_t i = 0; i < N; ++i) {
        if (total == 0)
            continue;
        out[i] = static_cast<double>(counts[i]) / static_cast<double>(total) * 100.0;
        if (out[i] < 0.01 && counts[i])
            out[i] = 0.01;
    }
    return out;
}

// stat.c stat_calc_dist(): the IO depths/submit/complete percentages, floor 0.1 if nonzero.
std::array<double, 7> stat_calc_dist(const std::array<uint64_t, 7>& map, uint64_t total);

// The per-direction runtime fio keeps (backend.c update_runtime): usec rounded up to msec.
uint64_t runtime_msec(sim::Duration d);
// ts->runtime[ddir]: 0 for a direction that moved no data, so it is not reported.
uint64_t ddir_runtime_msec(const JobResult& j, Ddir d);
// fio's ddir_rw_sum(total_io_u): reads, writes and trims; the completed ones (the latency
// distribution's 100 %), or all issued (a failed trim included).
uint64_t ddir_rw_sum_ios(const JobResult& j);
uint64_t ddir_rw_sum_issued(const JobResult& j);

// The cpu line's usr%/sys% (of fio's total_run_time).
struct CpuUsage {
    double usr = 0.0, sys = 0.0;
};
CpuUsage cpu_usage(const JobResult& j);

// bw/iops summaries in the units fio prints them: KiB/s and I/Os per second, whole-number
// min/max as fio's integer samples give.
struct SampleStat {
    uint64_t min = 0, max = 0;
    double mean = 0.0, dev = 0.0;
    uint64_t samples = 0;
};
SampleStat bw_kib(const DirResult& d);
SampleStat iops(const DirResult& d);

// fio's group_run_stats: one per groupid, over the (possibly merged) job results.
struct GroupRunStats {
    uint32_t groupid = 0;
    std::array<uint64_t, DDIR_RWDIR_CNT> min_run{}, max_run{}, min_bw{}, max_bw{}, iobytes{}, agg{};
};

// The jobs as fio reports them: one entry per job, or with group_reporting one merged entry
// per groupid (ordered by the group's first job).
std::vector<JobResult> thread_stats(const RunResult& r, bool group_reporting);
// The same for fio's report formats: without what fio does not measure for a job
// (gtod_reduce=1: no slat/clat/lat, latency buckets, bw/iops samples or sync latency), the
// empty stats then printing as fio prints them.
std::vector<JobResult> reported_stats(const RunResult& r, bool group_reporting);
// Group stats for every groupid present, ascending.
std::vector<GroupRunStats> group_run_stats(std::span<const JobResult> ts);
const GroupRunStats& group_of(std::span<const GroupRunStats> groups, uint32_t groupid);

// stat.c convert_agg_kbytes_percent(): a job's mean bandwidth (KiB/s, truncated to int as
// fio passes it) as a percent of its group's aggregate bandwidth, capped at 100.
double convert_agg_kbytes_percent(const GroupRunStats& rs, Ddir d, double mean_kib);

// The name fio prints for a direction: "read", "write".
std::string_view ddir_name(Ddir d);

}  // namespace blksim::report::fio
