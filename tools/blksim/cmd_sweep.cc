// `blksim sweep` and `blksim sweep-merge`. Each point is a full, single-threaded simulation;
// points run side by side on a thread pool, dearest first, and land in their own slot, so the
// files written do not depend on --jobs, on the order or on which point finished first.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/commands.h"
#include "tools/blksim/interrupt.h"
#include "tools/blksim/output_file.h"
#include "tools/blksim/slurm_script.h"
#include "tools/experiment/mem_limit.h"
#include "tools/experiment/progress.h"
#include "tools/input/input_file.h"
#include "tools/experiment/simulate.h"
#include "tools/experiment/sweep.h"
#include "tools/experiment/thread_pool.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

namespace {

using namespace blksim::experiment;

// The --csv / --json outputs ("-" = stdout; neither: CSV on stdout), opened before any
// point runs. Throws OutputError.
struct SweepFiles {
    OutputFile csv, json;
    SweepFiles(const std::string& csv_path, const std::string& json_path) {
        if (csv_path.empty() && json_path.empty())
            csv.open("-", "--csv");
        if (!csv_path.empty())
            csv.open(csv_path, "--csv");
        if (!json_path.empty())
            json.open(json_path, "--json");
    }
    void write(const SweepOutput& o) {
        if (csv.is_open()) {
            csv.write(to_csv(o));
            csv.finish();
        }
        if (json.is_open()) {
            json.write(to_json(o));
            json.finish();
        }
    }
};

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v)
        s += (s.empty() ? "" : " ") + x;
    return s;
}

// Loads the scenario with `sets` and checks that `at_once` of its machines fit in mem_limit;
// on error prints it after `what` and returns false.
bool check_load(const SweepOptions& o, const std::vector<std::string>& sets, const std::string& what,
                std::vector<std::string>& warnings, std::size_t at_once, uint64_t mem_limit) {
    scenario::FioPolicy policy;
    policy.warnings = &warnings;
    try {
        const scenario::Scenario s = o.source.load(sets, o.scheduler, policy);
        if (const std::string why = over_mem_limit(s.machine, at_once, mem_limit); !why.empty()) {
            fmt::print(stderr, "blksim: sweep: {}{}: {}\n", what, o.source.describe(o.scheduler), why);
            return false;
        }
        return true;
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: sweep: {}{}\n", what, e.what());
        return false;
    }
}

// --param and --shard into `out`, and the number of points they make; false after saying
// what is wrong.
bool parse_sweep(const SweepOptions& o, SweepOutput& out, std::size_t& n) {
    try {
        for (const std::string& spec : o.params) {
            out.params.push_back(parse_param(spec));
            for (std::size_t k = 0; k + 1 < out.params.size(); ++k)
                if (out.params[k].path == out.params.back().path)
                    throw SweepError(fmt::format("--param {}: the path is swept twice (allowed: each path once, "
                                                 "with all its values: {}=V1,V2,...)",
                                                 out.params.back().path, out.params.back().path));
        }
        if (!o.shard.empty())
            out.shard = parse_shard(o.shard);
    } catch (const SweepError& e) {
        fmt::print(stderr, "blksim: sweep: {}\n", e.what());
        return false;
    }
    try {
        n = point_count(out.params);
    } catch (const SweepError& e) {
        fmt::print(stderr, "blksim: sweep: {}\n", e.what());
        return false;
    }
    return true;
}

// Bad input is found before anything runs, and blamed on the option that carries it: the
// scenario with the common --set overrides, then each --param value on its own. The
// loader's warnings are printed once each.
bool check_inputs(const SweepOptions& o, const std::vector<SweepParam>& params, std::size_t at_once,
                  uint64_t mem_limit) {
    std::vector<std::string> warnings;
    if (!check_load(o, o.sets, "", warnings, at_once, mem_limit))
        return false;
    for (const SweepParam& p : params)
        for (const std::string& v : p.values) {
            std::vector<std::string> sets = o.sets;
            sets.push_back(p.path + "=" + v);
            if (!check_load(o, sets, fmt::format("--param {}={}: ", p.path, v), warnings, at_once, mem_limit))
                return false;
        }
    for (const std::string& w : std::set<std::string>(warnings.begin(), warnings.end()))
        fmt::print(stderr, "blksim: warning: {}\n", w);
    return true;
}

// Point `point`'s machine. Each point loads its own scenario: the loader keeps no shared
// state, and the points' configs never exist all at once. nullopt (and `error`): a
// combination of values the loader rejects, or one over the memory limit.
std::optional<topology::MachineConfig> load_point(const SweepOptions& o, const std::vector<SweepParam>& params,
                                                  std::size_t point, std::size_t at_once, uint64_t mem_limit,
                                                  std::string& error) {
    std::vector<std::string> sets = o.sets;
    for (std::string& s : point_sets(params, point))
        sets.push_back(std::move(s));
    std::vector<std::string> ignored;  // printed once, from the checks
    scenario::FioPolicy policy;
    policy.warnings = &ignored;
    try {
        topology::MachineConfig cfg = o.source.load(sets, o.scheduler, policy).machine;
        if (std::string why = over_mem_limit(cfg, at_once, mem_limit); !why.empty()) {
            error = std::move(why);
            return std::nullopt;
        }
        cfg.stop = &interrupted();
        return cfg;
    } catch (const scenario::ScenarioError& e) {
        error = e.what();
        return std::nullopt;
    }
}

// The order the points run in. Points can differ in cost by 10x (numjobs, the scheduler):
// with --order cost the dearest run first, so that the pool does not end with one thread on
// a long point and the others idle. The estimate is a pilot of 1/32 of each point
// (deterministic; ~3 % more CPU time).
template <class Load>
std::vector<std::size_t> point_order(const SweepOptions& o, std::size_t points, unsigned jobs, const Load& load) {
    std::vector<std::size_t> order(points);
    for (std::size_t t = 0; t < order.size(); ++t)
        order[t] = t;
    if (o.order == "cost" && jobs > 1 && points > jobs) {
        std::vector<double> cost(points);
        parallel_for(points, jobs, [&](std::size_t t) {
            std::string error;
            if (const auto cfg = load(t, error))
                cost[t] = estimate_cost(*cfg);
        });
        order = dearest_first(cost);
    }
    return order;
}

// Every replication of `points` points: task u is replication u % runs (seed: the point's
// + u % runs) of point u / runs; a point's replications run together, in point_order's
// order. One a signal kept from running stays INTERRUPTED.
template <class Load>
std::vector<SimOutcome> run_points(const SweepOptions& o, std::size_t points, unsigned jobs, const Load& load) {
    const unsigned runs = o.runs;
    std::vector<SimOutcome> results(points * runs);
    for (SimOutcome& r : results)
        r.status = SimOutcome::INTERRUPTED;  // until it has run
    const std::vector<std::size_t> order = point_order(o, points, jobs, load);
    Progress progress("sweep", results.size(), jobs, o.progress || stderr_is_tty());
    parallel_for(
        results.size(), jobs,
        [&](std::size_t k) {
            const std::size_t t = order[k / runs];
            const std::size_t u = t * runs + k % runs;
            if (interrupted().load())
                return;
            std::string error;
            if (std::optional<topology::MachineConfig> cfg = load(t, error)) {
                cfg->seed += k % runs;
                results[u] = simulate(*cfg);
            } else {
                results[u].status = 2;
                results[u].error = error;
            }
        },
        [&](std::size_t done) { progress.update(done); });
    progress.finish();
    return results;
}

// Every point that finished is kept: a failed one is listed with its error, one that a
// signal stopped as missing. A point's replications are results[t * runs + r]: one that
// failed fails the point, one not run leaves it missing; the point's figures are its one
// run's, or with --runs N their means and intervals. The first failed point's status, else 0.
int gather_points(const std::vector<std::size_t>& mine, unsigned runs, std::vector<SimOutcome>& results,
                  SweepOutput& out) {
    int status = 0;
    for (std::size_t t = 0; t < mine.size(); ++t) {
        const auto reps = results.begin() + static_cast<std::ptrdiff_t>(t * runs);
        const auto failed = std::find_if(reps, reps + runs, [](const SimOutcome& r) {
            return r.status != 0 && r.status != SimOutcome::INTERRUPTED;
        });
        if (failed != reps + runs) {
            std::string error = std::move(failed->error);
            if (runs > 1)
                error = fmt::format("replication {}: {}", failed - reps, error);
            fmt::print(stderr, "blksim: sweep: point {} ({}): {}\n", mine[t], join(point_sets(out.params, mine[t])),
                       error);
            out.failed.push_back({mine[t], failed->status, std::move(error)});
            if (status == 0)
                status = failed->status;
        } else if (std::any_of(reps, reps + runs, [](const SimOutcome& r) { return r.status != 0; })) {
            out.missing.push_back(mine[t]);
        } else if (runs == 1) {
            out.results.push_back({mine[t], std::move(reps->metrics)});
        } else {
            std::vector<std::vector<Metric>> ms;
            for (auto r = reps; r != reps + runs; ++r)
                ms.push_back(std::move(r->metrics));
            out.results.push_back({mine[t], replication_summary(ms)});
        }
    }
    return status;
}

}  // namespace

static int sweep(const SweepOptions& o);

int cmd_sweep(const SweepOptions& o) {
    try {
        return sweep(o);
    } catch (const OutputError& e) {
        fmt::print(stderr, "blksim: sweep: {}\n", e.what());
        return 2;
    }
}

// Throws OutputError.
static int sweep(const SweepOptions& o) {
    if (!o.source.check("sweep"))
        return 2;
    if (o.runs == 0) {
        fmt::print(stderr, "blksim: sweep: --runs 0: a point needs at least one run (allowed: an integer >= 1; "
                           "2 or more give each figure a confidence interval)\n");
        return 2;
    }
    SweepOutput out;
    out.scenario = o.source.describe(o.scheduler);
    out.sets = o.sets;
    out.runs = o.runs;
    std::size_t n = 0;
    if (!parse_sweep(o, out, n))
        return 2;
    const std::optional<uint64_t> mem_limit = mem_limit_bytes(o.mem_limit);
    if (!mem_limit)
        return 2;
    // The points' results are all kept (every replication's until the end, then a summary
    // of three figures per metric): refused before the list of points is made.
    const std::size_t my_points = n > out.shard.index ? (n - out.shard.index - 1) / out.shard.count + 1 : 0;
    const uint64_t point_bytes = SWEEP_POINT_BYTES * (o.runs == 1 ? 1 : uint64_t{o.runs} + 3);
    if (const std::string why =
            over_mem_limit(my_points > UINT64_MAX / point_bytes ? UINT64_MAX : my_points * point_bytes, *mem_limit);
        !why.empty()) {
        fmt::print(stderr, "blksim: sweep: {} points: {}\n", my_points, why);
        return 2;
    }
    const unsigned jobs = o.jobs ? o.jobs : default_jobs();
    const std::size_t at_once = std::min<std::size_t>(jobs, my_points * o.runs);

    if (!check_inputs(o, out.params, at_once, *mem_limit))
        return 2;
    if (!o.slurm.empty())
        return write_slurm_jobs(o, n);
    SweepFiles files(o.csv, o.json);
    // A signal stops the points running (at their next audit instant) and the ones not yet
    // started; what finished is written, marked incomplete.
    catch_interrupts();

    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < n; ++i)
        if (out.shard.owns(i))
            mine.push_back(i);
    const unsigned runs = o.runs;
    auto load = [&](std::size_t t, std::string& error) {
        return load_point(o, out.params, mine[t], at_once, *mem_limit, error);
    };
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<SimOutcome> results = run_points(o, mine.size(), jobs, load);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    const int status = gather_points(mine, runs, results, out);
    if (interrupted().load())
        out.interrupted = interrupt_signal_name();
    files.write(out);
    if (!out.complete()) {
        fmt::print(stderr, "blksim: sweep: incomplete: {} of {} points have results ({} failed, {} not run{})\n",
                   out.results.size(), mine.size(), out.failed.size(), out.missing.size(),
                   out.interrupted.empty() ? "" : ": interrupted by " + out.interrupted);
        return out.interrupted.empty() ? status : interrupted_exit_status();
    }
    fmt::print(stderr, "blksim: sweep: {} point{}{}{} in {:.2f} s wall on {} thread{}\n", mine.size(),
               mine.size() == 1 ? "" : "s", runs > 1 ? fmt::format(" x {} runs", runs) : "",
               out.shard.active() ? fmt::format(" (shard {}/{} of {})", out.shard.index, out.shard.count, n) : "",
               wall, jobs, jobs == 1 ? "" : "s");
    return 0;
}

int cmd_sweep_merge(const SweepMergeOptions& o) {
    std::vector<SweepOutput> shards;
    try {
        for (const std::string& f : o.inputs) {
            std::string why;
            const std::optional<std::string> text = input::read_file(f, input::kMaxDataFile, why);
            if (!text)
                throw SweepError(fmt::format("{}: cannot open the file: {}", f, why));
            shards.push_back(from_json(*text, f));
        }
        const SweepOutput merged = merge_shards(shards, o.inputs);
        SweepFiles(o.csv, o.json).write(merged);
        return 0;
    } catch (const SweepError& e) {
        fmt::print(stderr, "blksim: sweep-merge: {}\n", e.what());
        return 2;
    } catch (const OutputError& e) {
        fmt::print(stderr, "blksim: sweep-merge: {}\n", e.what());
        return 2;
    }
}

}  // namespace blksim::cli
