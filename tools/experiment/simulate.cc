#include "tools/experiment/simulate.h"

#include <algorithm>
#include <array>
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

const MetricKind* kind_of_suffix(std::string_view s) {
    for (const std::string_view dir : DIR_NAMES) {
        if (s.size() > dir.size() + 1 && s.substr(0, dir.size()) == dir && s[dir.size()] == '.') {
            const std::string_view name = s.substr(dir.size() + 1);
            for (const MetricKind& k : metric_kinds())
                if (k.name == name)
                    return &k;
        }
    }
    return nullptr;
}

}  // namespace

bool is_metric_suffix(std::string_view s) { return kind_of_suffix(s) != nullptr; }

bool higher_is_better(std::string_view key) {
    // The group name may contain '/' itself: the suffix is what follows the last one.
    const auto slash = key.rfind('/');
    const MetricKind* k = kind_of_suffix(slash == std::string_view::npos ? key : key.substr(slash + 1));
    return k && k->higher_is_better;
}

std::string metric_suffixes() {
    std::string out;
    for (const std::string_view dir : DIR_NAMES)
        for (const MetricKind& k : metric_kinds())
            out += fmt::format("{}{}.{}", out.empty() ? "" : ", ", dir, k.name);
    return out;
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
