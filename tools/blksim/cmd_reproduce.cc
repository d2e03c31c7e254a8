// `blksim reproduce`: every row of the published-figures file (scenarios/seeds/published.json)
// simulated over N seeds. A scenario + overrides that several rows read (the two directions
// of an rw run, the none run of E3's two ratios) runs once per seed; a ratio row divides two
// runs of the same seed (common random numbers, as compare pairs them). The runs go dearest
// first on the thread pool, and land in their own slots: the table does not depend on --jobs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/commands.h"
#include "tools/blksim/output_file.h"
#include "tools/experiment/mem_limit.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/reproduce.h"
#include "tools/experiment/simulate.h"
#include "tools/experiment/thread_pool.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

namespace {

using namespace blksim::experiment;

constexpr unsigned DEFAULT_SEEDS = 5;

std::string default_data_file() { return scenario::default_scenario_dir() + "/seeds/published.json"; }

// One distinct simulation setup and where the data file first asks for it.
struct Setup {
    RunSpec spec;
    std::string where;
    topology::MachineConfig machine;
};

std::size_t setup_of(std::vector<Setup>& setups, const RunSpec& spec, const std::string& where) {
    for (std::size_t i = 0; i < setups.size(); ++i)
        if (setups[i].spec == spec)
            return i;
    setups.push_back({spec, where, {}});
    return setups.size() - 1;
}

// A published row's runs: indices into the setups (base == run when the row is not a ratio).
struct RowRuns {
    const PublishedRow* row;
    std::size_t run, base;
};

// The rows --only selects, each with its run (and its ratio's base run) among the distinct
// setups, which it adds to (with --reduced, the experiment's reduced --set overrides appended).
std::vector<RowRuns> plan_rows(const PublishedData& data, const ReproduceOptions& o, std::vector<Setup>& setups) {
    auto wanted = [&](const PublishedRow& r) {
        return o.only.empty() || std::find(o.only.begin(), o.only.end(), r.experiment) != o.only.end();
    };
    auto with_reduced = [&](const PublishedRow& r, RunSpec spec) {
        if (o.reduced)
            for (const auto& [exp, sets] : data.reduced_sets)
                if (exp == r.experiment)
                    spec.sets.insert(spec.sets.end(), sets.begin(), sets.end());
        return spec;
    };
    std::vector<RowRuns> plan;
    for (const PublishedRow& r : data.rows) {
        // --reduced checks what must pass; hypotheses are never a failure.
        if (!wanted(r) || (o.reduced && r.hypothesis))
            continue;
        const std::size_t run = setup_of(setups, with_reduced(r, r.run), r.where);
        const std::size_t base = r.ratio_to ? setup_of(setups, with_reduced(r, *r.ratio_to), r.where + ".ratio_to") : run;
        plan.push_back({&r, run, base});
    }
    return plan;
}

// Each distinct setup's machine, loaded (and checked) once before anything runs; the
// loader's warnings printed once each.
bool load_setups(std::vector<Setup>& setups) {
    std::vector<std::string> warnings;
    for (Setup& s : setups) {
        scenario::FioPolicy policy;
        policy.warnings = &warnings;
        try {
            s.machine = scenario::load_scenario(s.spec.scenario, s.spec.sets, policy).machine;
        } catch (const scenario::ScenarioError& e) {
            fmt::print(stderr, "blksim: reproduce: {}: {}\n", s.where, e.what());
            return false;
        }
    }
    for (const std::string& w : std::set<std::string>(warnings.begin(), warnings.end()))
        fmt::print(stderr, "blksim: warning: {}\n", w);
    return true;
}

// Every setup with every seed, dearest first: a pilot of each setup (1/32 of its runtime)
// estimates its cost. Task t is setup t / nseeds with seed t % nseeds; a failed run's
// status (after saying which it was), else 0.
int run_setups(const std::vector<Setup>& setups, const std::vector<uint64_t>& seeds, unsigned jobs,
               bool progress_line, std::vector<SimOutcome>& out) {
    const std::size_t nseeds = seeds.size();
    std::vector<double> setup_cost(setups.size());
    parallel_for(setups.size(), jobs, [&](std::size_t s) { setup_cost[s] = estimate_cost(setups[s].machine); });
    const std::size_t n = setups.size() * nseeds;
    std::vector<double> cost(n);
    for (std::size_t t = 0; t < n; ++t)
        cost[t] = setup_cost[t / nseeds];
    const std::vector<std::size_t> order = dearest_first(cost);
    out.assign(n, {});
    Progress progress("reproduce", n, jobs, progress_line || stderr_is_tty());
    parallel_for(
        n, jobs,
        [&](std::size_t k) {
            const std::size_t t = order[k];
            topology::MachineConfig cfg = setups[t / nseeds].machine;
            cfg.seed = seeds[t % nseeds];
            out[t] = simulate(cfg, reproduce_metrics);
        },
        [&](std::size_t done) { progress.update(done); });
    progress.finish();
    for (std::size_t t = 0; t < n; ++t)
        if (out[t].status != 0) {
            const Setup& s = setups[t / nseeds];
            fmt::print(stderr, "blksim: reproduce: {} (seed {}), for {}: {}\n", s.spec.scenario, seeds[t % nseeds],
                       s.where, out[t].error);
            return out[t].status;
        }
    return 0;
}

// A row's value with each seed (the figure, or its ratio to the base run's) against the
// published figure; nullopt (after saying why) when a run lacks the metric or a ratio's
// denominator is 0.
std::optional<RowResult> row_result(const RowRuns& p, const std::vector<Setup>& setups,
                                    const std::vector<uint64_t>& seeds, const std::vector<SimOutcome>& out) {
    const PublishedRow& r = *p.row;
    const std::size_t nseeds = seeds.size();
    std::vector<double> values;
    for (std::size_t i = 0; i < nseeds; ++i) {
        const std::vector<Metric>& mr = out[p.run * nseeds + i].metrics;
        const std::optional<double> v = find_metric(mr, r.metric);
        const std::optional<double> b =
            p.base == p.run ? std::optional<double>(1.0) : find_metric(out[p.base * nseeds + i].metrics, r.metric);
        if (!v || !b) {
            std::string keys;
            for (const Metric& m : (v ? out[p.base * nseeds + i] : out[p.run * nseeds + i]).metrics)
                keys += (keys.empty() ? "" : ", ") + m.key;
            fmt::print(stderr, "blksim: reproduce: {}.metric: '{}' is not a figure of {} (or is in two job "
                               "groups: name the group, GROUP/{}); the run has: {}\n",
                       r.where, r.metric, v ? setups[p.base].spec.scenario : setups[p.run].spec.scenario,
                       r.metric, keys);
            return std::nullopt;
        }
        if (p.base != p.run && *b == 0.0) {
            fmt::print(stderr, "blksim: reproduce: {}: the ratio's denominator {} is 0 in {} (seed {})\n", r.where,
                       r.metric, setups[p.base].spec.scenario, seeds[i]);
            return std::nullopt;
        }
        values.push_back(p.base == p.run ? *v / r.unit_scale : *v / *b);
    }
    return evaluate_row(r, std::move(values));
}

}  // namespace

int cmd_reproduce(const ReproduceOptions& o) {
    PublishedData data;
    try {
        data = load_published(o.data.empty() ? default_data_file() : o.data);
    } catch (const ReproduceError& e) {
        fmt::print(stderr, "blksim: reproduce: {}\n", e.what());
        return 2;
    }
    const unsigned nseeds = o.seeds.value_or(o.reduced ? data.reduced_seeds : DEFAULT_SEEDS);
    if (nseeds < 2) {
        fmt::print(stderr, "blksim: reproduce: --seeds {}: a confidence interval needs at least 2 seeds (allowed: an "
                           "integer >= 2)\n", nseeds);
        return 2;
    }
    std::set<std::string> experiments;
    for (const PublishedRow& r : data.rows)
        experiments.insert(r.experiment);
    for (const std::string& e : o.only)
        if (!experiments.count(e)) {
            fmt::print(stderr, "blksim: reproduce: --only {}: {} has no such experiment (it has: {})\n", e, data.file,
                       fmt::join(experiments, ", "));
            return 2;
        }
    // The distinct setups, each loaded (and checked) once before anything runs.
    std::vector<Setup> setups;
    const std::vector<RowRuns> plan = plan_rows(data, o, setups);
    if (!load_setups(setups))
        return 2;

    ReproduceInfo info;
    info.data_file = data.file;
    info.source = data.source;
    info.reduced = o.reduced;
    for (unsigned i = 0; i < nseeds; ++i)
        info.seeds.push_back(o.seed + i);

    const unsigned jobs = o.jobs ? o.jobs : default_jobs();
    const std::optional<uint64_t> mem_limit = mem_limit_bytes(o.mem_limit);
    if (!mem_limit)
        return 2;
    for (const Setup& s : setups)
        if (const std::string why = over_mem_limit(s.machine, std::min<std::size_t>(jobs, setups.size() * nseeds),
                                                   *mem_limit);
            !why.empty()) {
            fmt::print(stderr, "blksim: reproduce: {}: {}\n", s.where, why);
            return 2;
        }
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<SimOutcome> out;
    if (const int rc = run_setups(setups, info.seeds, jobs, o.progress, out); rc != 0)
        return rc;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const std::size_t n = out.size();

    std::vector<RowResult> results;
    for (const RowRuns& p : plan) {
        std::optional<RowResult> row = row_result(p, setups, info.seeds, out);
        if (!row)
            return 2;
        results.push_back(std::move(*row));
    }

    const std::string text =
        o.format == "json" ? format_reproduce_json(info, results) : format_reproduce_normal(info, results);
    write_output("-", "", text);  // an OutputError reaches main()
    fmt::print(stderr, "blksim: reproduce: {} rows, {} simulations ({} setups x {} seeds) in {:.2f} s wall on {} thread{}\n",
               results.size(), n, setups.size(), nseeds, wall, jobs, jobs == 1 ? "" : "s");
    if (o.check)
        for (const RowResult& r : results)
            if (r.status == RowStatus::FAIL)
                return 1;
    return 0;
}

}  // namespace blksim::cli
