// `blksim regress`: this build on the standard suite against a baseline — the stored results
// (scenarios/regress/baseline.json) or another blksim binary run on the same suite and seeds
// (docs/regress.md).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/output_file.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/regress.h"
#include "tools/experiment/thread_pool.h"
#include "tools/input/input_file.h"
#include "tools/scenario/scenario.h"

extern char** environ;

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
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int status = 0;
    const int err = posix_spawn(&pid, o.baseline_binary.c_str(), nullptr, nullptr, argv.data(), environ);
    if (err != 0)
        throw SuiteError(fmt::format("--baseline-binary {}: cannot run it: {}", o.baseline_binary, std::strerror(err)));
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::string why;
    const std::optional<std::string> text = input::read_file(tmp.string(), input::kMaxDataFile, why);
    std::error_code ec;
    fs::remove(tmp, ec);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !text)
        throw SuiteError(fmt::format("--baseline-binary {}: 'regress --save' did not finish (exit status {}){}",
                                     o.baseline_binary, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                     text ? "" : ": no results"));
    return results_from_json(*text, o.baseline_binary + " (its results)");
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
