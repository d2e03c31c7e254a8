// `blksim compare`: variant A and variant B of a scenario, `runs` replications each, paired
// by seed. With common random numbers (the default) replication i of both variants uses the
// same seed, and since every random stream is named after its job or device (sim/random.h),
// a variant that changes only the scheduler or a device parameter draws exactly the offsets
// A drew: the noise of the workload cancels in the paired difference.
#include <chrono>
#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/commands.h"
#include "tools/blksim/compare_exact.h"
#include "tools/blksim/compare_page.h"
#include "tools/blksim/output_file.h"
#include "tools/blksim/spawn.h"
#include "tools/experiment/compare.h"
#include "tools/experiment/mem_limit.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/simulate.h"
#include "tools/experiment/thread_pool.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

namespace {

using namespace blksim::experiment;

// "--a 'p=v;p=v'" (repeatable) → {"p=v", "p=v"}.
bool split_variant_sets(const char* option, const std::vector<std::string>& specs, std::vector<std::string>& out) {
    for (const std::string& spec : specs) {
        std::size_t start = 0;
        while (start <= spec.size()) {
            const auto semi = spec.find(';', start);
            const std::string item =
                spec.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
            const auto b = item.find_first_not_of(" \t");
            if (b != std::string::npos) {
                const std::string trimmed = item.substr(b, item.find_last_not_of(" \t") - b + 1);
                if (trimmed.find('=') == std::string::npos || trimmed.front() == '=') {
                    fmt::print(stderr,
                               "blksim: compare: {} '{}': '{}' is not path=value (allowed: 'path=value;path=value', "
                               "e.g. {} 'queues.0.scheduler=mq-deadline;jobs.0.iodepth=8')\n",
                               option, spec, trimmed, option);
                    return false;
                }
                out.push_back(trimmed);
            }
            if (semi == std::string::npos)
                break;
            start = semi + 1;
        }
    }
    return true;
}

// Loads both variants (and fails) before anything runs; prints the loader's warnings once
// and a warning for each job whose randseed makes its replications alike.
bool load_variants(const CompareOptions& o, const ScenarioSource& b, const CompareInfo& info, scenario::Scenario& sa,
                   scenario::Scenario& sb) {
    std::vector<std::string> warnings;
    scenario::FioPolicy policy;
    policy.warnings = &warnings;
    const char* which = "A";
    try {
        sa = o.source.load(info.sets_a, o.a_scheduler, policy);
        which = "B";
        sb = b.load(info.sets_b, o.b_scheduler, policy);
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: compare: variant {}: {}\n", which, e.what());
        return false;
    }
    for (const std::string& w : std::set<std::string>(warnings.begin(), warnings.end()))
        fmt::print(stderr, "blksim: warning: {}\n", w);
    for (const scenario::Scenario* s : {&sa, &sb})
        for (const auto& j : s->machine.jobs)
            if (j.randseed)
                fmt::print(stderr,
                           "blksim: compare: warning: job '{}' sets randseed: its offsets are the same in every "
                           "replication, so the intervals do not cover the workload's randomness\n",
                           j.name);
    return true;
}

// What variant B runs: A's scenario or fio command line, with --b-scenario's file or
// --b-device's machine; false after saying what is wrong.
bool variant_b_source(const CompareOptions& o, ScenarioSource& b) {
    if (!o.source.check("compare"))
        return false;
    if (!o.b_scenario.empty() && o.source.is_fio()) {
        fmt::print(stderr, "blksim: compare: --b-scenario {}: with --device, variant B's machine is --b-device\n",
                   o.b_scenario);
        return false;
    }
    if (!o.b_device.empty() && !o.source.is_fio()) {
        fmt::print(stderr, "blksim: compare: --b-device {}: goes with --device and fio's arguments (a scenario's "
                           "variant B is --b-scenario)\n", o.b_device);
        return false;
    }
    b = o.source;
    if (!o.b_scenario.empty())
        b.scenario = o.b_scenario;
    if (!o.b_device.empty())
        b.device = o.b_device;
    return true;
}

// The --fail-on rules; nullopt after saying what is wrong with one.
std::optional<std::vector<FailOn>> parse_rules(const std::vector<std::string>& specs) {
    std::vector<FailOn> rules;
    try {
        for (const std::string& spec : specs)
            rules.push_back(parse_fail_on(spec));
    } catch (const std::invalid_argument& e) {
        fmt::print(stderr, "blksim: compare: {}\n", e.what());
        return std::nullopt;
    }
    return rules;
}

// Each --fail-on rule against the comparison's rows; nullopt (after saying so) when a rule
// names no metric the comparison has.
std::optional<std::vector<FailOnResult>> apply_fail_on(const std::vector<FailOn>& rules,
                                                      const std::vector<CompareRow>& rows) {
    std::vector<FailOnResult> results;
    for (const FailOn& r : rules) {
        FailOnResult fr{r, {}};
        bool any = false;
        for (const CompareRow& row : rows) {
            any = any || matches(r, row.key);
            if (fails(r, row))
                fr.failed_keys.push_back(row.key);
        }
        if (!any) {
            std::string keys;
            for (const CompareRow& row : rows)
                keys += (keys.empty() ? "" : ", ") + row.key;
            fmt::print(stderr, "blksim: compare: --fail-on {}: this comparison has no such metric (it has: {})\n",
                       r.spec, keys);
            return std::nullopt;
        }
        results.push_back(std::move(fr));
    }
    return results;
}

// Every replication of both variants, each with its seed: task t is replication t / 2 of
// variant t % 2, so both variants progress together. The metrics of each variant's
// replications in `ma` and `mb`, and with `curves` (for the page) their latency curves
// merged per variant; a failed run's status (after saying which it was).
int replicate(const CompareInfo& info, const scenario::Scenario& sa, const scenario::Scenario& sb, unsigned jobs,
              bool progress_line, std::vector<std::vector<Metric>>& ma, std::vector<std::vector<Metric>>& mb,
              std::array<std::vector<ClatCurve>, 2>* curves) {
    const std::size_t n = info.seeds_a.size() + info.seeds_b.size();
    std::vector<SimOutcome> out(n);
    std::vector<std::vector<ClatCurve>> run_curves(curves ? n : 0);
    Progress progress("compare", n, jobs, progress_line || stderr_is_tty());
    parallel_for(
        n, jobs,
        [&](std::size_t t) {
            topology::MachineConfig cfg = (t % 2 ? sb : sa).machine;
            cfg.seed = (t % 2 ? info.seeds_b : info.seeds_a)[t / 2];
            out[t] = simulate_with(cfg, [&](const result::RunResult& r, SimOutcome& o) {
                o.metrics = detail_metrics(r);
                if (curves)
                    run_curves[t] = clat_curves(r);
            });
        },
        [&](std::size_t done) { progress.update(done); });
    progress.finish();
    for (std::size_t t = 0; t < n; ++t) {
        if (out[t].status != 0) {
            fmt::print(stderr, "blksim: compare: variant {} replication {} (seed {}): {}\n", t % 2 ? "B" : "A", t / 2,
                       (t % 2 ? info.seeds_b : info.seeds_a)[t / 2], out[t].error);
            return out[t].status;
        }
        (t % 2 ? mb : ma).push_back(std::move(out[t].metrics));
        if (curves)
            merge_curves((*curves)[t % 2], run_curves[t]);  // in replication order: deterministic
    }
    return 0;
}

// One line for all the metrics whose difference is "significant" only because its interval
// has no width.
void warn_zero_width(const std::vector<CompareRow>& rows) {
    std::vector<std::string> keys;
    for (const CompareRow& r : rows)
        if (r.ci.zero_width())
            keys.push_back(r.key);
    if (!keys.empty())
        fmt::print(stderr,
                   "blksim: compare: warning: zero-width confidence interval (every pair of runs differs by the same "
                   "amount, as deterministic service times make it; the verdict rests on no variation) for {}\n",
                   fmt::join(keys, ", "));
}

// --exact: A here and B (in --b-binary when given) run once each with A's seed, traced.
// B's scenario is loaded by the binary that runs it, which may know what this one does not.
int cmd_compare_exact(const CompareOptions& o, const ScenarioSource& b, const CompareInfo& info) {
    for (const auto& [given, option] : {std::pair{!o.fail_on.empty(), "--fail-on"}, std::pair{!o.html.empty(), "--html"},
                                        std::pair{o.no_crn, "--no-crn"}})
        if (given) {
            fmt::print(stderr, "blksim: compare: {} goes with the statistical comparison, not with --exact (one run "
                               "of each variant, the same seed)\n", option);
            return 2;
        }
    scenario::Scenario sa;
    try {
        sa = o.source.load(info.sets_a, o.a_scheduler, scenario::FioPolicy{});
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: compare: variant A: {}\n", e.what());
        return 2;
    }
    const std::string self = self_binary();
    const ExactVariant a{self, o.source, info.sets_a, o.a_scheduler, variant_label("A", o.a_name)};
    const ExactVariant vb{o.b_binary.empty() ? self : o.b_binary, b, info.sets_b, o.b_scheduler,
                          variant_label("B", o.b_name)};
    return compare_exact(a, vb, o.seed.value_or(sa.machine.seed));
}

// The seeds of each replication (paired unless --no-crn), and --mem-limit against the two
// simulations per replication, `jobs` at a time. false: refused, the message printed.
bool plan_replications(const CompareOptions& o, const scenario::Scenario& sa, const scenario::Scenario& sb,
                       unsigned jobs, CompareInfo& info) {
    const uint64_t base = o.seed.value_or(sa.machine.seed);
    for (unsigned i = 0; i < o.runs; ++i) {
        info.seeds_a.push_back(base + i);
        info.seeds_b.push_back(info.crn ? base + i : base + o.runs + i);
    }
    const std::size_t n = 2 * std::size_t{o.runs};
    const std::optional<uint64_t> mem_limit = mem_limit_bytes(o.mem_limit);
    if (!mem_limit)
        return false;
    for (const scenario::Scenario* s : {&sa, &sb})
        if (const std::string why = over_mem_limit(s->machine, std::min<std::size_t>(jobs, n), *mem_limit);
            !why.empty()) {
            fmt::print(stderr, "blksim: compare: variant {}: {}\n", s == &sa ? "A" : "B", why);
            return false;
        }
    return true;
}

}  // namespace

int cmd_compare(const CompareOptions& o) {
    if (o.runs < 2) {
        fmt::print(stderr, "blksim: compare: --runs {}: at least 2 replications are needed for a confidence "
                           "interval (allowed: an integer >= 2)\n", o.runs);
        return 2;
    }
    const std::optional<std::vector<FailOn>> rules = parse_rules(o.fail_on);
    if (!rules)
        return 2;
    ScenarioSource b;
    if (!variant_b_source(o, b))
        return 2;
    CompareInfo info;
    info.scenario_a = o.source.describe(o.a_scheduler);
    info.scenario_b = b.describe(o.b_scheduler);
    info.name_a = o.a_name;
    info.name_b = o.b_name;
    info.crn = !o.no_crn;
    info.sets_a = info.sets_b = o.sets;
    if (!split_variant_sets("--a", o.a_sets, info.sets_a) || !split_variant_sets("--b", o.b_sets, info.sets_b))
        return 2;
    if (o.exact)
        return cmd_compare_exact(o, b, info);
    if (!o.b_binary.empty()) {
        fmt::print(stderr, "blksim: compare: --b-binary {}: goes with --exact (the first differing event of two "
                           "builds' runs)\n", o.b_binary);
        return 2;
    }

    scenario::Scenario sa, sb;
    if (!load_variants(o, b, info, sa, sb))
        return 2;

    const std::size_t n = 2 * std::size_t{o.runs};
    const unsigned jobs = o.jobs ? o.jobs : default_jobs();
    if (!plan_replications(o, sa, sb, jobs, info))
        return 2;
    // The page's file is opened (and a bad path refused) before anything runs.
    OutputFile html;
    if (!o.html.empty())
        html.open(o.html, "--html");
    std::vector<std::vector<Metric>> ma, mb;
    std::array<std::vector<ClatCurve>, 2> curves;
    const auto wall0 = std::chrono::steady_clock::now();
    if (const int rc = replicate(info, sa, sb, jobs, o.progress, ma, mb, html.is_open() ? &curves : nullptr); rc != 0)
        return rc;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const std::vector<CompareRow> rows = compare_runs(ma, mb, info.confidence);
    if (rows.empty()) {
        fmt::print(stderr, "blksim: compare: A and B report no metric in common (metrics are keyed by the job "
                           "group's name and direction: do both variants name their jobs alike?)\n");
        return 2;
    }
    const std::optional<std::vector<FailOnResult>> results = apply_fail_on(*rules, rows);
    if (!results)
        return 2;
    const bool regression =
        std::any_of(results->begin(), results->end(), [](const FailOnResult& r) { return !r.failed_keys.empty(); });
    const std::string text = o.output_format == "json" ? format_compare_json(info, rows, *results)
                                                       : format_compare_normal(info, rows, *results);
    write_output("-", "", text);  // an OutputError reaches main()
    warn_zero_width(rows);        // after the report, beside the summary line
    if (html.is_open()) {
        html.write(compare_page(info, rows, curves[0], curves[1]));
        html.finish();
    }
    fmt::print(stderr, "blksim: compare: {} simulations in {:.2f} s wall on {} thread{}\n", n, wall,
               std::min<std::size_t>(jobs, n), jobs == 1 ? "" : "s");
    return regression ? EXIT_REGRESSION : 0;
}

}  // namespace blksim::cli
