// One simulation of a loaded scenario, reduced to the figures compare and sweep work with.
// Safe to call from several threads at once: a run owns all its state (sim/ and models/
// keep no mutable globals; test/compare checks concurrent runs against serial ones).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "models/result/run_result.h"
#include "models/topology/machine_config.h"

namespace blksim::experiment {

// One figure of a run. key: "<group>/<dir>.<name>", e.g. "randread/read.clat_p99_ns", where
// <group> is the name of the group's first job (fio's group_reporting name) and <dir> read
// or write; only directions that completed I/O have figures.
struct Metric {
    std::string key;
    double value = 0.0;
};

// The per-direction figures, in report order, and which way is better.
struct MetricKind {
    std::string_view name;      // "iops", "bw_bytes", "clat_mean_ns", ...
    bool higher_is_better;
};
const std::vector<MetricKind>& metric_kinds();
// For a key "<scope>/<section>.<name>" or a suffix "<section>.<name>": whether higher is
// better. False for an unknown name (callers check with is_metric_suffix first).
bool higher_is_better(std::string_view key);
// A suffix of run_metrics' or detail_metrics' keys: "<dir>.<name>" with dir read/write and a
// name of metric_kinds(), slat_mean_ns or prio<class>_<level>.clat_{mean,p99}_ns; cpu.usr_pct,
// cpu.sys_pct, cpu.spin_pct; btt.<stage>_{mean,p99}_ns; lock.wait_ns; tags.driver_sleeps,
// tags.sched_sleeps.
bool is_metric_suffix(std::string_view s);
// Every accepted suffix, comma-separated, for error messages.
std::string metric_suffixes();

// Per job group (fio's group_reporting aggregate: all threads of the group merged), per
// direction that did I/O: IOPS and bandwidth as fio computes them (I/Os and bytes over the
// group's runtime), completion latency mean and 50/99/99.9th percentiles (fio's method).
std::vector<Metric> run_metrics(const result::RunResult& r);
// run_metrics' figures and what else a run measured that a what-if changes (docs/compare.md):
// per group and direction slat_mean_ns (engines with a submission latency) and the clat mean
// and p99 of each I/O priority fio reports in clat_prio ("<dir>.prio<class>_<level>.clat_mean_ns");
// per group "cpu.usr_pct" / "cpu.sys_pct" (fio's cpu line); "all/cpu.spin_pct" (the CPUs'
// time spinning on locks); per disk "<disk>/btt.<stage>_mean_ns" / "_p99_ns" for q2g g2i i2d
// d2c q2c (0 for a stage no request passed), "lock.wait_ns" (the elevator locks' spin time,
// summed; 0 without one) and "tags.driver_sleeps" / "tags.sched_sleeps".
std::vector<Metric> detail_metrics(const result::RunResult& r);
// "prio<class>_<level>": fio's "prio <class>/<level>" as a metric key names it.
std::string prio_name(const result::PrioResult& p);
// The <group> part of the keys of fio::thread_stats(r, true)'s groups, in their order: the
// first job's name, "<name>#<groupid>" when two groups share it.
std::vector<std::string> group_names(const std::vector<result::JobResult>& groups);

// Outcome of one simulation: status 0 ok, 2 the machine could not be built (bad input),
// 1 the run failed an invariant, INTERRUPTED it was stopped (MachineConfig::stop) or never
// started; error says why.
struct SimOutcome {
    static constexpr int INTERRUPTED = -1;
    int status = 0;
    std::string error;
    std::vector<Metric> metrics;
    uint64_t digest = 0;  // blksim regress: a hash of the run's whole report (0 unless asked)
};
// metrics: how the run is reduced to figures (run_metrics, or reproduce's richer set).
using MetricsFn = std::vector<Metric> (*)(const result::RunResult&);
SimOutcome simulate(const topology::MachineConfig& cfg, MetricsFn metrics = run_metrics);
// As simulate, the run reduced by `reduce`, which fills the outcome's metrics (and digest).
using ReduceFn = std::function<void(const result::RunResult&, SimOutcome&)>;
SimOutcome simulate_with(const topology::MachineConfig& cfg, const ReduceFn& reduce);

// What simulating cfg costs, roughly, for ordering runs dearest first (the thread pool's
// dearest_first): the events of a pilot run of 1/32 of every job's runtime (and number_ios),
// so proportional to the full run's events whatever the model. Deterministic. 0 when no job
// is bounded by runtime or number_ios (a size-bound job would run in full) or the pilot fails.
double estimate_cost(const topology::MachineConfig& cfg);

}  // namespace blksim::experiment
