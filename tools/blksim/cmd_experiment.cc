// The command-line surface of compare / sweep / sweep-merge / reproduce / regress; the
// commands themselves are in cmd_compare.cc, cmd_sweep.cc, cmd_reproduce.cc, cmd_regress.cc.
#include "tools/blksim/cmd_experiment.h"

#include <CLI/CLI.hpp>

#include "tools/blksim/seed_option.h"
#include "tools/experiment/mem_limit.h"

namespace blksim::cli {

namespace {

void add_compare(CLI::App& app, ExperimentCommands& x) {
    CompareOptions& c = x.compare;
    x.compare_cmd = app.add_subcommand(
        "compare",
        "two variants of a scenario, N paired-seed runs each: per metric the difference, its 95 % CI and a "
        "verdict; exit 3 when a --fail-on threshold is exceeded (docs/compare.md). Or a fio command line: "
        "blksim compare --device D --a-scheduler none --b-scheduler mq-deadline -- <fio arguments or job file> "
        "(docs/what-if.md)");
    CLI::App* cc = x.compare_cmd;
    add_source_options(cc, c.source, "scenario JSON file (variant A, and B unless --b-scenario)");
    cc->add_option("--set", c.sets, "override a value in both variants: path=value (repeatable)")
        ->allow_extra_args(false);
    cc->add_option("--a", c.a_sets, "variant A's overrides: 'path=value;path=value' (repeatable)")
        ->allow_extra_args(false);
    cc->add_option("--b", c.b_sets, "variant B's overrides: 'path=value;path=value' (repeatable)")
        ->allow_extra_args(false);
    cc->add_option("--a-scheduler", c.a_scheduler, "variant A's I/O scheduler on every device, as blksim fio --scheduler");
    cc->add_option("--b-scheduler", c.b_scheduler, "variant B's I/O scheduler on every device, as blksim fio --scheduler");
    cc->add_option("--b-scenario", c.b_scenario, "variant B's scenario file (default: the scenario)");
    cc->add_option("--b-device", c.b_device, "with --device: variant B's machine (default: --device)");
    cc->add_option("--a-name", c.a_name, "variant A's name in the report (default A)");
    cc->add_option("--b-name", c.b_name, "variant B's name in the report (default B)");
    cc->add_option("--runs,-n", c.runs, "replications per variant, at least 2 (default 10)");
    cc->add_option("--seed", c.seed, "seed of replication 0; replication i uses seed+i (default: the scenario's seed)")
        ->check(seed_check());
    cc->add_flag("--no-crn", c.no_crn,
                 "independent seeds for B (seed+runs+i) instead of common random numbers, to see what CRN gains");
    cc->add_option("--jobs,-j", c.jobs, "simulations run at once (default: the number of CPUs)");
    cc->add_option("--output-format", c.output_format, "normal or json")->check(CLI::IsMember({"normal", "json"}));
    cc->add_option("--fail-on", c.fail_on,
                   "METRIC:PCT: exit 3 if METRIC (e.g. read.clat_p99_ns, or GROUP/read.iops) is significantly "
                   "worse in B by more than PCT percent (repeatable)")
        ->allow_extra_args(false);
    cc->add_option("--html", c.html,
                   "also write the comparison as a self-contained HTML page to FILE: latency CDFs of A and B per "
                   "group and I/O priority, every difference with its interval");
    cc->add_flag("--progress", c.progress, "progress line on stderr even when it is not a terminal");
    cc->add_option("--mem-limit", c.mem_limit, experiment::MEM_LIMIT_HELP);
    cc->add_flag("--exact", c.exact,
                 "no functional change expected: run A and B once each with the same seed and a request trace, print "
                 "the first trace line where they differ (exit 3) or 'identical' (exit 0)");
    cc->add_option("--b-binary", c.b_binary, "with --exact: the blksim binary that runs B (e.g. a patched build)");
}

void add_sweep(CLI::App& app, ExperimentCommands& x) {
    SweepOptions& s = x.sweep;
    x.sweep_cmd = app.add_subcommand(
        "sweep", "run a scenario at every point of a parameter matrix, in parallel: one CSV/JSON row per point "
                 "(docs/sweep.md). Or a fio command line: blksim sweep --device D --param P=V1,V2 -- <fio arguments "
                 "or job file>");
    CLI::App* sc = x.sweep_cmd;
    add_source_options(sc, s.source, "scenario JSON file");
    sc->add_option("--param,-p", s.params,
                   "a swept value: path=v1,v2,... or path=[JSON array] (repeatable; the points are the cartesian "
                   "product, first --param slowest)")
        ->required()
        ->allow_extra_args(false);
    sc->add_option("--set", s.sets, "override a value at every point: path=value (repeatable)")->allow_extra_args(false);
    sc->add_option("--scheduler", s.scheduler, "I/O scheduler of every device at every point, as blksim fio --scheduler");
    sc->add_option("--jobs,-j", s.jobs, "simulations run at once (default: the number of CPUs)");
    sc->add_option("--runs,-n", s.runs,
                   "replications per point (default 1): replication i of every point runs with the scenario's "
                   "seed + i, and each figure is their mean with its 95 % confidence interval (N >= 2)");
    CLI::Option* shard =
        sc->add_option("--shard", s.shard, "i/N: run only the points whose index % N == i (merge with sweep-merge)");
    CLI::Option* slurm = sc->add_option("--slurm", s.slurm,
                                        "DIR: run nothing, write the sweep as a Slurm job array (one task per shard) "
                                        "and a merge job after it, queued by DIR/submit.sh")
                             ->excludes(shard);
    sc->add_option("--slurm-shards", s.slurm_shards,
                   "with --slurm: the number of array tasks (default: one per point, at most 1000)")
        ->check(CLI::PositiveNumber)
        ->needs(slurm);
    sc->add_option("--csv", s.csv, "write CSV to FILE ('-' = stdout)");
    sc->add_option("--json", s.json, "write JSON to FILE ('-' = stdout); sweep-merge reads it");
    sc->add_flag("--progress", s.progress, "progress line on stderr even when it is not a terminal");
    sc->add_option("--mem-limit", s.mem_limit, experiment::MEM_LIMIT_HELP);
    sc->add_option("--order", s.order,
                   "cost: run the dearest points first, estimated by a pilot of 1/32 of each (default); index: in "
                   "point order, no pilot")
        ->check(CLI::IsMember({"cost", "index"}));

    SweepMergeOptions& m = x.merge;
    x.merge_cmd = app.add_subcommand(
        "sweep-merge", "merge the JSON files of a sharded sweep into the unsharded sweep's CSV/JSON (byte-identical)");
    x.merge_cmd->add_option("inputs", m.inputs, "the shards' --json files")->required();
    x.merge_cmd->add_option("--csv", m.csv, "write CSV to FILE ('-' = stdout)");
    x.merge_cmd->add_option("--json", m.json, "write JSON to FILE ('-' = stdout)");
}

void add_reproduce(CLI::App& app, ExperimentCommands& x) {
    ReproduceOptions& r = x.reproduce;
    x.reproduce_cmd = app.add_subcommand(
        "reproduce", "run the seed experiments over N seeds and print each published figure beside the simulated "
                     "mean, its 95 % CI, the error and the tolerance (docs/reproduce.md)");
    CLI::App* rc = x.reproduce_cmd;
    rc->add_option("--data", r.data, "published figures (default: scenarios/seeds/published.json)");
    rc->add_option("--seeds", r.seeds, "seeds per run, at least 2 (default 5; with --reduced the data file's, 2)");
    rc->add_option("--seed", r.seed, "the first seed; run i of every scenario uses seed + i (default 1)")
        ->check(seed_check());
    rc->add_option("--jobs,-j", r.jobs, "simulations run at once (default: the number of CPUs)");
    rc->add_flag("--reduced", r.reduced, "short runtimes and few seeds, from the data file (for CI: seconds)");
    rc->add_option("--only", r.only, "experiments to run, e.g. --only E2,E3 (default all)")->delimiter(',');
    rc->add_flag("--check", r.check, "exit 1 when a row that is expected to pass is outside its tolerance");
    rc->add_option("--format", r.format, "normal or json")->check(CLI::IsMember({"normal", "json"}));
    rc->add_flag("--progress", r.progress, "progress line on stderr even when it is not a terminal");
    rc->add_option("--mem-limit", r.mem_limit, experiment::MEM_LIMIT_HELP);
}

void add_regress(CLI::App& app, ExperimentCommands& x) {
    RegressOptions& g = x.regress;
    x.regress_cmd = app.add_subcommand(
        "regress", "run the standard scheduler regression suite and compare it with a baseline (the stored results "
                   "or another blksim binary): a table of what changed, exit 3 on a regression (docs/regress.md)");
    CLI::App* gc = x.regress_cmd;
    gc->add_option("--suite", g.suite, "the suite (default: scenarios/regress/suite.json)");
    gc->add_option("--baseline", g.baseline, "stored results to compare with (default: baseline.json beside the suite)");
    gc->add_option("--baseline-binary", g.baseline_binary,
                   "another blksim (e.g. the mainline build): run it on the same suite and seeds as the baseline");
    gc->add_option("--scheduler", g.schedulers,
                   "only this scheduler's cells (repeatable; default all); kernel:mq-deadline runs the kernel's own "
                   "source from --kernel-tree with mq-deadline's variants");
    gc->add_option("--kernel-tree", g.kernel_tree, "the source of --scheduler kernel:<name> (a tree, its block/ "
                                                   "folder or one patched .c file)");
    gc->add_option("--baseline-kernel-tree", g.baseline_kernel_tree,
                   "the baseline is the same suite run now with this kernel source (e.g. mainline, beside a patched "
                   "--kernel-tree)");
    gc->add_flag("--exact", g.exact,
                 "no functional change expected: exit 3 when any report differs, not only on a regression");
    gc->add_option("--save", g.save, "write this build's results to FILE (a new baseline) instead of comparing");
    gc->add_option("--jobs,-j", g.jobs, "simulations run at once (default: the number of CPUs)");
    gc->add_option("--output-format", g.output_format, "normal or json")->check(CLI::IsMember({"normal", "json"}));
    gc->add_flag("--progress", g.progress, "progress line on stderr even when it is not a terminal");
}

}  // namespace

void add_experiment_commands(CLI::App& app, ExperimentCommands& x) {
    add_compare(app, x);
    add_sweep(app, x);
    add_reproduce(app, x);
    add_regress(app, x);
}

void take_experiment_fio_args(int& argc, char** argv, ExperimentCommands& x) {
    if (argc < 2)
        return;
    const std::string cmd = argv[1];
    if (cmd == "compare")
        take_fio_args(argc, argv, x.compare.source.fio_args);
    else if (cmd == "sweep")
        take_fio_args(argc, argv, x.sweep.source.fio_args);
}

std::optional<int> run_experiment_commands(const ExperimentCommands& x) {
    if (x.compare_cmd && *x.compare_cmd)
        return cmd_compare(x.compare);
    if (x.sweep_cmd && *x.sweep_cmd)
        return cmd_sweep(x.sweep);
    if (x.merge_cmd && *x.merge_cmd)
        return cmd_sweep_merge(x.merge);
    if (x.reproduce_cmd && *x.reproduce_cmd)
        return cmd_reproduce(x.reproduce);
    if (x.regress_cmd && *x.regress_cmd)
        return cmd_regress(x.regress);
    return std::nullopt;
}

}  // namespace blksim::cli
