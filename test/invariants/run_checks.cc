#include "models/device/raid_config.h"
#include "models/device/nvme_config.h"
#include "models/device/sata_ssd_config.h"
#include "models/device/hdd_config.h"
#include "test/invariants/run_checks.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

namespace blksim::invsearch {

namespace {

using sim::LatencyHistogram;

class Checker {
public:
    std::vector<Violation> out;
    std::function<void(const Violation&)> each;

    void fail(std::string kind, std::string detail) {
        out.push_back({std::move(kind), std::move(detail)});
        if (each)
            each(out.back());
    }

    // min <= mean <= max, min >= 0 (a latency or a stage is a duration).
    template <typename Stat>
    void stat(const std::string& kind, const std::string& where, const Stat& s) {
        if (s.count() == 0)
            return;
        if (s.min() < 0)
            fail(kind + "-min<0", fmt::format("{}: min {} ns", where, s.min()));
        // Welford's mean may drift by rounding; anything beyond that is a wrong stat.
        const double slack = 1e-9 * std::max(std::abs(s.min()), std::abs(s.max())) + 1e-6;
        if (s.mean() < s.min() - slack || s.mean() > s.max() + slack || s.min() > s.max())
            fail(kind + "-mean-outside-min-max",
                 fmt::format("{}: min {} mean {} max {} ns", where, s.min(), s.mean(), s.max()));
    }

    // The histogram against the stat it shadows: every sample counted, fio's percentiles
    // non-decreasing, and each percentile (a bucket's midpoint) no lower than min's bucket
    // and no higher than max's: the histogram cannot hold a sample outside [min, max].
    template <typename Stat>
    void percentiles(const std::string& kind, const std::string& where, const Stat& s, const LatencyHistogram& h) {
        if (h.total() != s.count())
            fail(kind + "-histogram-count", fmt::format("{}: histogram holds {} samples, stat {}", where, h.total(), s.count()));
        if (s.count() == 0 || s.min() < 0)
            return;  // a negative min is reported by stat(); its bucket is meaningless
        const auto p = h.percentiles(LatencyHistogram::default_percentiles());
        const uint64_t lo = LatencyHistogram::idx_to_val(LatencyHistogram::val_to_idx(static_cast<uint64_t>(s.min())));
        const uint64_t hi = LatencyHistogram::idx_to_val(LatencyHistogram::val_to_idx(static_cast<uint64_t>(s.max())));
        for (std::size_t i = 0; i < p.size(); ++i) {
            if (i > 0 && p[i] < p[i - 1]) {
                fail(kind + "-percentiles-decrease", fmt::format("{}: p{} = {} < p{} = {}", where,
                     LatencyHistogram::default_percentiles()[i], p[i], LatencyHistogram::default_percentiles()[i - 1], p[i - 1]));
                break;
            }
            if (p[i] < lo || p[i] > hi) {
                fail(kind + "-percentile-outside-min-max", fmt::format("{}: p{} = {} ns outside [{}, {}] (buckets of min {} and max {})",
                     where, LatencyHistogram::default_percentiles()[i], p[i], lo, hi, s.min(), s.max()));
                break;
            }
        }
    }

    template <typename Stat>
    void latency(const std::string& kind, const std::string& where, const Stat& s, const LatencyHistogram& h) {
        stat(kind, where, s);
        percentiles(kind, where, s, h);
    }
};

// The rule a logic_error from Machine::run() names, as the failure class.
std::string classify_run_error(const std::string& what) {
    if (what.find("the run stalled") != std::string::npos)
        return "run-stalled";
    if (what.find("no I/O completed for") != std::string::npos)
        return "run-no-progress";
    if (const auto at = what.find("(rule: "); at != std::string::npos) {
        const auto end = what.find(')', at);
        return "run-invariant: " + what.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
    }
    return "run-error";
}

// The host link each model moves data over, bytes per second; 0 where the model has none
// (null_blk). Every byte of a request crosses it, cache hit or not.
uint64_t link_rate(const dev::DeviceConfig& d) {
    if (const auto* c = d.get<dev::NvmeConfig>()) return c->link_bytes_per_s;
    if (const auto* c = d.get<dev::SataSsdConfig>()) return c->link_bytes_per_s;
    if (const auto* c = d.get<dev::RaidConfig>()) return c->link_bytes_per_s;
    if (const auto* c = d.get<dev::HddConfig>()) {
        // A measured drive gives its bus time per sector instead.
        if (c->sector_xfer.count() > 0)
            return static_cast<uint64_t>(512.0 * 1e9 / static_cast<double>(c->sector_xfer.count()));
        return c->link_bytes_per_s;
    }
    return 0;
}

// The JobConfig of each of a run's job results: the machine makes one per numjobs clone, in
// job order.
std::vector<const workload::JobConfig*> config_of_results(const topology::MachineConfig& m) {
    std::vector<const workload::JobConfig*> out;
    for (const auto& j : m.jobs)
        out.insert(out.end(), j.numjobs, &j);
    return out;
}

// Bytes moved against the link: each job's over its own runtime, and each device's jobs
// together over the whole run. A model times each transfer in whole nanoseconds, so one
// nanosecond per I/O is allowed for rounding. A job with ramp_time may also count what it had
// in flight when its measured window opened, whose data may have crossed before it.
void check_bandwidth(Checker& c, const topology::MachineConfig& m, const result::RunResult& r) {
    std::map<std::string, uint64_t> rate;
    for (const auto& d : m.devices)
        rate[d.name] = link_rate(d);
    std::map<std::string, double> bytes, ios;
    const std::vector<const workload::JobConfig*> configs = config_of_results(m);
    if (configs.size() != r.jobs.size()) {
        c.fail("jobs", fmt::format("{} job results for {} job threads", r.jobs.size(), configs.size()));
        return;
    }
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
        const result::JobResult& j = r.jobs[i];
        const workload::JobConfig& cfg = *configs[i];
        const auto it = rate.find(cfg.device);
        if (it == rate.end() || it->second == 0)
            continue;
        const double b = static_cast<double>(j.dir[0].io_bytes + j.dir[1].io_bytes);
        const double n = static_cast<double>(j.dir[0].total_ios + j.dir[1].total_ios);
        bytes[cfg.device] += b;
        ios[cfg.device] += n;
        const double inflight = cfg.ramp_time.count() == 0 ? 0.0
            : static_cast<double>(cfg.iodepth) * static_cast<double>(std::max(cfg.max_bs(0), cfg.max_bs(1)));
        const double allowed = static_cast<double>(it->second) * (j.runtime.seconds() + n * 1e-9) + inflight;
        if (b > allowed)
            c.fail("bandwidth>link", fmt::format("job {} on {}: {:.0f} bytes in {} ns = {:.0f} MB/s, link {} MB/s",
                   j.name, cfg.device, b, j.runtime.count(), b / std::max(j.runtime.seconds(), 1e-12) / 1e6,
                   it->second / 1'000'000));
    }
    for (const auto& [dev, b] : bytes) {
        const double allowed = static_cast<double>(rate[dev]) * (r.sim_time.seconds() + ios[dev] * 1e-9);
        if (b > allowed)
            c.fail("bandwidth>link", fmt::format("device {}: {:.0f} bytes in a run of {} ns, link {} MB/s",
                   dev, b, r.sim_time.count(), rate[dev] / 1'000'000));
    }
}

// A JSON path with its array indexes as '*' ("/blksim/devices/*/hw_tag"): one failure class
// for the same key of every device, job or queue.
std::string key_pattern(const std::string& path) {
    std::string out;
    std::size_t i = 0;
    while (i < path.size()) {
        const std::size_t end = std::min(path.find('/', i + 1), path.size());
        const std::string part = path.substr(i, end - i);  // "/name"
        out += part.find_first_not_of("/0123456789") == std::string::npos ? std::string("/*") : part;
        i = end;
    }
    return out;
}

// fio's JSON: it must parse, and hold no integer that only a negative (or NaN) value cast
// to an unsigned type gives: nothing a run of a few simulated seconds counts comes near 2^62.
void check_json_numbers(Checker& c, const nlohmann::json& v, const std::string& path) {
    if (v.is_object()) {
        for (const auto& [k, x] : v.items())
            check_json_numbers(c, x, path + "/" + k);
    } else if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i)
            check_json_numbers(c, v[i], path + "/" + std::to_string(i));
    } else if (v.is_number_unsigned() && v.get<uint64_t>() >= (uint64_t{1} << 62)) {
        c.fail("json-number-out-of-range " + key_pattern(path), fmt::format("{} = {}", path, v.get<uint64_t>()));
    } else if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() <= -(int64_t{1} << 62)) {
        c.fail("json-number-out-of-range " + key_pattern(path), fmt::format("{} = {}", path, v.get<int64_t>()));
    }
}

void check_result(Checker& c, const topology::MachineConfig& m, const result::RunResult& r, bool group) {
    const int64_t run_ns = r.sim_time.count();
    for (const auto& cpu : r.cpus) {
        if (cpu.busy.count() > run_ns)
            c.fail("cpu-busy>100%", fmt::format("cpu {}: busy {} ns in a run of {} ns ({:.1f} %)", cpu.id,
                   cpu.busy.count(), run_ns, run_ns ? 100.0 * cpu.busy.count() / run_ns : 0.0));
        if (cpu.irq > cpu.busy || cpu.spin > cpu.busy || cpu.irq.count() < 0 || cpu.spin.count() < 0)
            c.fail("cpu-irq-or-spin-outside-busy", fmt::format("cpu {}: busy {} irq {} spin {} ns", cpu.id,
                   cpu.busy.count(), cpu.irq.count(), cpu.spin.count()));
    }
    for (const auto& d : r.disks)
        if (d.util > 100.0 + 1e-9 || d.util < 0)
            c.fail("disk-util>100%", fmt::format("disk {}: util {:.3f} %", d.name, d.util));
    for (const auto& q : r.queues) {
        const std::pair<const char*, const result::StageStat*> stages[] = {
            {"q2g", &q.q2g}, {"g2i", &q.g2i}, {"i2d", &q.i2d}, {"d2c", &q.d2c}, {"q2c", &q.q2c}};
        for (const auto& [name, s] : stages)
            c.latency(std::string("stage-") + name, q.name + " " + name, s->stat, s->hist);
    }
    for (const auto& j : r.jobs) {
        for (unsigned d = 0; d < result::DDIR_RWDIR_CNT; ++d) {
            const auto& dr = j.dir[d];
            const std::string where = fmt::format("job {} {}", j.name, d ? "write" : "read");
            c.stat("slat", where, dr.slat);
            c.latency("clat", where, dr.clat, dr.clat_hist);
            c.stat("lat", where, dr.lat);
            for (const auto& p : dr.prios)
                c.latency("prio-clat", fmt::format("{} prio {}/{}", where, p.ioprio_class, p.ioprio_level), p.clat, p.clat_hist);
        }
        c.latency("sync-lat", fmt::format("job {} sync", j.name), j.sync.lat, j.sync.hist);
    }
    check_bandwidth(c, m, r);
    try {
        check_json_numbers(c, nlohmann::json::parse(report::format_json(r, group)), "");
    } catch (const nlohmann::json::exception& e) {
        c.fail("json-invalid", e.what());
    }
}

std::string report_text(const result::RunResult& r, bool group) {
    return report::format_normal(r, group) + report::format_blksim_extras(r) + report::format_json(r, group);
}

}  // namespace

std::vector<Violation> check_scenario(const std::string& text, const std::string& name, bool run_twice,
                                      const std::function<void(const Violation&)>& each) {
    Checker c;
    c.each = each;
    scenario::Scenario s;
    try {
        s = scenario::load_scenario_text(text, name);
    } catch (const scenario::ScenarioError& e) {
        c.fail("refused", e.what());
        return c.out;
    }
    const bool group = s.output.group_reporting;
    std::string first;
    for (int pass = 0; pass < (run_twice ? 2 : 1); ++pass) {
        result::RunResult r;
        // Outside the try: a failed run is reported before the machine is torn down.
        std::optional<topology::Machine> m;
        try {
            m.emplace(s.machine);
            r = m->run();
        } catch (const std::invalid_argument& e) {
            c.fail("machine-refused", e.what());  // the loader passed what the machine cannot build
            return c.out;
        } catch (const std::logic_error& e) {
            c.fail(classify_run_error(e.what()), e.what());
            return c.out;
        }
        if (pass == 0) {
            check_result(c, s.machine, r, group);
            first = report_text(r, group);
        } else if (report_text(r, group) != first) {
            c.fail("nondeterministic", "the same scenario run twice printed different reports");
        }
    }
    return c.out;
}

}  // namespace blksim::invsearch
