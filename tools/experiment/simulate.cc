#include "tools/experiment/simulate.h"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "models/report/fio_format.h"
#include "models/topology/machine.h"

namespace blksim::experiment {

const std::vector<MetricKind>& metric_kinds() {
    // Immutable after its (thread-safe) initialisation.
    static const std::vector<MetricKind> kinds = {
        {"iops", true},         {"bw_bytes", true},     {"clat_mean_ns", false},
        {"clat_p50_ns", false}, {"clat_p99_ns", false}, {"clat_p99.9_ns", false},
    };
    return kinds;
}

namespace {

constexpr std::array<std::string_view, 2> DIR_NAMES = {"read", "write"};
constexpr std::array<std::string_view, 5> BTT_STAGES = {"q2g", "g2i", "i2d", "d2c", "q2c"};

// detail_metrics' sections besides the directions, and their names (all lower is better).
struct Section {
    std::string_view name;
    std::vector<std::string_view> metrics;
};
const std::vector<Section>& sections() {
    static const std::vector<Section> s = {
        {"cpu", {"usr_pct", "sys_pct", "spin_pct"}},
        {"btt", {"q2g_mean_ns", "q2g_p99_ns", "g2i_mean_ns", "g2i_p99_ns", "i2d_mean_ns", "i2d_p99_ns",
                 "d2c_mean_ns", "d2c_p99_ns", "q2c_mean_ns", "q2c_p99_ns"}},
        {"lock", {"wait_ns"}},
        {"tags", {"driver_sleeps", "sched_sleeps", "dispatch_waits"}},
    };
    return s;
}

// "prio<class>_<level>.clat_mean_ns" or "..._p99_ns".
bool is_prio_clat(std::string_view name) {
    if (!name.starts_with("prio"))
        return false;
    const auto dot = name.find('.');
    if (dot == std::string_view::npos || (name.substr(dot) != ".clat_mean_ns" && name.substr(dot) != ".clat_p99_ns"))
        return false;
    const std::string_view cl = name.substr(4, dot - 4);
    const auto us = cl.find('_');
    return us != std::string_view::npos && us > 0 && us + 1 < cl.size() && cl.find('_', us + 1) == std::string_view::npos &&
           std::all_of(cl.begin(), cl.end(), [](char c) { return c == '_' || (c >= '0' && c <= '9'); });
}

// Whether higher is better for a suffix "<section>.<name>"; nullopt when it is none.
std::optional<bool> suffix_direction(std::string_view s) {
    const auto dot = s.find('.');
    if (dot == std::string_view::npos)
        return std::nullopt;
    const std::string_view section = s.substr(0, dot), name = s.substr(dot + 1);
    if (std::find(DIR_NAMES.begin(), DIR_NAMES.end(), section) != DIR_NAMES.end()) {
        for (const MetricKind& k : metric_kinds())
            if (k.name == name)
                return k.higher_is_better;
        if (name == "slat_mean_ns" || is_prio_clat(name))
            return false;
        return std::nullopt;
    }
    for (const Section& sec : sections())
        if (sec.name == section && std::find(sec.metrics.begin(), sec.metrics.end(), name) != sec.metrics.end())
            return false;
    return std::nullopt;
}

}  // namespace

bool is_metric_suffix(std::string_view s) { return suffix_direction(s).has_value(); }

bool higher_is_better(std::string_view key) {
    // The group name may contain '/' itself: the suffix is what follows the last one.
    const auto slash = key.rfind('/');
    return suffix_direction(slash == std::string_view::npos ? key : key.substr(slash + 1)).value_or(false);
}

std::string metric_suffixes() {
    std::string out;
    for (const std::string_view dir : DIR_NAMES) {
        for (const MetricKind& k : metric_kinds())
            out += fmt::format("{}{}.{}", out.empty() ? "" : ", ", dir, k.name);
        out += fmt::format(", {0}.slat_mean_ns, {0}.prio<class>_<level>.clat_mean_ns, "
                           "{0}.prio<class>_<level>.clat_p99_ns", dir);
    }
    for (const Section& sec : sections())
        for (const std::string_view m : sec.metrics)
            out += fmt::format(", {}.{}", sec.name, m);
    return out;
}

std::string prio_name(const result::PrioResult& p) {
    return fmt::format("prio{}_{}", p.ioprio_class, p.ioprio_level);
}

std::vector<std::string> group_names(const std::vector<result::JobResult>& groups) {
    std::vector<std::string> names;
    for (const result::JobResult& g : groups) {
        // Two groups whose first jobs share a name keep apart by their group id.
        std::string name = g.name;
        for (const result::JobResult& o : groups)
            if (&o != &g && o.name == g.name) {
                name = fmt::format("{}#{}", g.name, g.groupid);
                break;
            }
        names.push_back(std::move(name));
    }
    return names;
}

std::vector<Metric> run_metrics(const result::RunResult& r) {
    const std::vector<result::JobResult> groups = report::fio::thread_stats(r, true);
    const std::vector<std::string> names = group_names(groups);
    std::vector<Metric> out;
    static constexpr std::array<double, 3> PLIST = {50.0, 99.0, 99.9};
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const result::JobResult& g = groups[gi];
        const std::string& name = names[gi];
        for (unsigned d = 0; d < result::DDIR_RWDIR_CNT; ++d) {
            const result::DirResult& dr = g.dir[d];
            if (dr.total_ios == 0)
                continue;
            // The exact simulated runtime: fio rounds it up to a millisecond, which would
            // quantise IOPS of short runs (and add noise to a comparison of them).
            const double secs = g.runtime.seconds();
            const std::vector<uint64_t> p = dr.clat_hist.percentiles_within(
                PLIST, static_cast<uint64_t>(dr.clat.min()), static_cast<uint64_t>(dr.clat.max()));
            const std::array<double, 6> values = {
                secs > 0 ? static_cast<double>(dr.total_ios) / secs : 0.0,
                secs > 0 ? static_cast<double>(dr.io_bytes) / secs : 0.0,
                dr.clat.mean(),
                static_cast<double>(p[0]),
                static_cast<double>(p[1]),
                static_cast<double>(p[2]),
            };
            for (std::size_t k = 0; k < values.size(); ++k)
                out.push_back({fmt::format("{}/{}.{}", name, DIR_NAMES[d], metric_kinds()[k].name), values[k]});
        }
    }
    return out;
}

std::vector<Metric> detail_metrics(const result::RunResult& r) {
    std::vector<Metric> out = run_metrics(r);
    const std::vector<result::JobResult> groups = report::fio::thread_stats(r, true);
    const std::vector<std::string> names = group_names(groups);
    static constexpr std::array<double, 1> P99 = {99.0};
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        const result::JobResult& g = groups[gi];
        for (unsigned d = 0; d < result::DDIR_RWDIR_CNT; ++d) {
            const result::DirResult& dr = g.dir[d];
            if (dr.total_ios == 0)
                continue;
            const std::string prefix = fmt::format("{}/{}.", names[gi], DIR_NAMES[d]);
            if (dr.slat.count() > 0)
                out.push_back({prefix + "slat_mean_ns", dr.slat.mean()});
            for (const result::PrioResult& p : dr.prios) {
                if (p.clat.count() == 0)
                    continue;
                const std::vector<uint64_t> q = p.clat_hist.percentiles_within(
                    P99, static_cast<uint64_t>(p.clat.min()), static_cast<uint64_t>(p.clat.max()));
                out.push_back({prefix + prio_name(p) + ".clat_mean_ns", p.clat.mean()});
                out.push_back({prefix + prio_name(p) + ".clat_p99_ns", static_cast<double>(q[0])});
            }
        }
        const report::fio::CpuUsage cpu = report::fio::cpu_usage(g);
        out.push_back({names[gi] + "/cpu.usr_pct", cpu.usr});
        out.push_back({names[gi] + "/cpu.sys_pct", cpu.sys});
    }
    // Spinning is the CPUs' (a job's thread spins on whichever CPU it runs): machine-wide.
    if (!r.cpus.empty() && r.sim_time.count() > 0) {
        double spin = 0.0;
        for (const result::CpuReport& c : r.cpus)
            spin += static_cast<double>(c.spin.count());
        out.push_back({"all/cpu.spin_pct",
                       100.0 * spin / (static_cast<double>(r.sim_time.count()) * static_cast<double>(r.cpus.size()))});
    }
    for (const result::QueueReport& q : r.queues) {
        const std::array<const result::StageStat*, 5> stages = {&q.q2g, &q.g2i, &q.i2d, &q.d2c, &q.q2c};
        for (std::size_t s = 0; s < stages.size(); ++s) {
            const bool any = stages[s]->stat.count() > 0;
            out.push_back({fmt::format("{}/btt.{}_mean_ns", q.name, BTT_STAGES[s]), stages[s]->stat.mean()});
            out.push_back({fmt::format("{}/btt.{}_p99_ns", q.name, BTT_STAGES[s]),
                           any ? static_cast<double>(stages[s]->percentiles(P99)[0]) : 0.0});
        }
        double wait = 0.0;
        for (const result::LockReport& l : q.locks)
            wait += static_cast<double>(l.wait.count());
        out.push_back({q.name + "/lock.wait_ns", wait});
        out.push_back({q.name + "/tags.driver_sleeps", static_cast<double>(q.tag_sleeps)});
        out.push_back({q.name + "/tags.sched_sleeps", static_cast<double>(q.sched_tag_sleeps)});
        out.push_back({q.name + "/tags.dispatch_waits", static_cast<double>(q.driver_tag_waits)});
    }
    return out;
}

SimOutcome simulate(const topology::MachineConfig& cfg, MetricsFn metrics) {
    return simulate_with(cfg, [metrics](const result::RunResult& r, SimOutcome& o) { o.metrics = metrics(r); });
}

SimOutcome simulate_with(const topology::MachineConfig& cfg, const ReduceFn& reduce) {
    SimOutcome o;
    try {
        topology::Machine machine(cfg);
        reduce(machine.run(), o);
    } catch (const topology::Interrupted& e) {
        o.status = SimOutcome::INTERRUPTED;
        o.error = e.what();
    } catch (const std::invalid_argument& e) {
        o.status = 2;  // a machine that cannot be built from a scenario that decoded
        o.error = e.what();
    } catch (const std::logic_error& e) {
        o.status = 1;  // an invariant violation
        o.error = e.what();
    } catch (const std::exception& e) {
        o.status = 1;
        o.error = e.what();
    }
    return o;
}

double estimate_cost(const topology::MachineConfig& cfg) {
    constexpr int64_t PILOT_DIVISOR = 32;
    topology::MachineConfig pilot = cfg;
    for (workload::JobConfig& j : pilot.jobs) {
        if (j.runtime.count() == 0 && j.number_ios == 0)
            return 0.0;
        if (j.runtime.count() > 0)
            j.runtime = sim::Duration::ns(std::max<int64_t>(1, j.runtime.count() / PILOT_DIVISOR));
        j.ramp_time = sim::Duration::ns(j.ramp_time.count() / PILOT_DIVISOR);
        if (j.number_ios > 0)
            j.number_ios = std::max<uint64_t>(1, j.number_ios / PILOT_DIVISOR);
    }
    try {
        topology::Machine machine(pilot);
        (void)machine.run();
        return static_cast<double>(machine.events_processed());
    } catch (const std::exception&) {
        return 0.0;  // the full run will fail the same way and say why
    }
}

}  // namespace blksim::experiment
