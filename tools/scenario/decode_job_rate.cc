// A job's rate limits (rate, rate_iops, rate_min, rate_iops_min, rate_process, rate_cycle)
// and its think time (thinktime*).
#include "tools/scenario/decode_job.h"

namespace blksim::scenario {

// fio's rate options (models/workload/rate.h). Checked as fio's fixup_options() and
// setup_rate() check them, after the block sizes (rate_iops counts in the smallest one).
void decode_rate(const JobInput& in, workload::JobConfig& j) {
    workload::JobConfig::Rate& r = j.rate;
    const auto per_ddir = [&](const char* name, uint64_t (&out)[2]) -> const Opt* {
        const Opt* v = in.get(name);
        if (!v) return nullptr;
        const units::DdirSizes x = in.parse_at(*v, [&](const std::string& t) { return units::parse_ddir_rates(t, in.kb_base); });
        if (x.read) out[0] = *x.read;
        if (x.write) out[1] = *x.write;
        return v;
    };
    uint64_t bytes[2] = {0, 0}, iops[2] = {0, 0};
    const Opt* rate = per_ddir("rate", bytes);
    const Opt* rate_iops = per_ddir("rate_iops", iops);
    const Opt* rate_min = per_ddir("rate_min", r.min_bps);
    const Opt* rate_iops_min = per_ddir("rate_iops_min", r.min_iops);
    if (const Opt* v = in.get("rate_process")) r.poisson = text(*v) == "poisson";
    if (const Opt* v = in.get("rate_cycle")) {
        const uint64_t ms = number(*v);
        if (ms > static_cast<uint64_t>(kMaxRuntime.count() / 1'000'000)) in.rep().fail(v->ptr, "rate_cycle is longer than a year");
        r.cycle = sim::Duration::ns(static_cast<int64_t>(ms) * 1'000'000);
    }
    if (const Opt* v = in.get("rate_ignore_thinktime")) r.ignore_thinktime = boolean(*v);
    for (unsigned dir = 0; dir < 2; ++dir) {
        const std::string which = dir ? " (writes)" : " (reads)";
        r.iops[dir] = iops[dir];
        r.by_bytes[dir] = bytes[dir] != 0 || r.min_bps[dir] != 0;
        if (bytes[dir]) {
            r.bps[dir] = bytes[dir];
        } else if (iops[dir]) {
            // fio's setup_rate(): rate_iops in bytes, with the smallest block size.
            if (iops[dir] > units::kMaxSize / j.min_bs(dir))
                in.rep().fail(rate_iops->ptr, "rate_iops " + std::to_string(iops[dir]) + which + " is absurdly high");
            r.bps[dir] = iops[dir] * j.min_bs(dir);
        }
        if (bytes[dir] && r.min_bps[dir] > bytes[dir])
            in.rep().fail(rate_min->ptr, "rate_min " + std::to_string(r.min_bps[dir]) + which + " exceeds rate " +
                                         std::to_string(bytes[dir]) + " (fio refuses it: \"minimum rate exceeds rate\")");
        if (iops[dir] && r.min_iops[dir] > iops[dir])
            in.rep().fail(rate_iops_min->ptr, "rate_iops_min " + std::to_string(r.min_iops[dir]) + which +
                                              " exceeds rate_iops " + std::to_string(iops[dir]) +
                                              " (fio refuses it: \"minimum rate exceeds rate\")");
        if (r.poisson && r.bps[dir] && r.bps[dir] < j.min_bs(dir))
            in.rep().fail((rate ? rate : rate_iops)->ptr,
                      "rate_process=poisson needs at least one block per second" + which + ": " +
                          std::to_string(r.bps[dir]) + " bytes/s is less than the block size " +
                          std::to_string(j.min_bs(dir)) + " (fio divides by zero)");
    }
    if (r.caps() && j.replay)
        in.rep().fail((rate ? rate : rate_iops)->ptr,
                  "rate and rate_iops have no effect on a read_iolog replay (fio ignores them there); "
                  "the replay keeps its recorded timing");
}

// fio's thinktime options: thinktime and thinktime_spin in microseconds when the unit is
// left out, thinktime_iotime in seconds.
void decode_thinktime(const JobInput& in, workload::JobConfig& j) {
    workload::JobConfig::ThinkTime& t = j.thinktime;
    decode_duration(in, "thinktime", units::TimeUnit::USEC, t.time);
    decode_duration(in, "thinktime_spin", units::TimeUnit::USEC, t.spin);
    decode_duration(in, "thinktime_iotime", units::TimeUnit::SEC, t.iotime);
    if (const Opt* v = in.get("thinktime_blocks")) {
        t.blocks = number(*v);
        t.blocks_set = true;
    }
    if (const Opt* v = in.get("thinktime_blocks_type")) t.blocks_issue = text(*v) == "issue";
}

}  // namespace blksim::scenario
