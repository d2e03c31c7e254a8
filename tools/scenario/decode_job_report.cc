// What fio's percentile options ask the fio-format reports to print (stat.c): which
// latencies get percentiles and at which points.
#include <algorithm>
#include <charconv>

#include "tools/scenario/decode_job.h"

namespace blksim::scenario {

namespace {

constexpr std::size_t kMaxPercentiles = 20;  // fio's FIO_IO_U_LIST_MAX_LEN

// fio's FIO_OPT_FLOAT_LIST for percentile_list: values in [0, 100] separated by ':', at most
// 20; the precision is the most digits after a point in any of them; the list ends at its
// first 0 (calc_clat_percentiles() counts up to there) and is sorted.
void decode_percentile_list(const JobInput& in, const Opt& v, workload::JobConfig::Percentiles& p) {
    const std::string s = text(v);
    std::vector<double> list;
    unsigned precision = 0;
    std::size_t given = 0;
    bool ended = false;
    for (std::size_t pos = 0; pos <= s.size();) {
        const std::size_t end = std::min(s.find(':', pos), s.size());
        const std::string item = s.substr(pos, end - pos);
        double x = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
        if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || !(x >= 0.0 && x <= 100.0))
            in.rep().fail(v.ptr, "percentile_list: " + squote(item) +
                                     " is not a percentile (allowed: numbers from 0 to 100 separated by ':', "
                                     "e.g. 50:99:99.9)");
        if (++given > kMaxPercentiles)
            in.rep().fail(v.ptr, "percentile_list has more than " + std::to_string(kMaxPercentiles) +
                                     " values (fio: \"the list exceeding max length\")");
        if (x == 0.0)
            ended = true;
        else if (!ended)
            list.push_back(x);
        if (const std::size_t dot = item.find('.'); dot != std::string::npos)
            precision = std::max<unsigned>(precision, static_cast<unsigned>(item.size() - dot - 1));
        pos = end + 1;
    }
    std::sort(list.begin(), list.end());
    p.list = std::move(list);
    p.precision = precision;
}

}  // namespace

void decode_percentiles(const JobInput& in, workload::JobConfig& j) {
    workload::JobConfig::Percentiles& p = j.percentiles;
    if (const Opt* v = in.get("clat_percentiles")) p.clat = boolean(*v);
    if (const Opt* v = in.get("lat_percentiles")) p.lat = boolean(*v);
    if (const Opt* v = in.get("slat_percentiles")) p.slat = boolean(*v);
    if (const Opt* v = in.get("percentile_list")) decode_percentile_list(in, *v, p);
    // gtod_reduce sets disable_lat/clat/slat, and fio's fixup_options() then turns each
    // latency's percentiles off (terse then prints twenty "0%=0").
    if (j.gtod_reduce) p.clat = p.lat = p.slat = false;
}

}  // namespace blksim::scenario
