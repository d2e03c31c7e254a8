// `blksim regress`: this build on the standard suite against a baseline — the stored results
// (scenarios/regress/baseline.json) or another blksim binary run on the same suite and seeds
// (docs/regress.md).
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/compare_exact.h"
#include "tools/blksim/output_file.h"
#include "tools/blksim/spawn.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/regress.h"
#include "tools/experiment/thread_pool.h"
#include "tools/input/input_file.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

namespace {

using namespace blksim::experiment;
namespace fs = std::filesystem;

// Runs `binary regress --save FILE` on the same suite and schedulers; its results, or an
// error naming the binary.
RegressResults run_other_binary(const RegressOptions& o, const std::string& suite, unsigned jobs) {
    const fs::path tmp = fs::temp_directory_path() / fmt::format("blksim-regress-{}.json", ::getpid());
    std::vector<std::string> args = {o.baseline_binary, "regress", "--suite", suite, "--save", tmp.string(),
                                     "-j", std::to_string(jobs)};
    for (const std::string& s : o.schedulers) {
        args.push_back("--scheduler");
        args.push_back(s);
    }
    int status = -1;
    try {
        status = spawn_and_wait(args);
    } catch (const std::runtime_error& e) {
        throw SuiteError(fmt::format("--baseline-binary {}", e.what()));
    }
    std::string why;
    const std::optional<std::string> text = input::read_file(tmp.string(), input::kMaxDataFile, why);
    std::error_code ec;
    fs::remove(tmp, ec);
    if (status != 0 || !text)
        throw SuiteError(fmt::format("--baseline-binary {}: 'regress --save' did not finish (exit status {}){}",
                                     o.baseline_binary, status, text ? "" : ": no results"));
    return results_from_json(*text, o.baseline_binary + " (its results)");
}

// --exact against another build: the first cell whose reports differ run once more in both
// binaries with its seed, traced, and the first event where they part (compare --exact).
void first_differing_event(const RegressOptions& o, const RegressSuite& suite, const std::vector<uint64_t>& seeds,
                           const RegressVerdict& v) {
    const auto cell = std::find_if(suite.cells.begin(), suite.cells.end(),
                                   [&](const RegressCell& c) { return c.name == v.differing_cells.front(); });
    if (cell == suite.cells.end())
        return;
    write_output("-", "", fmt::format("\nthe first event where {} parts (blksim compare --exact):\n", cell->name));
    const ScenarioSource source{cell->scenario, {}, {}, false};
    compare_exact({o.baseline_binary, source, cell->sets, {}, "A (baseline)"},
                  {self_binary(), source, cell->sets, {}, "B (this build)"}, seeds.at(v.first_differing_run.front()));
}

RegressResults read_baseline(const std::string& path) {
    std::string why;
    const std::optional<std::string> text = input::read_file(path, input::kMaxDataFile, why);
    if (!text)
        throw SuiteError(fmt::format("{}: cannot read the baseline: {}", path, why));
    return results_from_json(*text, path);
}

}  // namespace

int cmd_regress(const RegressOptions& o) {
    const std::string suite_path =
        o.suite.empty() ? (fs::path(scenario::default_scenario_dir()) / "regress" / "suite.json").string() : o.suite;
    const std::string baseline =
        o.baseline.empty() ? (fs::path(suite_path).parent_path() / "baseline.json").string() : o.baseline;
    const unsigned jobs = o.jobs ? o.jobs : default_jobs();
    try {
        const RegressSuite suite = load_regress_suite(suite_path, o.schedulers, o.kernel_tree);
        // The baseline first: a missing or stale one is known before the suite runs.
        RegressResults base;
        std::string name = o.baseline_binary.empty() ? baseline : o.baseline_binary;
        if (!o.baseline_kernel_tree.empty()) {
            const RegressSuite other = load_regress_suite(suite_path, o.schedulers, o.baseline_kernel_tree);
            Progress progress("regress (baseline)", other.cells.size() * other.runs, jobs, o.progress || stderr_is_tty());
            base = run_regress_suite(other, jobs, [&](std::size_t done, std::size_t) { progress.update(done); });
            progress.finish();
            name = "kernel source " + o.baseline_kernel_tree;
        } else if (o.save.empty()) {
            base = o.baseline_binary.empty() ? read_baseline(baseline) : run_other_binary(o, suite_path, jobs);
        }
        Progress progress("regress", suite.cells.size() * suite.runs, jobs, o.progress || stderr_is_tty());
        const RegressResults build =
            run_regress_suite(suite, jobs, [&](std::size_t done, std::size_t) { progress.update(done); });
        progress.finish();
        if (!o.save.empty()) {
            write_output(o.save, "--save", results_to_json(build));
            fmt::print(stderr, "blksim: regress: {} cells x {} seeds saved to {}\n", suite.cells.size(), suite.runs,
                       o.save);
            return 0;
        }
        const RegressVerdict v = judge_regress(suite, base, build);
        write_output("-", "", o.output_format == "json" ? format_regress_json(v, o.exact, name)
                                                       : format_regress_normal(v, o.exact, name));
        const bool failed = o.exact ? !v.differing_cells.empty() : v.regressions > 0;
        if (o.exact && !o.baseline_binary.empty() && !v.differing_cells.empty() && o.output_format != "json")
            first_differing_event(o, suite, build.seeds, v);
        return failed ? EXIT_REGRESSION : 0;
    } catch (const SuiteError& e) {
        fmt::print(stderr, "blksim: regress: {}\n", e.what());
        return 2;
    } catch (const OutputError&) {
        throw;  // main() reports it
    } catch (const std::runtime_error& e) {
        fmt::print(stderr, "blksim: regress: a run failed: {}\n", e.what());
        return 1;
    }
}

}  // namespace blksim::cli
