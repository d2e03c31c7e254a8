#include "tools/scenario/job_options.h"

#include <algorithm>
#include <cctype>

#include "models/sched/scheduler_kinds.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/units.h"

namespace blksim::scenario {

namespace {

constexpr FioOption kFioOptions[] = {
    {"name", "name"},
    {"device", "device"},
    {"filename", "filename"},
    {"ioengine", "ioengine"},
    {"hipri", "hipri"},
    {"sqthread_poll", "sqthread_poll"},
    {"sqthread_poll_cpu", "sqthread_poll_cpu", true},
    {"rw", "rw"},
    {"readwrite", "rw"},
    {"rwmixread", "rwmixread", true},
    {"rwmixwrite", "rwmixread", true},  // stored as rwmixread = 100 - value, as fio does
    {"bs", "bs"},
    {"blocksize", "bs"},
    {"bsrange", "bsrange"},
    {"blocksize_range", "bsrange"},
    {"bssplit", "bssplit"},
    {"bs_unaligned", "bs_unaligned"},
    {"blocksize_unaligned", "bs_unaligned"},
    {"blockalign", "blockalign"},
    {"ba", "blockalign"},
    {"size", "size"},
    {"offset", "offset"},
    {"offset_increment", "offset_increment"},
    {"io_size", "io_size"},
    {"io_limit", "io_size"},
    {"random_distribution", "random_distribution"},
    {"numjobs", "numjobs", true},
    {"iodepth", "iodepth", true},
    {"iodepth_batch_submit", "iodepth_batch_submit", true},
    {"iodepth_batch", "iodepth_batch_submit", true},
    {"iodepth_batch_complete_min", "iodepth_batch_complete_min", true},
    {"iodepth_batch_complete", "iodepth_batch_complete_min", true},
    {"iodepth_batch_complete_max", "iodepth_batch_complete_max", true},
    {"runtime", "runtime"},
    {"time_based", "time_based"},
    {"ramp_time", "ramp_time"},
    {"number_ios", "number_ios", true},
    {"randseed", "randseed", true},
    {"direct", "direct"},
    {"fsync", "fsync", true},
    {"fdatasync", "fdatasync", true},
    {"sync", "sync"},
    {"end_fsync", "end_fsync"},
    {"fsync_on_close", "fsync_on_close"},
    {"verify", "verify"},
    {"do_verify", "do_verify"},
    {"cpus_allowed", "cpus_allowed"},
    {"cpus_allowed_policy", "cpus_allowed_policy"},
    {"thread", "thread"},
    {"group_reporting", "group_reporting"},
    {"new_group", "new_group"},
    {"stonewall", "stonewall"},
    {"wait_for_previous", "stonewall"},
    {"ioscheduler", "ioscheduler"},
    {"kb_base", "kb_base"},
    {"prioclass", "prioclass", true},
    {"prio", "prio", true},
    {"cmdprio_percentage", "cmdprio_percentage", true},
    {"cmdprio_class", "cmdprio_class", true},
    {"cmdprio", "cmdprio", true},
    {"cmdprio_bssplit", "cmdprio_bssplit"},
    {"rate", "rate", true},
    {"rate_iops", "rate_iops", true},
    {"rate_min", "rate_min", true},
    {"ratemin", "rate_min", true},
    {"rate_iops_min", "rate_iops_min", true},
    {"rate_process", "rate_process"},
    {"rate_cycle", "rate_cycle", true},
    {"ratecycle", "rate_cycle", true},
    {"rate_ignore_thinktime", "rate_ignore_thinktime"},
    {"thinktime", "thinktime"},
    {"thinktime_spin", "thinktime_spin"},
    {"thinktime_blocks", "thinktime_blocks", true},
    {"thinktime_blocks_type", "thinktime_blocks_type"},
    {"thinktime_iotime", "thinktime_iotime"},
    {"read_iolog", "read_iolog"},
    {"replay_no_stall", "replay_no_stall"},
    {"write_lat_log", "write_lat_log"},
    {"write_bw_log", "write_bw_log"},
    {"write_iops_log", "write_iops_log"},
    {"log_avg_msec", "log_avg_msec", true},
    {"log_offset", "log_offset"},
    {"log_prio", "log_prio"},
    {"gtod_reduce", "gtod_reduce"},
    {"clat_percentiles", "clat_percentiles"},
    {"lat_percentiles", "lat_percentiles"},
    {"slat_percentiles", "slat_percentiles"},
    {"percentile_list", "percentile_list"},
    {"exitall", "exitall"},
    {"exitall_on_error", "exitall_on_error"},
    {"exit_what", "exit_what"},
};

// fio's integer syntax without suffix: decimal digits or 0x-hex (the schema's pattern).
bool is_fio_integer(const std::string& t) {
    const auto all = [](auto first, auto last, int (*pred)(int)) {
        return first != last && std::all_of(first, last, [&](char c) { return pred(static_cast<unsigned char>(c)) != 0; });
    };
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) return all(t.begin() + 2, t.end(), std::isxdigit);
    return all(t.begin(), t.end(), std::isdigit);
}

void integers_from_strings(json& options, const std::string& ptr, const Reporter& rep) {
    if (!options.is_object()) return;
    for (auto& [key, value] : options.items()) {
        const FioOption* opt = find_fio_option(key);
        if (!opt || !opt->integer || !value.is_string()) continue;
        const std::string text = value.get<std::string>();
        if (!is_fio_integer(text)) continue;  // left for the schema to report
        try {
            value = units::parse_uint(text);
        } catch (const units::ValueError& e) {
            rep.fail(child(ptr, key), e.what());  // too large for 64 bits
        }
    }
}

}  // namespace

const FioOption* find_fio_option(std::string_view name) {
    for (const FioOption& o : kFioOptions)
        if (o.name == name) return &o;
    return nullptr;
}

void normalize_fio_sections(json& doc, const Reporter& rep) {
    if (!doc.is_object()) return;
    if (doc.contains("global")) integers_from_strings(doc["global"], "/global", rep);
    if (doc.contains("jobs") && doc["jobs"].is_array())
        for (size_t i = 0; i < doc["jobs"].size(); ++i)
            integers_from_strings(doc["jobs"][i], child("/jobs", i), rep);
}

std::vector<std::string> supported_fio_options() {
    std::vector<std::string> names;
    for (const FioOption& o : kFioOptions) names.emplace_back(o.name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<std::string> supported_schedulers() {
    std::vector<std::string> names;
    for (const sched::SchedulerKind* k : sched::scheduler_kinds()) names.emplace_back(k->name());
    return names;
}

}  // namespace blksim::scenario
