// `blksim sweep --slurm DIR`: writes the sweep as a Slurm job array and a merge job that
// depends on it. The array tasks run this very command with --shard and --json added, in the
// directory it was given in (its relative paths resolve as they did here), with this binary's
// absolute path: the shards' JSON then records the scenario as given, and the merged files
// are byte for byte those of the same `blksim sweep` run on one machine.
#include "tools/blksim/slurm_script.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "tools/blksim/cmd_experiment.h"
#include "tools/blksim/output_file.h"

namespace blksim::cli {

namespace {

namespace fs = std::filesystem;

// Slurm's default MaxArraySize is 1001 (task ids 0..1000): one task per point up to 1,000
// points, then several points per task.
constexpr std::size_t DEFAULT_MAX_SHARDS = 1000;

// One word for sh/bash, whatever it holds.
std::string quote(const std::string& s) {
    std::string q = "'";
    for (const char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string quote_all(const std::vector<std::string>& words) {
    std::string s;
    for (const std::string& w : words)
        s += (s.empty() ? "" : " ") + quote(w);
    return s;
}

// The shard's command up to --shard/--json, and what follows them (fio's arguments). Every
// option of `o` that changes the points or their results is here; --jobs is the task's CPUs.
void shard_command(const SweepOptions& o, const std::string& blksim, unsigned cpus, std::vector<std::string>& head,
                   std::vector<std::string>& tail) {
    head = {blksim, "sweep"};
    if (o.source.is_fio())
        head.insert(head.end(), {"--device", o.source.device});
    else
        head.push_back(o.source.scenario);
    if (o.source.strict)
        head.push_back("--strict");
    if (!o.scheduler.empty())
        head.insert(head.end(), {"--scheduler", o.scheduler});
    for (const std::string& s : o.sets)
        head.insert(head.end(), {"--set", s});
    for (const std::string& p : o.params)
        head.insert(head.end(), {"--param", p});
    head.insert(head.end(), {"--order", o.order});
    if (o.runs > 1)  // every task's replications, as sweep-merge requires them alike
        head.insert(head.end(), {"--runs", std::to_string(o.runs)});
    if (!o.mem_limit.empty())
        head.insert(head.end(), {"--mem-limit", o.mem_limit});
    head.insert(head.end(), {"--jobs", std::to_string(cpus)});
    tail.clear();
    if (o.source.is_fio()) {
        tail.push_back("--");
        tail.insert(tail.end(), o.source.fio_args.begin(), o.source.fio_args.end());
    }
}

struct SlurmJobs {
    std::string dir, cwd, blksim;  // absolute
    std::size_t shards = 0;
    unsigned cpus = 1;
    std::vector<std::string> head, tail;  // shard_command
    std::string csv, json;                // the merge's outputs
};

std::string array_script(const SlurmJobs& j) {
    return fmt::format(R"(#!/bin/bash
# A blksim sweep as a Slurm job array, one task per shard (written by blksim sweep --slurm).
# Queue it with submit.sh beside it, which runs merge.sbatch once every task has succeeded.
#SBATCH --job-name=blksim-sweep
#SBATCH --array=0-{last}
#SBATCH --ntasks=1
#SBATCH --cpus-per-task={cpus}
#SBATCH --output={dir}/shard-%a.log
set -eu
: "${{SLURM_ARRAY_TASK_ID:?is not set: submit this file with sbatch, as a job array}}"
cd {cwd}
exec {head} --shard "$SLURM_ARRAY_TASK_ID/{shards}" --json {qdir}/shard-"$SLURM_ARRAY_TASK_ID".json{tail}
)",
                       fmt::arg("last", j.shards - 1), fmt::arg("cpus", j.cpus), fmt::arg("dir", j.dir),
                       fmt::arg("cwd", quote(j.cwd)), fmt::arg("head", quote_all(j.head)),
                       fmt::arg("shards", j.shards), fmt::arg("qdir", quote(j.dir)),
                       fmt::arg("tail", j.tail.empty() ? "" : " " + quote_all(j.tail)));
}

std::string merge_script(const SlurmJobs& j) {
    std::vector<std::string> outputs;
    if (!j.csv.empty())
        outputs.insert(outputs.end(), {"--csv", j.csv});
    if (!j.json.empty())
        outputs.insert(outputs.end(), {"--json", j.json});
    return fmt::format(R"(#!/bin/bash
# Merges the shards of sweep.sbatch into the sweep's files (written by blksim sweep --slurm).
#SBATCH --job-name=blksim-sweep-merge
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --output={dir}/merge.log
set -eu
cd {cwd}
shards=()
for ((i = 0; i < {shards}; i++)); do shards+=({qdir}/shard-"$i".json); done
exec {blksim} sweep-merge "${{shards[@]}}" {outputs}
)",
                       fmt::arg("dir", j.dir), fmt::arg("cwd", quote(j.cwd)), fmt::arg("shards", j.shards),
                       fmt::arg("qdir", quote(j.dir)), fmt::arg("blksim", quote(j.blksim)),
                       fmt::arg("outputs", quote_all(outputs)));
}

std::string submit_script(const SlurmJobs& j) {
    std::vector<std::string> outputs;
    for (const std::string& f : {j.csv, j.json})
        if (!f.empty())
            outputs.push_back(f);
    return fmt::format(R"(#!/bin/sh
# Queues the sweep's job array, then its merge with --dependency=afterok: the merge starts once
# every array task has succeeded, and is cancelled if one fails. Arguments go to both sbatch
# calls (e.g. --partition=P). An earlier submission's shards and merged files are removed
# first, so that a sweep that fails leaves none that look complete.
set -eu
cd {cwd}
dir={qdir}
rm -f "$dir"/shard-*.json {outputs}
array=$(sbatch --parsable "$@" "$dir/sweep.sbatch")
array=${{array%%;*}}  # --parsable prints "id;cluster" on a federation
merge=$(sbatch --parsable "$@" --dependency=afterok:"$array" --kill-on-invalid-dep=yes "$dir/merge.sbatch")
merge=${{merge%%;*}}
echo "blksim sweep: job array $array ({shards} tasks), merge job $merge"
)",
                       fmt::arg("cwd", quote(j.cwd)), fmt::arg("qdir", quote(j.dir)),
                       fmt::arg("outputs", quote_all(outputs)), fmt::arg("shards", j.shards));
}

// #SBATCH lines are not shell: a path in them cannot be quoted, and % starts a pattern.
bool sbatch_safe(const std::string& path) {
    return std::none_of(path.begin(), path.end(), [](char c) {
        return c == '%' || c == '\'' || c == '"' || c == '\\' || static_cast<unsigned char>(c) <= ' ';
    });
}

int fail(const std::string& what) {
    fmt::print(stderr, "blksim: sweep: {}\n", what);
    return 2;
}

void write_script(const std::string& path, const std::string& text) {
    OutputFile f(path, "--slurm");
    f.write(text);
    f.finish();
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
    if (ec)
        throw OutputError(fmt::format("--slurm {}: cannot make it executable: {}", path, ec.message()));
}

}  // namespace

int write_slurm_jobs(const SweepOptions& o, std::size_t points) {
    SlurmJobs j;
    j.shards = o.slurm_shards ? o.slurm_shards : std::min(points, DEFAULT_MAX_SHARDS);
    if (j.shards > points)
        return fail(fmt::format("--slurm-shards {}: more shards than the sweep has points (allowed: 1 to {})",
                                o.slurm_shards, points));
    for (const std::string* f : {&o.csv, &o.json})
        if (*f == "-")
            return fail("--slurm with an output on stdout ('-'): the merge job writes files (allowed: a path)");
    std::error_code ec;
    j.cwd = fs::current_path(ec).string();
    if (ec)
        return fail(fmt::format("--slurm: the current directory: {}", ec.message()));
    j.dir = fs::absolute(o.slurm).lexically_normal().string();
    if (j.dir.size() > 1 && j.dir.back() == '/')
        j.dir.pop_back();
    if (!sbatch_safe(j.dir))
        return fail(fmt::format("--slurm {}: #SBATCH --output cannot carry this path (allowed: no whitespace, "
                                "quotes, backslash or %)",
                                o.slurm));
    j.blksim = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec)
        return fail(fmt::format("--slurm: cannot find this program's path in /proc/self/exe: {}", ec.message()));
    fs::create_directories(j.dir, ec);
    if (ec)
        return fail(fmt::format("--slurm {}: cannot create the directory: {}", o.slurm, ec.message()));
    j.cpus = o.jobs ? o.jobs : 1;
    j.csv = o.csv.empty() && o.json.empty() ? j.dir + "/sweep.csv" : o.csv;
    j.json = o.csv.empty() && o.json.empty() ? j.dir + "/sweep.json" : o.json;
    shard_command(o, j.blksim, j.cpus, j.head, j.tail);

    write_script(j.dir + "/sweep.sbatch", array_script(j));
    write_script(j.dir + "/merge.sbatch", merge_script(j));
    write_script(j.dir + "/submit.sh", submit_script(j));
    fmt::print(stderr,
               "blksim: sweep: {} points in {} Slurm array tasks of {} CPU{}: {}/sweep.sbatch, merge.sbatch; queue "
               "them with {}/submit.sh\n",
               points, j.shards, j.cpus, j.cpus == 1 ? "" : "s", j.dir, j.dir);
    return 0;
}

}  // namespace blksim::cli
