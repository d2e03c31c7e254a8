// What the steps of decoding one fio job share (decode_jobs.cc runs them in order; each
// step reads a family of fio options into the job's config).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <type_traits>

#include "tools/scenario/decode.h"

namespace blksim::scenario {

// Limits that are checked by the decoder (the schema cannot express them, or only for
// JSON numbers and not for strings such as "4k").
inline constexpr uint64_t kMinBs = 512;
inline constexpr uint64_t kMaxBs = 128ULL << 20;
inline constexpr sim::Duration kMaxRuntime = sim::Duration::ns(365LL * 86400 * 1'000'000'000);

// One fio option value and where it was written (the job's or global's entry).
struct Opt {
    const json* value;
    std::string ptr;
    std::string_view given_name;  // as written, e.g. "iodepth_batch" for iodepth_batch_submit
};
using Options = std::map<std::string, Opt, std::less<>>;

// A string or number as fio would see it in a job file.
inline std::string text(const Opt& v) { return v.value->is_string() ? v.value->get<std::string>() : v.value->dump(); }

// fio bools: true/false, 0/1, "0"/"1" (the schema allows exactly these).
inline bool boolean(const Opt& v) {
    if (v.value->is_boolean()) return v.value->get<bool>();
    return units::parse_bool(text(v));
}

// An integer option (the schema has checked it is one).
inline uint64_t number(const Opt& v) { return v.value->get<uint64_t>(); }

inline const Opt* find_opt(const Options& o, std::string_view name) {
    const auto it = o.find(name);
    return it == o.end() ? nullptr : &it->second;
}

// One job's options (global's, overridden by the job's own) and what they refer to.
struct JobInput {
    DecodeState& st;
    const Options& o;
    size_t dev;                       // index of the job's device in st.devices
    const dev::DeviceConfig& device;  // st.devices[dev]
    units::KbBase kb_base;            // fio's kb_base=

    const Opt* get(std::string_view name) const { return find_opt(o, name); }
    const Reporter& rep() const { return st.rep; }

    // parse(text of v), a units::ValueError refused at v.
    template <class F>
    std::invoke_result_t<F, const std::string&> parse_at(const Opt& v, F&& parse) const {
        try {
            return parse(text(v));
        } catch (const units::ValueError& e) {
            st.rep.fail(v.ptr, e.what());
        }
    }
};

// A duration option (a bare number in `unit`), refused beyond a year; nullptr if not given.
const Opt* decode_duration(const JobInput& in, const char* name, units::TimeUnit unit, sim::Duration& field);

// decode_job_sizes.cc: bs, bsrange, bssplit, bs_unaligned, blockalign; offset and size.
void decode_block_sizes(const JobInput& in, workload::JobConfig& j);
void decode_region(const JobInput& in, workload::JobConfig& j);

// decode_job_rate.cc: rate*, thinktime*.
void decode_rate(const JobInput& in, workload::JobConfig& j);
void decode_thinktime(const JobInput& in, workload::JobConfig& j);

// decode_job_prio.cc: prioclass, prio, cmdprio*.
void decode_prio(const JobInput& in, workload::JobConfig& j);

// decode_job_replay.cc: read_iolog (v is its value) and the log files (write_*_log, log_*).
void decode_replay(const JobInput& in, const Opt& v, workload::JobConfig& j);
void decode_logs(const JobInput& in, workload::JobConfig& j);
// clat_percentiles, lat_percentiles, slat_percentiles, percentile_list (decode_job_report.cc).
void decode_percentiles(const JobInput& in, workload::JobConfig& j);

}  // namespace blksim::scenario
