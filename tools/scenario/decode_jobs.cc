// /global and /jobs: each job's fio options (global's, overridden by its own) become its
// JobConfig, one family of options per step (decode_job.h), in an order that lets later
// steps check against earlier ones (sizes against the device, rates against block sizes).
#include <algorithm>

#include "models/workload/engine_kinds.h"
#include "models/workload/job_options.h"
#include "models/workload/verify.h"
#include "tools/scenario/decode_job.h"
#include "tools/scenario/job_options.h"

namespace blksim::scenario {

namespace {

constexpr uint64_t kMaxThreads = 4096;  // sum of numjobs over all jobs

// fio's add_job(): stonewall/new_group starts a new group, unless no job came before.
struct GroupState {
    uint32_t groupid = 0;
    uint64_t jobs_in_group = 0;
    bool lat_percentiles = false;  // the group's first job's (fio's verify_per_group_options())
};

template <class Table>
const auto& lookup(const Table& table, const std::string& name) {
    for (const auto& entry : table)
        if (entry.name == name) return entry;
    return table[0];  // unreachable: the schema's enum admits only names in the table
}

// A section's options by canonical name; an option and its alias in the same section
// would leave the value to JSON key order, so that is refused.
Options collect_options(const Reporter& rep, const json& obj, const std::string& ptr) {
    Options opts;
    for (const auto& [key, value] : obj.items()) {
        const FioOption* o = find_fio_option(key);
        const std::string canonical(o ? o->canonical : std::string_view(key));
        if (auto it = opts.find(canonical); it != opts.end())
            rep.fail(child(ptr, key), "give either " + squote(it->second.given_name) + " or " + squote(key) +
                                          ", not both (they set the same fio option)");
        opts.emplace(canonical, Opt{&value, child(ptr, key), o ? o->name : std::string_view()});
    }
    return opts;
}

// The job's device: "device", else the scenario's only one, else fio's filename=/dev/NAME.
size_t job_device(const DecodeState& st, const Options& o, const std::string& ptr) {
    if (const Opt* v = find_opt(o, "device")) return st.device_index(text(*v), v->ptr);
    if (st.devices.size() == 1) return 0;
    if (const Opt* v = find_opt(o, "filename")) {
        std::string f = text(*v);
        if (f.starts_with("/dev/")) f.erase(0, 5);
        if (const auto it = st.device_by_name.find(f); it != st.device_by_name.end()) return it->second;
    }
    st.rep.fail(ptr, "no device given and the scenario has " + std::to_string(st.devices.size()) +
                         " devices; add \"device\": one of " + st.device_names() + " (in a fio job: filename=/dev/NAME)");
}

// io_uring's sqthread_poll and sqthread_poll_cpu (a CPU the host has: io_uring_setup()
// refuses another with EINVAL). sqthread_poll_cpu alone does nothing, as in fio.
void decode_sqpoll(const JobInput& in, workload::JobConfig& j) {
    if (const Opt* v = in.get("sqthread_poll"); v && boolean(*v)) {
        if (j.ioengine != workload::IoEngine::IO_URING)
            in.rep().fail(v->ptr, "sqthread_poll is an option of ioengine io_uring, not of " +
                                      std::string(workload::engine_kind(j.ioengine).name));
        j.sqthread_poll = true;
    }
    if (const Opt* v = in.get("sqthread_poll_cpu")) {
        const uint64_t c = number(*v);
        if (c >= in.st.nr_cpus)
            in.rep().fail(v->ptr, "sqthread_poll_cpu " + std::to_string(c) + ": CPU " + std::to_string(c) +
                                      " does not exist: the host has " + plural(in.st.nr_cpus, "CPU") + " (0-" +
                                      std::to_string(in.st.nr_cpus - 1) + ")");
        j.sqthread_poll_cpu = static_cast<uint32_t>(c);
    }
}

void check_trim_job(const JobInput& in, const workload::JobConfig& j);

// What kind of I/O: ioengine, rw, rwmixread, direct, and the sync options.
void decode_io_kind(const JobInput& in, workload::JobConfig& j) {
    if (const Opt* v = in.get("ioengine")) j.ioengine = lookup(workload::engine_names(), text(*v)).engine;
    if (const Opt* v = in.get("hipri"); v && boolean(*v)) {
        // fio refuses it for another engine ("Bad option").
        if (j.ioengine != workload::IoEngine::IO_URING && j.ioengine != workload::IoEngine::PVSYNC2)
            in.rep().fail(v->ptr, "hipri is an option of ioengine io_uring or pvsync2, not of " +
                                      std::string(workload::engine_kind(j.ioengine).name));
        j.hipri = true;
    }
    decode_sqpoll(in, j);
    if (const Opt* v = in.get("rw")) j.rw = lookup(kRwPatterns, text(*v)).rw;
    if (const Opt* v = in.get("rwmixread")) {
        const uint32_t pct = static_cast<uint32_t>(number(*v));
        j.rwmixread = v->given_name == "rwmixwrite" ? 100 - pct : pct;
    }
    if (const Opt* v = in.get("direct")) j.direct = boolean(*v);
    if (const Opt* v = in.get("fsync")) j.fsync_blocks = static_cast<uint32_t>(number(*v));
    if (const Opt* v = in.get("fdatasync")) j.fdatasync_blocks = static_cast<uint32_t>(number(*v));
    if (const Opt* v = in.get("sync")) {
        // fio's sync=: none/0, sync/1 (O_SYNC), dsync (O_DSYNC); both make direct writes FUA.
        const std::string t = v->value->is_boolean() ? (v->value->get<bool>() ? "1" : "0") : text(*v);
        j.sync_writes = t == "1" || t == "sync" || t == "dsync";
    }
    for (const char* name : {"end_fsync", "fsync_on_close"})
        if (const Opt* v = in.get(name); v && boolean(*v))
            j.end_fsync = true;
    if (const Opt* v = in.get("verify")) {
        const workload::VerifyKind& k = lookup(workload::kVerifyKinds, text(*v));
        j.verify.on = k.on;
        j.verify.ps_per_byte = k.ps_per_byte();
    }
    if (const Opt* v = in.get("do_verify")) j.verify.read_back = boolean(*v);
    if (j.trims()) check_trim_job(in, j);
}

// fio's trims through blksim (docs/fio.md, Trims): the BLKDISCARD ioctl, with every engine.
// What the model keeps per read/write direction only (rate caps, cmdprio, zoned random
// distributions, verify, fsync) is refused with trims rather than silently applied to two
// directions of three.
void check_trim_job(const JobInput& in, const workload::JobConfig& j) {
    const std::string what = "rw=" + std::string(workload::rw_name(j.rw));
    for (const char* name : {"rate", "rate_iops", "rate_min", "rate_iops_min", "cmdprio_percentage", "cmdprio_bssplit",
                             "random_distribution", "verify", "fsync", "fdatasync", "read_iolog"})
        if (const Opt* v = in.get(name))
            in.rep().fail(v->ptr, std::string(v->given_name) + " with " + what +
                                      " is not modelled (allowed with trims: the other options; docs/fio.md, Trims)");
}

void decode_depths(const JobInput& in, workload::JobConfig& j) {
    if (const Opt* v = in.get("numjobs")) j.numjobs = static_cast<uint32_t>(number(*v));
    if (const Opt* v = in.get("iodepth")) j.iodepth = static_cast<uint32_t>(number(*v));
    const auto batch = [&](const char* name, uint32_t& field) {
        const Opt* v = in.get(name);
        if (!v) return;
        const uint64_t n = number(*v);
        if (n > j.iodepth)
            in.rep().fail(v->ptr, std::string(v->given_name) + " " + std::to_string(n) + " is larger than iodepth " +
                                      std::to_string(j.iodepth) + " (allowed: 0..iodepth)");
        field = static_cast<uint32_t>(n);
    };
    batch("iodepth_batch_submit", j.iodepth_batch_submit);
    batch("iodepth_batch_complete_min", j.iodepth_batch_complete_min);
    batch("iodepth_batch_complete_max", j.iodepth_batch_complete_max);
    // The effective values, as fio's fixup_options() computes them: a submit batch of 0
    // means iodepth, and the reap maximum is never below the minimum (nor below one,
    // since fio reaps at least one event when it has to wait).
    if (j.iodepth_batch_submit == 0) j.iodepth_batch_submit = j.iodepth;
    j.iodepth_batch_complete_max =
        std::max({j.iodepth_batch_complete_max, j.iodepth_batch_complete_min, uint32_t{1}});
}

void decode_times(const JobInput& in, workload::JobConfig& j) {
    decode_duration(in, "runtime", units::TimeUnit::SEC, j.runtime);
    decode_duration(in, "ramp_time", units::TimeUnit::SEC, j.ramp_time);
    if (const Opt* v = in.get("time_based")) {
        j.time_based = boolean(*v);
        if (j.time_based && j.runtime.count() == 0)
            in.rep().fail(v->ptr, "time_based needs runtime (how long to run)");
    }
}

std::vector<uint32_t> decode_cpus(const JobInput& in, const Opt& v) {
    const std::vector<uint32_t> cpus = in.parse_at(v, [](const std::string& s) { return units::parse_cpu_list(s); });
    const uint32_t nr = in.st.nr_cpus;
    for (uint32_t c : cpus)
        if (c >= nr)
            in.rep().fail(v.ptr, "CPU " + std::to_string(c) + " does not exist: the host has " + plural(nr, "CPU") +
                                     " (0-" + std::to_string(nr - 1) + ")");
    return cpus;
}

// stonewall and new_group: which group the job belongs to.
void decode_group(const JobInput& in, GroupState& groups, workload::JobConfig& j) {
    const bool stonewall = in.get("stonewall") && boolean(*in.get("stonewall"));
    const bool new_group = in.get("new_group") && boolean(*in.get("new_group"));
    if ((stonewall || new_group) && groups.jobs_in_group > 0) {
        ++groups.groupid;
        groups.jobs_in_group = 0;
    }
    j.groupid = groups.groupid;
    j.stonewall = stonewall;
    groups.jobs_in_group += j.numjobs;
}

workload::JobConfig decode_job(DecodeState& st, const Options& o, const std::string& ptr, GroupState& groups,
                               OutputConfig& output) {
    workload::JobConfig j;
    j.name = o.at("name").value->get<std::string>();
    const size_t dev = job_device(st, o, ptr);
    j.device = st.devices[dev].name;
    const Opt* kb = find_opt(o, "kb_base");
    const JobInput in{st, o, dev, st.devices[dev],
                      kb && text(*kb) == "1000" ? units::KbBase::B1000 : units::KbBase::B1024};

    decode_io_kind(in, j);
    decode_block_sizes(in, j);
    decode_depths(in, j);
    decode_region(in, j);
    decode_times(in, j);
    decode_thinktime(in, j);

    if (const Opt* v = in.get("number_ios")) j.number_ios = number(*v);
    if (const Opt* v = in.get("randseed")) j.randseed = number(*v);
    if (const Opt* v = in.get("cpus_allowed")) j.cpus_allowed = decode_cpus(in, *v);
    if (const Opt* v = in.get("cpus_allowed_policy"); v && text(*v) == "split") {
        j.cpus_split = true;
        std::sort(j.cpus_allowed.begin(), j.cpus_allowed.end());
        j.cpus_allowed.erase(std::unique(j.cpus_allowed.begin(), j.cpus_allowed.end()), j.cpus_allowed.end());
    }
    if (const Opt* v = in.get("group_reporting"); v && boolean(*v)) output.group_reporting = true;
    if (const Opt* v = in.get("ioscheduler")) set_job_scheduler(st, dev, text(*v), v->ptr);
    decode_prio(in, j);
    if (const Opt* v = in.get("read_iolog")) decode_replay(in, *v, j);
    decode_rate(in, j);
    if (const Opt* v = in.get("replay_no_stall")) j.replay_no_stall = boolean(*v);
    decode_logs(in, j);
    if (const Opt* v = in.get("gtod_reduce")) j.gtod_reduce = boolean(*v);
    decode_percentiles(in, j);
    if (const Opt* v = in.get("exitall")) j.exitall = boolean(*v);
    if (const Opt* v = in.get("exitall_on_error")) j.exitall_on_error = boolean(*v);
    if (const Opt* v = in.get("exit_what")) {
        const std::string w = text(*v);
        j.exit_what = w == "all"         ? workload::JobConfig::ExitWhat::ALL
                      : w == "stonewall" ? workload::JobConfig::ExitWhat::STONEWALL
                                         : workload::JobConfig::ExitWhat::GROUP;
    }
    // "thread" and "filename" are accepted for fio compatibility and have no effect.
    decode_group(in, groups, j);
    // fio checks it only for a job with group_reporting (init.c add_job()).
    const Opt* gr = in.get("group_reporting");
    if (groups.jobs_in_group == j.numjobs)
        groups.lat_percentiles = j.percentiles.lat;
    else if (gr && boolean(*gr) && groups.lat_percentiles != j.percentiles.lat)
        st.rep.fail(ptr, "lat_percentiles in job " + squote(j.name) + " differs from the other jobs of its reporting "
                         "group (fio refuses it too: the group's statistics must be of one latency)");
    return j;
}

}  // namespace

const Opt* decode_duration(const JobInput& in, const char* name, units::TimeUnit unit, sim::Duration& field) {
    const Opt* v = in.get(name);
    if (!v) return nullptr;
    field = parse_time_at(*v->value, v->ptr, unit, in.rep());
    if (field > kMaxRuntime) in.rep().fail(v->ptr, std::string(name) + " is longer than a year");
    return v;
}

std::vector<workload::JobConfig> decode_jobs(DecodeState& st, OutputConfig& output) {
    Options global;
    if (st.doc.contains("global")) {
        global = collect_options(st.rep, st.doc["global"], "/global");
        if (global.count("name")) st.rep.fail("/global/name", "name belongs on each job, not in global");
    }
    std::vector<workload::JobConfig> jobs;
    GroupState groups;
    uint64_t threads = 0;
    const json& list = st.doc.at("jobs");
    for (size_t i = 0; i < list.size(); ++i) {
        const std::string at = child("/jobs", i);
        Options opts = global;
        for (auto& [name, opt] : collect_options(st.rep, list[i], at)) opts.insert_or_assign(name, opt);
        jobs.push_back(decode_job(st, opts, at, groups, output));
        threads += jobs.back().numjobs;
        if (threads > kMaxThreads)
            st.rep.fail(child(at, "numjobs"), "the jobs add up to " + std::to_string(threads) +
                                                  " threads (sum of numjobs); at most " + std::to_string(kMaxThreads) +
                                                  " are supported");
    }
    return jobs;
}

}  // namespace blksim::scenario
