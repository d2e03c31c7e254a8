// /queues: each device's request queue (/sys/block/<dev>/queue/) and its scheduler's
// tunables, and the schedulers fio jobs ask for with ioscheduler=.
#include <algorithm>
#include <string>
#include <vector>

#include "models/sched/kernel_elevator.h"
#include "models/sched/scheduler_kinds.h"
#include "tools/scenario/data_dir.h"
#include "tools/scenario/decode.h"
#include "tools/scenario/kind_schema.h"

namespace blksim::scenario {

namespace {

// kcompat/ and the reference kernel tree's rbtree files, in blksim's data folder.
sched::KernelPluginData kernel_plugin_data() {
    return {data_dir() / "kcompat", data_dir() / "kernel-6.1" / "linux-source-6.1"};
}

const char* unit_words(sched::TunableUnit u) {
    return u == sched::TunableUnit::MSEC   ? "milliseconds"
           : u == sched::TunableUnit::USEC ? "microseconds"
           : u == sched::TunableUnit::NSEC ? "nanoseconds"
                                           : "a count";
}

const char* unit_symbol(sched::TunableUnit u) {
    return u == sched::TunableUnit::MSEC ? "ms" : u == sched::TunableUnit::USEC ? "us" : u == sched::TunableUnit::NSEC ? "ns" : "";
}

// /sys/block/<dev>/queue/iosched/: the scheduler's tunables by their sysfs names, range
// checked against the policy's own table (the one `blksim list schedulers` prints).
void decode_iosched(const DecodeState& st, const json& obj, const std::string& ptr, blkmq::QueueConfig& c) {
    const sched::SchedulerKind& k = *sched::find_scheduler_kind(c.scheduler);  // the schema checked the name
    if (k.nr_tunables() == 0) {
        std::vector<std::string> with;
        for (const sched::SchedulerKind* s : sched::scheduler_kinds())
            if (s->nr_tunables() > 0) with.emplace_back(s->name());
        st.rep.fail(ptr, "iosched tunables need a scheduler that has them (scheduler is " + squote(c.scheduler) + "; " +
                         join_words(with, " and ") + " have iosched tunables)");
    }
    std::vector<std::string> names;
    for (std::size_t i = 0; i < k.nr_tunables(); ++i) names.emplace_back(k.tunable(i).name);
    // One setting in two units: the later sysfs write would win, a JSON object has no order.
    for (const auto& [a, b] : k.same_setting()) {
        const std::string sa(a), sb(b);
        if (obj.contains(sa) && obj.contains(sb)) {
            const auto ua = unit_symbol(k.tunable(std::find(names.begin(), names.end(), sa) - names.begin()).unit);
            const auto ub = unit_symbol(k.tunable(std::find(names.begin(), names.end(), sb) - names.begin()).unit);
            st.rep.fail(child(ptr, sb), sa + " and " + sb + " are the same setting (" + ua + " and " + ub + "): give one");
        }
    }
    for (const auto& [key, value] : obj.items()) {
        const std::string at = child(ptr, key);
        const auto i = static_cast<std::size_t>(std::find(names.begin(), names.end(), key) - names.begin());
        if (i == names.size())
            st.rep.fail(at, "unknown " + c.scheduler + " tunable " + squote(key) + " (allowed: " + join(names) + ")");
        const sched::TunableInfo t = k.tunable(i);
        if (!value.is_number_integer())
            st.rep.fail(at, "expected an integer in sysfs units (" + std::string(unit_words(t.unit)) + ")");
        const int64_t v = value.template get<int64_t>();
        if (v < t.min || v > t.max)
            st.rep.fail(at, std::to_string(v) + " is out of range (allowed: " + std::to_string(t.min) + ".." + std::to_string(t.max) + ")");
        k.set(c.iosched, i, v);
    }
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

void decode_kernel_schedulers(DecodeState& st) {
    for (size_t d = 0; d < st.queues.size(); ++d) {
        blkmq::QueueConfig& c = st.queues[d].config;
        const sched::SchedulerKind* k = sched::find_scheduler_kind(c.scheduler);
        const std::string_view elevator = k ? sched::kernel_elevator_of(*k) : std::string_view{};
        if (elevator.empty())
            continue;
        const std::string where = st.queues[d].scheduler_ptr.empty() ? "/queues" : st.queues[d].scheduler_ptr;
        if (!st.doc.contains("kernel") || !st.doc["kernel"].contains("tree"))
            st.rep.fail(where, "scheduler " + c.scheduler + " runs the kernel's own source: name it with kernel.tree "
                               "(a kernel tree, its block/ folder or the .c file) or --kernel-tree DIR");
        std::filesystem::path tree = st.doc["kernel"]["tree"].get<std::string>();
        if (tree.is_relative())
            tree = st.ctx.scenario_dir / tree;
        try {
            c.kernel_plugin = sched::build_kernel_plugin(tree, elevator, kernel_plugin_data()).string();
            const auto plugin = sched::KernelPlugin::load(c.kernel_plugin);
            if (const auto* t = std::any_cast<sched::KernelTunables>(&c.iosched))
                for (const auto& [name, value] : t->values) {
                    bool found = false;
                    for (unsigned i = 0; const char* a = plugin->api().attr_name(i); ++i)
                        found = found || name == a;
                    const std::string& sp = st.queues[d].scheduler_ptr;
                    const std::string at = sp.ends_with("/scheduler")
                                               ? child(child(sp.substr(0, sp.size() - 10), "iosched"), name)
                                               : "/queues";
                    if (!found)
                        st.rep.fail(at,
                                    "the kernel's " + std::string(elevator) + " has no sysfs attribute " + squote(name));
                }
        } catch (const sched::KernelPluginError& e) {
            st.rep.fail("/kernel/tree", e.what());
        }
    }
}

}  // namespace blksim::scenario
