#include "models/report/fio_format.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include <fmt/format.h>


namespace blksim::report::fio {

namespace {

std::size_t num_digits(uint64_t v) {
    std::size_t n = 1;
    while (v >= 10) {
        v /= 10;
        ++n;
    }
    return n;
}

// include/stat.h nsec_to_msec()/nsec_to_usec(): switch units only when all of min, max and
// stddev are large enough that the coarser unit still shows useful digits.
bool nsec_to_msec(LatStat& s) {
    if (s.min > 2000000 && s.max > 99999999ULL && s.dev > 1000000.0) {
        s.min /= 1000000;
        s.max /= 1000000;
        s.mean /= 1000000.0;
        s.dev /= 1000000.0;
        return true;
    }
    return false;
}

bool nsec_to_usec(LatStat& s) {
    if (s.min > 2000 && s.max > 99999 && s.dev > 1000.0) {
        s.min /= 1000;
        s.max /= 1000;
        s.mean /= 1000.0;
        s.dev /= 1000.0;
        return true;
    }
    return false;
}

}  // namespace

std::string num2str(uint64_t num, int maxlen, int base, bool pow2, N2S units) {
    static constexpr std::array<std::string_view, 6> sistr = {"", "k", "M", "G", "T", "P"};
    static constexpr std::array<std::string_view, 6> iecstr = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
    static constexpr std::array<std::string_view, 6> unitstr = {"", "/s", "B", "bit", "B/s", "bit/s"};
    const auto& prefix = pow2 ? iecstr : sistr;
    const unsigned thousand = pow2 ? 1024 : 1000;
    const std::string_view unit = unitstr[static_cast<std::size_t>(units)];

    // `base` says what num already counts (1024 = KiB), which starts the prefix higher.
    std::size_t post_index = 0;
    for (; base > 1; ++post_index)
        base /= static_cast<int>(thousand);

    if (units == N2S::BIT || units == N2S::BITPERSEC)
        num *= 8;

    // Divide by k/Ki until the integer part fits, remembering the last remainder.
    constexpr unsigned NO_MODULO = std::numeric_limits<unsigned>::max();
    unsigned modulo = NO_MODULO;
    bool carry = false;
    while (post_index < prefix.size()) {
        if (num_digits(num) <= static_cast<std::size_t>(maxlen))
            break;
        modulo = static_cast<unsigned>(num % thousand);
        num /= thousand;
        carry = modulo >= thousand / 2;
        ++post_index;
    }
    if (post_index >= prefix.size())
        post_index = 0;  // fio gives up on the prefix rather than index past it

    if (modulo == NO_MODULO)
        return fmt::format("{}{}{}", num, prefix[post_index], unit);

    // No room for decimals: round the integer part (the only place fio carries).
    const int room = maxlen - static_cast<int>(num_digits(num));
    if (room <= 1) {
        if (carry)
            ++num;
        return fmt::format("{}{}{}", num, prefix[post_index], unit);
    }

    // Decimals are the remainder as a fraction, printed with room-1 digits; fio keeps the
    // digits after "0." even if they rounded up to "1.00" (the "carry rounding error").
    const std::string frac =
        fmt::format("{:.{}f}", static_cast<double>(modulo) / static_cast<double>(thousand), room - 1);
    return fmt::format("{}.{}{}{}", num, frac.substr(2), prefix[post_index], unit);
}

LatStat calc_lat(const sim::RunningStat& s) {
    LatStat out;
    out.samples = s.count();
    if (out.samples == 0)
        return out;
    // fio stores latencies as integer nanoseconds, so min/max are whole numbers.
    out.min = static_cast<uint64_t>(s.min());
    out.max = static_cast<uint64_t>(s.max());
    out.mean = s.mean();
    out.dev = s.stddev();
    return out;
}

std::string display_lat(std::string_view name, const LatStat& stat) {
    LatStat s = stat;
    std::string_view base = "(nsec)";
    if (nsec_to_msec(s))
        base = "(msec)";
    else if (nsec_to_usec(s))
        base = "(usec)";
    return fmt::format("    {} {}: min={}, max={}, avg={:5.2f}, stdev={:5.2f}\n", name, base,
                       num2str(s.min, 6, 1, false, N2S::NONE),
                       num2str(s.max, 6, 1, false, N2S::NONE), s.mean, s.dev);
}

std::string show_clat_percentiles(const sim::LatencyHistogram& h, std::string_view pre,
                                  std::span<const double> plist, unsigned precision) {
    if (h.total() == 0 || plist.empty())
        return {};
    std::vector<uint64_t> ovals = h.percentiles(plist);
    const uint64_t minv = *std::min_element(ovals.begin(), ovals.end());
    const uint64_t maxv = *std::max_element(ovals.begin(), ovals.end());

    // Default to nsec; scale down to usec/msec when the whole range is large.
    int scale_down = 0;
    uint64_t divisor = 1;
    std::string_view unit = "nsec";
    if (minv > 2000000 && maxv > 99999999ULL) {
        scale_down = 2;
        divisor = 1000000;
        unit = "msec";
    } else if (minv > 2000 && maxv > 99999) {
        scale_down = 1;
        divisor = 1000;
        unit = "usec";
    }

    // Column width from the largest (truncated) value; fio's log10 of 0 ends up at 5 too.
    const uint64_t widest = maxv / divisor;
    const int time_width =
        widest ? std::max(5, static_cast<int>(std::log10(static_cast<double>(widest)) + 1)) : 5;
    const std::size_t per_line = static_cast<std::size_t>((80 - 7) / (static_cast<int>(precision) + 10 + time_width));

    std::string out = fmt::format("    {} percentiles ({}):\n     |", pre, unit);
    for (std::size_t j = 0; j < ovals.size(); ++j) {
        if (j != 0 && j % per_line == 0)
            out += "     |";
        const bool is_last = j == ovals.size() - 1;
        uint64_t v = ovals[j];
        for (int i = 0; i < scale_down; ++i)
            v = (v + 999) / 1000;  // fio rounds percentiles up when scaling
        out += fmt::format(" {:{}.{}f}th=[{:{}}]{}", plist[j], precision + 3, precision, v,
                           time_width, is_last ? '\n' : ',');
        if (is_last)
            break;
        if (j % per_line == per_line - 1)
            out += "\n";
    }
    return out;
}

unsigned ioprio_class(uint32_t value) {
    return value >> IOPRIO_CLASS_SHIFT;
}

unsigned ioprio(uint32_t value) {
    return value & 7;  // IOPRIO_MAX_PRIO
}

std::string prio_name(const PrioResult& p) {
    const uint32_t v = ioprio_value(p);
    return fmt::format("prio {}/{}", ioprio_class(v), ioprio(v));
}

std::span<const double> percentile_list(const result::JobOptions& c) {
    if (c.percentiles.list.empty())
        return sim::LatencyHistogram::default_percentiles();
    return c.percentiles.list;
}

std::string_view prio_lat_type(const result::JobOptions& c) { return c.percentiles.lat ? "lat" : "clat"; }

std::vector<const PrioResult*> prios_to_show(const DirResult& d) {
    std::vector<const PrioResult*> shown;
    for (const PrioResult& p : d.prios)
        if (p.clat.count())
            shown.push_back(&p);
    if (shown.size() < 2)
        shown.clear();
    return shown;
}

LatDist lat_dist_from_hist(const sim::LatencyHistogram& h) {
    LatDist d;
    if (h.total() == 0)
        return d;
    for (unsigned i = 0; i < sim::LatencyHistogram::PLAT_NR; ++i)
        if (const uint64_t c = h.bin(i))
            d.add(sim::LatencyHistogram::idx_to_val(i), c);
    return d;
}

LatDist lat_dist(const JobResult& j) {
    LatDist d;
    for (const DirResult& dr : j.dir)
        d.merge(dr.clat_dist.total() ? dr.clat_dist : lat_dist_from_hist(dr.clat_hist));
    return d;
}

std::array<double, 7> stat_calc_dist(const std::array<uint64_t, 7>& map, uint64_t total) {
    std::array<double, 7> out{};
    for (std::size_t i = 0; i < map.size(); ++i) {
        if (total == 0)
            continue;
        out[i] = static_cast<double>(map[i]) / static_cast<double>(total) * 100.0;
        if (out[i] < 0.1 && map[i])
            out[i] = 0.1;
    }
    return out;
}

uint64_t runtime_msec(sim::Duration d) {
    if (d.count() <= 0)
        return 0;
    const uint64_t usec = static_cast<uint64_t>(d.count()) / 1000;
    return (usec + 999) / 1000;
}

uint64_t ddir_runtime_msec(const JobResult& j, Ddir d) {
    return j.dir[d].io_bytes ? runtime_msec(j.ddir_runtime(d)) : 0;
}

CpuUsage cpu_usage(const JobResult& j) {
    CpuUsage c;
    const double runt = static_cast<double>(j.total_run_time().count());
    if (runt <= 0.0)
        return c;
    c.usr = static_cast<double>((j.cpu_busy - j.cpu_sys).count()) * 100.0 / runt;
    c.sys = static_cast<double>(j.cpu_sys.count()) * 100.0 / runt;
    return c;
}

SampleStat bw_kib(const DirResult& d) {
    const SummedStat s = d.bw_stat();
    SampleStat out;
    if (s.samples == 0)
        return out;
    // fio's bandwidth samples are whole KiB/s (bytes * 1000 / msec / 1024, truncated).
    out.min = static_cast<uint64_t>(s.min / 1024.0);
    out.max = static_cast<uint64_t>(s.max / 1024.0);
    out.mean = s.mean / 1024.0;
    out.dev = s.stddev() / 1024.0;
    out.samples = s.samples;
    return out;
}

SampleStat iops(const DirResult& d) {
    const SummedStat s = d.iops_stat();
    SampleStat out;
    if (s.samples == 0)
        return out;
    out.min = static_cast<uint64_t>(s.min);
    out.max = static_cast<uint64_t>(s.max);
    out.mean = s.mean;
    out.dev = s.stddev();
    out.samples = s.samples;
    return out;
}

namespace {

// options.c str_gtod_reduce_cb(): disable_lat, disable_clat, disable_slat and disable_bw, so
// account_io_completion() adds no latency, latency-bucket, bw or iops sample (nor a sync
// latency); the counts of I/Os and bytes and the depths stay.
void drop_untimed(JobResult& j) {
    if (!j.options.gtod_reduce)
        return;
    for (DirResult& d : j.dir) {
        d.slat = d.clat = d.lat = {};
        d.clat_hist = {};
        d.clat_dist = {};
        d.bw_samples = d.iops_samples = {};
        d.bw_sum = d.iops_sum = {};
        d.prios.clear();
    }
    j.sync.lat = {};
    j.sync.hist = {};
}

std::vector<JobResult> merge_groups(std::vector<JobResult> jobs, bool group_reporting) {
    if (!group_reporting)
        return jobs;
    std::vector<JobResult> out;
    for (JobResult& j : jobs) {
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const JobResult& t) { return t.groupid == j.groupid; });
        if (it == out.end())
            out.push_back(std::move(j));
        else
            it->merge(j);
    }
    return out;
}

}  // namespace

std::vector<JobResult> thread_stats(const RunResult& r, bool group_reporting) {
    return merge_groups(r.jobs, group_reporting);
}

std::vector<JobResult> reported_stats(const RunResult& r, bool group_reporting) {
    std::vector<JobResult> jobs = r.jobs;
    for (JobResult& j : jobs)
        drop_untimed(j);
    return merge_groups(std::move(jobs), group_reporting);
}

std::vector<GroupRunStats> group_run_stats(std::span<const JobResult> ts) {
    std::vector<GroupRunStats> groups;
    for (const JobResult& t : ts) {
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&](const GroupRunStats& g) { return g.groupid == t.groupid; });
        if (it == groups.end()) {
            GroupRunStats g;
            g.groupid = t.groupid;
            g.min_bw.fill(std::numeric_limits<uint64_t>::max());
            groups.push_back(g);
            it = groups.end() - 1;
        }
        GroupRunStats& rs = *it;
        for (unsigned d = 0; d < DDIR_RWDIR_CNT; ++d) {
            const uint64_t runt = ddir_runtime_msec(t, static_cast<Ddir>(d));
            if (!runt)
                continue;
            if (runt < rs.min_run[d] || !rs.min_run[d])
                rs.min_run[d] = runt;
            rs.max_run[d] = std::max(rs.max_run[d], runt);
            const uint64_t bw = t.dir[d].io_bytes * 1000 / runt;
            rs.min_bw[d] = std::min(rs.min_bw[d], bw);
            rs.max_bw[d] = std::max(rs.max_bw[d], bw);
            rs.iobytes[d] += t.dir[d].io_bytes;
        }
    }
    for (GroupRunStats& rs : groups)
        for (unsigned d = 0; d < DDIR_RWDIR_CNT; ++d)
            if (rs.max_run[d])
                rs.agg[d] = rs.iobytes[d] * 1000 / rs.max_run[d];
    std::sort(groups.begin(), groups.end(),
              [](const GroupRunStats& a, const GroupRunStats& b) { return a.groupid < b.groupid; });
    return groups;
}

const GroupRunStats& group_of(std::span<const GroupRunStats> groups, uint32_t groupid) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const GroupRunStats& g) { return g.groupid == groupid; });
    assert(it != groups.end());  // group_run_stats() made one for every job's groupid
    return *it;
}

double convert_agg_kbytes_percent(const GroupRunStats& rs, Ddir d, double mean_kib) {
    double p_of_agg = 100.0;
    if (rs.agg[d] > 1024) {
        const int mean = static_cast<int>(mean_kib);  // fio's parameter is an int
        p_of_agg = mean * 100.0 / (static_cast<double>(rs.agg[d]) / 1024.0);
        p_of_agg = std::min(p_of_agg, 100.0);
    }
    return p_of_agg;
}

uint64_t ddir_rw_sum_ios(const JobResult& j) {
    return j.dir[DDIR_READ].total_ios + j.dir[DDIR_WRITE].total_ios + j.dir[DDIR_TRIM].total_ios;
}

uint64_t ddir_rw_sum_issued(const JobResult& j) { return ddir_rw_sum_ios(j) + j.dir[DDIR_TRIM].failed_ios; }

std::string_view ddir_name(Ddir d) {
    return d == DDIR_READ ? "read" : d == DDIR_WRITE ? "write" : "trim";
}


}  // namespace blksim::report::fio
