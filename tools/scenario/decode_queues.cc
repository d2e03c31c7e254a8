// /queues: each device's request queue (/sys/block/<dev>/queue/) and its scheduler's
// tunables, and the schedulers fio jobs ask for with ioscheduler=.
#include <algorithm>
#include <span>

#include "models/sched/bfq_config.h"
#include "models/sched/kyber.h"
#include "models/sched/mq_deadline.h"
#include "tools/scenario/decode.h"

namespace blksim::scenario {

namespace {

// One policy's tunables table: names, integer values, ranges.
template <class Config>
void decode_tunables(const DecodeState& st, const json& obj, const std::string& ptr, const std::string& policy,
                     std::span<const sched::Tunable<Config>> table, Config& cfg) {
    for (const auto& [key, value] : obj.items()) {
        const std::string at = child(ptr, key);
        // Init-capture: clang 14 (the fuzz build) cannot capture a structured binding.
        const auto t = std::find_if(table.begin(), table.end(), [&k = key](const auto& e) { return e.name == k; });
        if (t == table.end()) {
            std::vector<std::string> names;
            for (const auto& e : table) names.emplace_back(e.name);
            st.rep.fail(at, "unknown " + policy + " tunable " + squote(key) + " (allowed: " + join(names) + ")");
        }
        if (!value.is_number_integer())
            st.rep.fail(at, "expected an integer in sysfs units (" +
                            std::string(t->unit == sched::TunableUnit::MSEC   ? "milliseconds"
                                        : t->unit == sched::TunableUnit::USEC ? "microseconds"
                                        : t->unit == sched::TunableUnit::NSEC ? "nanoseconds"
                                                                              : "a count") + ")");
        const int64_t v = value.template get<int64_t>();
        if (v < t->min || v > t->max)
            st.rep.fail(at, std::to_string(v) + " is out of range (allowed: " + std::to_string(t->min) + ".." + std::to_string(t->max) + ")");
        t->set(cfg, v);
    }
}

// /sys/block/<dev>/queue/iosched/: the scheduler's tunables by their sysfs names, range
// checked against the policy's own table (the one `blksim list schedulers` prints).
void decode_iosched(const DecodeState& st, const json& obj, const std::string& ptr, blkmq::QueueConfig& c) {
    if (c.scheduler == "kyber")
        return decode_tunables(st, obj, ptr, "kyber", sched::kyber_tunables(), c.kyber);
    if (c.scheduler == "bfq") {
        // One setting in two units: the later sysfs write would win, a JSON object has no order.
        if (obj.contains("slice_idle") && obj.contains("slice_idle_us"))
            st.rep.fail(child(ptr, "slice_idle_us"), "slice_idle and slice_idle_us are the same setting (ms and us): give one");
        return decode_tunables(st, obj, ptr, "bfq", sched::bfq_tunables(), c.bfq);
    }
    if (c.scheduler != "mq-deadline")
        st.rep.fail(ptr, "iosched tunables need a scheduler that has them (scheduler is " + squote(c.scheduler) +
                         "; mq-deadline, kyber and bfq have iosched tunables)");
    decode_tunables(st, obj, ptr, "mq-deadline", sched::mq_deadline_tunables(), c.mq_deadline);
}

}  // namespace

void decode_queues(DecodeState& st) {
    if (!st.doc.contains("queues")) return;
    const json& list = st.doc["queues"];
    std::vector<std::string> seen_ptr(st.devices.size());
    for (size_t i = 0; i < list.size(); ++i) {
        const json& q = list[i];
        const std::string at = child("/queues", i);
        const size_t d = st.device_index(q.at("device").get<std::string>(), child(at, "device"));
        if (!seen_ptr[d].empty())
            st.rep.fail(child(at, "device"), "device " + squote(st.devices[d].name) + " already has a queue entry at " + seen_ptr[d]);
        seen_ptr[d] = at;
        blkmq::QueueConfig& c = st.queues[d].config;
        if (q.contains("scheduler")) {
            c.scheduler = q["scheduler"].get<std::string>();
            st.queues[d].scheduler_ptr = child(at, "scheduler");
        }
        if (q.contains("nr_requests")) c.nr_requests = q["nr_requests"].get<uint32_t>();
        if (q.contains("max_sectors_kb")) c.max_sectors_kb = q["max_sectors_kb"].get<uint32_t>();
        if (q.contains("max_segments")) c.max_segments = q["max_segments"].get<uint32_t>();
        if (q.contains("nomerges")) c.nomerges = q["nomerges"].get<uint32_t>();
        if (q.contains("rq_affinity")) c.rq_affinity = q["rq_affinity"].get<uint32_t>();
        if (q.contains("iosched")) decode_iosched(st, q["iosched"], child(at, "iosched"), c);
    }
}

void set_job_scheduler(DecodeState& st, size_t dev, const std::string& sched, const std::string& ptr) {
    QueueState& q = st.queues[dev];
    // A fio job switches the machine's scheduler as fio does (by sysfs); two jobs that
    // want different ones on one device, or a job against the scenario's choice, conflict.
    const bool machine_default = st.ctx.fio_jobs && q.scheduler_ptr.starts_with("/queues/");
    if (!q.scheduler_ptr.empty() && q.config.scheduler != sched && !machine_default)
        st.rep.fail(ptr, "ioscheduler " + squote(sched) + " conflicts with scheduler " +
                         squote(q.config.scheduler) + " of " + st.devices[dev].name + " set at " +
                         st.rep.describe(q.scheduler_ptr));
    q.config.scheduler = sched;
    q.scheduler_ptr = ptr;
}

}  // namespace blksim::scenario
