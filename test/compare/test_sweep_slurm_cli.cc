// `blksim sweep --slurm DIR`: the files it writes, run as Slurm would run them (the array
// task's script once per SLURM_ARRAY_TASK_ID, then the merge's), give the unsharded sweep's
// files; submit.sh chains the merge after the array. A real cluster: scripts/slurm-test.sh.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test/cli/cli_fixture.h"

using clitest::run_blksim;
using clitest::shell;
using clitest::slurp;
using clitest::source_path;
using clitest::TempDir;

namespace {

// blksim `args` run in the source tree, so that relative paths in them resolve there.
clitest::CliResult blksim_in_source(const std::string& args) {
    return shell("cd " + source_path("") + " && " + BLKSIM_BINARY + " " + args + " 2>&1");
}

// Array tasks 0..tasks-1 of DIR/sweep.sbatch, then DIR/merge.sbatch, each from / (the scripts
// go to the directory --slurm was given in themselves).
void run_as_slurm(const std::string& dir, int tasks) {
    for (int i = 0; i < tasks; ++i) {
        const auto r = shell("cd / && SLURM_ARRAY_TASK_ID=" + std::to_string(i) + " bash " + dir +
                             "/sweep.sbatch 2>&1");
        INFO(r.out);
        REQUIRE(r.status == 0);
    }
    const auto m = shell("cd / && bash " + dir + "/merge.sbatch 2>&1");
    INFO(m.out);
    REQUIRE(m.status == 0);
}

}  // namespace

TEST_CASE("sweep --slurm: the array tasks and the merge give the unsharded sweep's files", "[compare][cli]") {
    TempDir tmp("sweep-slurm");
    const std::string sweep = "sweep scenarios/bench/hdd-randread-qd32.json --set jobs.0.runtime=100ms"
                              " --param jobs.0.iodepth=1,4,16 --param queues.0.scheduler=none,mq-deadline";
    REQUIRE(blksim_in_source(sweep + " --jobs 2 --csv " + (tmp / "local.csv") + " --json " + (tmp / "local.json"))
                .status == 0);

    // 6 points in 4 tasks (shards of 2, 2, 1, 1 points); by default the merge writes DIR/sweep.*.
    const std::string dir = tmp / "jobs";
    const auto w = blksim_in_source(sweep + " --slurm " + dir + " --slurm-shards 4");
    INFO(w.out);
    REQUIRE(w.status == 0);
    CHECK(w.out.find("6 points in 4 Slurm array tasks") != std::string::npos);
    const std::string array = slurp(dir + "/sweep.sbatch");
    CHECK(array.find("#SBATCH --array=0-3\n") != std::string::npos);
    // This binary by its absolute path, and the scenario as given (the task runs where it was).
    const std::string exe = std::filesystem::canonical(BLKSIM_BINARY).string();
    CHECK(array.find("exec '" + exe + "' 'sweep' 'scenarios/bench/hdd-randread-qd32.json'") != std::string::npos);
    CHECK(array.find("cd '" + std::filesystem::canonical(source_path(".")).string() + "'\n") != std::string::npos);
    CHECK(array.find("--shard \"$SLURM_ARRAY_TASK_ID/4\"") != std::string::npos);
    CHECK(shell("test -x " + dir + "/submit.sh").status == 0);
    run_as_slurm(dir, 4);
    CHECK(slurp(dir + "/sweep.csv") == slurp(tmp / "local.csv"));
    CHECK(slurp(dir + "/sweep.json") == slurp(tmp / "local.json"));
    // A task needs its id: outside an array it stops before running anything.
    const auto no_id = shell("env -u SLURM_ARRAY_TASK_ID bash " + dir + "/sweep.sbatch 2>&1");
    CHECK(no_id.status != 0);
    CHECK(no_id.out.find("SLURM_ARRAY_TASK_ID") != std::string::npos);
}

TEST_CASE("sweep --slurm: a fio command line and a quote reach the tasks intact", "[compare][cli]") {
    TempDir tmp("sweep-slurm-fio");
    const std::string sweep = "sweep --device nullb --param jobs.0.iodepth=1,4 --set \"jobs.0.name=it's\"";
    const std::string fio = " -- --name=r --rw=randread --bs=4k --ioengine=libaio --runtime=10ms --time_based";
    REQUIRE(blksim_in_source(sweep + " --jobs 1 --csv " + (tmp / "local.csv") + fio).status == 0);
    const std::string dir = tmp / "jobs";
    REQUIRE(blksim_in_source(sweep + " --slurm " + dir + " --csv " + (tmp / "merged.csv") + fio).status == 0);
    CHECK(slurp(dir + "/sweep.sbatch").find("#SBATCH --array=0-1\n") != std::string::npos);  // one per point
    run_as_slurm(dir, 2);
    const std::string csv = slurp(tmp / "merged.csv");
    CHECK(csv.find("it's/read.iops") != std::string::npos);
    CHECK(csv == slurp(tmp / "local.csv"));
    CHECK(shell("test -e " + dir + "/sweep.json").status != 0);  // only the output asked for
}

TEST_CASE("sweep --slurm: submit.sh queues the merge after the whole array", "[compare][cli]") {
    TempDir tmp("sweep-slurm-submit");
    const std::string dir = tmp / "jobs";
    REQUIRE(blksim_in_source("sweep scenarios/bench/hdd-randread-qd32.json --param jobs.0.iodepth=1,4 --slurm " + dir)
                .status == 0);
    // An sbatch that records its arguments and answers as `sbatch --parsable` does.
    const std::string bin = tmp / "bin";
    REQUIRE(shell("mkdir " + bin + " && printf '%s\\n' '#!/bin/sh' 'echo \"$@\" >>\"$(dirname \"$0\")/calls\"'"
                  " 'n=$(wc -l <\"$(dirname \"$0\")/calls\"); echo \"4$n;cluster\"' >" + bin +
                  "/sbatch && chmod +x " + bin + "/sbatch")
                .status == 0);
    shell("touch " + dir + "/shard-0.json " + dir + "/sweep.csv");  // an earlier submission's
    const auto r = shell("PATH=" + bin + ":$PATH " + dir + "/submit.sh --partition=p 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("job array 41 (2 tasks), merge job 42") != std::string::npos);
    CHECK(slurp(bin + "/calls") == "--parsable --partition=p " + dir + "/sweep.sbatch\n" +
                                       "--parsable --partition=p --dependency=afterok:41 --kill-on-invalid-dep=yes " +
                                       dir + "/merge.sbatch\n");
    CHECK(shell("test -e " + dir + "/shard-0.json || test -e " + dir + "/sweep.csv").status != 0);
}

TEST_CASE("sweep --slurm: bad input exits 2 naming the option, and writes nothing", "[compare][cli]") {
    TempDir tmp("sweep-slurm-bad");
    const std::string sweep = "sweep " + source_path("scenarios/bench/hdd-randread-qd32.json") +
                              " --param jobs.0.iodepth=1,4,16 --slurm " + (tmp / "jobs");
    auto bad = [&](const std::string& args, const std::string& needle) {
        const auto r = run_blksim(args);
        INFO(args << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(needle) != std::string::npos);
        CHECK(shell("test -e " + (tmp / "jobs/sweep.sbatch")).status != 0);
    };
    bad(sweep + " --slurm-shards 4", "--slurm-shards 4: more shards than the sweep has points (allowed: 1 to 3)");
    bad(sweep + " --slurm-shards 0", "--slurm-shards");
    bad(sweep + " --shard 0/2", "--shard");
    bad(sweep + " --csv -", "--slurm with an output on stdout");
    bad(sweep + " --param jobs.0.bs=4q", "--param jobs.0.bs=4q");
    bad("sweep " + source_path("scenarios/bench/hdd-randread-qd32.json") + " --param jobs.0.iodepth=1 --slurm " +
            (tmp / "a%b"),
        "no whitespace, quotes, backslash or %");
    bad("sweep " + source_path("scenarios/bench/hdd-randread-qd32.json") + " --param jobs.0.iodepth=1,2 "
        "--slurm-shards 2", "--slurm");
}
