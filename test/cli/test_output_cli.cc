// Outputs never lie about being complete: a failed write exits non-zero naming the output, an
// output that cannot be opened is found before the run, and a run or sweep stopped by a
// signal or a failed point leaves no file that looks complete.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "test/cli/cli_fixture.h"

using namespace clitest;
namespace fs = std::filesystem;

namespace {

const std::string kQd1 = source_path("scenarios/examples/nullblk-psync-qd1.json");

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The files left in `dir` (names only), sorted.
std::string listing(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names)
        out += n + "\n";
    return out;
}

}  // namespace

TEST_CASE("output: a full stdout or output file exits 2 naming it", "[cli][output]") {
    if (!fs::exists("/dev/full")) {
        WARN("no /dev/full: not tested");
        return;
    }
    const std::string run = kQd1 + " -q --set jobs.0.runtime=2ms";
    struct Case {
        std::string args, message;
    };
    const std::vector<Case> cases = {
        {"run " + run + " 2>&1 >/dev/full", "blksim: stdout: write error"},
        {"run " + run + " --trace /dev/full", "blksim: --trace /dev/full: write error"},
        {"run " + run + " --trace - 2>&1 >/dev/full", "blksim: stdout: write error"},
        {"run " + run + " --timeseries /dev/full", "--timeseries /dev/full: write error"},
        {"sweep " + kQd1 + " --set jobs.0.runtime=1ms --param jobs.0.iodepth=1,2 --csv - 2>&1 >/dev/full",
         "stdout: write error"},
        {"sweep " + kQd1 + " --set jobs.0.runtime=1ms --param jobs.0.iodepth=1,2 --json /dev/full",
         "sweep: --json /dev/full: write error"},
        {"validate --graph " + kQd1 + " 2>&1 >/dev/full", "stdout: write error"},
        {"list 2>&1 >/dev/full", "stdout: write error"},
        {"fio --device nullb -- --name=a --runtime=1ms --output=/dev/full", "fio --output=/dev/full: write error"},
    };
    for (const Case& c : cases) {
        const CliResult r = shell(std::string(BLKSIM_BINARY) + " " + c.args + (contains(c.args, "2>&1") ? "" : " 2>&1"));
        INFO(c.args << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(contains(r.out, c.message));
    }
}

TEST_CASE("output: an output that cannot be opened is found before the run, nothing left behind",
          "[cli][output]") {
    const TempDir t("unwritable");
    // The run would take seconds; the log's directory does not exist, so it must not start.
    CliResult r = run_blksim("run " + kQd1 + " -q --set jobs.0.runtime=20s --trace " + t / "t.txt" +
                             " --blktrace " + t / "bt" + " --timeseries " + t / "ts.csv" +
                             " --set jobs.0.write_lat_log=" + t / "nodir/lat");
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(contains(r.out, "jobs.0.write_lat_log " + t / "nodir/lat_lat.1.log: cannot open for writing"));
    CHECK_FALSE(contains(r.out, "simulated"));
    CHECK(listing(t.dir).empty());  // no trace, no temporary file, no blktrace directory

    r = run_blksim("run " + kQd1 + " -q --trace " + t / "nodir/t.txt");
    CHECK(r.status == 2);
    CHECK(contains(r.out, "--trace " + t / "nodir/t.txt: cannot open for writing"));

    r = run_blksim("sweep " + kQd1 + " --param jobs.0.runtime=20s,21s --csv " + t / "s.csv --json " + t / "nodir/s.json");
    CHECK(r.status == 2);
    CHECK(contains(r.out, "sweep: --json " + t / "nodir/s.json: cannot open for writing"));
    CHECK(listing(t.dir).empty());

    // A successful run puts its files in place, under their names only, mode as for any new file.
    REQUIRE(run_blksim("run " + kQd1 + " -q --set jobs.0.runtime=2ms --trace " + t / "t.txt" +
                       " --set jobs.0.write_iops_log=" + t / "iops")
                .status == 0);
    CHECK(listing(t.dir) == "iops_iops.1.log\nt.txt\n");
    CHECK(contains(slurp(t / "t.txt"), " C "));
    CHECK((fs::status(t / "t.txt").permissions() & fs::perms::others_read) != fs::perms::none);
}

TEST_CASE("output: a sweep keeps its finished points and lists a failed one with its error", "[cli][output]") {
    const TempDir t("failed-point");
    // Each value loads on its own; bs=8k with size=4k (point 2) does not.
    const CliResult r = run_blksim("sweep " + kQd1 + " --set jobs.0.runtime=1ms --param jobs.0.bs=4k,8k " +
                                   "--param jobs.0.size=4k,1m --csv " + t / "s.csv --json " + t / "s.json");
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(contains(r.out, "sweep: point 2 (jobs.0.bs=8k jobs.0.size=4k)"));
    const std::string csv = slurp(t / "s.csv");
    CHECK(contains(csv, "\n0,4k,4k,"));
    CHECK(contains(csv, "\n1,4k,1m,"));
    CHECK(contains(csv, "\n3,8k,1m,"));
    CHECK_FALSE(contains(csv, "\n2,"));
    CHECK(contains(csv, "# incomplete: 1 of 4 points have no results (1 failed, 0 not run)\n"));
    CHECK(contains(csv, "# failed point 2 (jobs.0.bs=8k jobs.0.size=4k): "));
    CHECK(contains(csv, "smaller than the block size"));
    const std::string json = slurp(t / "s.json");
    CHECK(contains(json, "\"incomplete\": true"));
    CHECK(contains(json, "{\"point\": 2, \"values\": [\"8k\", \"4k\"], \"status\": 2, \"error\": "));
    CHECK(contains(json, "{\"point\": 3, "));
    // sweep-merge and report refuse it rather than treat it as the whole sweep.
    const CliResult m = run_blksim("sweep-merge " + t / "s.json");
    CHECK(m.status == 2);
    CHECK(contains(m.out, "an incomplete sweep"));
}

TEST_CASE("output: SIGINT stops a sweep, which writes its finished points marked incomplete and exits 130",
          "[cli][output][signal]") {
    const TempDir t("sigint");
    // Points 0 and 1 take milliseconds, point 2 an hour of simulated time (about half a
    // minute of wall time, 8 M I/Os per second): the signal comes once the progress line
    // shows two points done, and point 2 stops at its next audit.
    const std::string cmd = std::string(BLKSIM_BINARY) + " sweep " + kQd1 +
                            " --param jobs.0.runtime=1ms,2ms,3600s --jobs 1 --order index --progress --csv " +
                            t / "s.csv --json " + t / "s.json 2>" + t / "err & p=$!; for i in $(seq 600); do grep -q "
                            "'2/3 runs' " + t / "err && break; sleep 0.1; done; kill -INT $p; wait $p; echo rc=$?";
    const CliResult r = shell(cmd);
    INFO(r.out << slurp(t / "err"));
    CHECK(contains(r.out, "rc=130"));
    CHECK(contains(slurp(t / "err"), "sweep: incomplete: 2 of 3 points have results (0 failed, 1 not run: "
                                     "interrupted by SIGINT)"));
    const std::string csv = slurp(t / "s.csv");
    CHECK(contains(csv, "\n0,1ms,"));
    CHECK(contains(csv, "\n1,2ms,"));
    CHECK(contains(csv, "# incomplete: 1 of 3 points have no results (0 failed, 1 not run: interrupted by SIGINT)\n"
                        "# missing points: 2\n"));
    const std::string json = slurp(t / "s.json");
    CHECK(contains(json, "\"incomplete\": true,\n  \"interrupted\": \"SIGINT\",\n  \"missing\": [2],"));
    CHECK(contains(json, "{\"point\": 1, "));
}

TEST_CASE("output: SIGTERM stops a run, which leaves no trace file and exits 143", "[cli][output][signal]") {
    const TempDir t("sigterm");
    // The trace's temporary file exists once the outputs are open, i.e. the handler is in place.
    const std::string cmd = std::string(BLKSIM_BINARY) + " run " + kQd1 + " -q --set jobs.0.runtime=60s --trace " +
                            t / "t.txt --blktrace " + t / "bt 2>" + t / "err & p=$!; for i in $(seq 600); do "
                            "ls -a " + t.dir.string() + " | grep -q '^.t.txt.blksim-' && break; sleep 0.1; done; "
                            "sleep 0.5; kill -TERM $p; wait $p; echo rc=$?";
    const CliResult r = shell(cmd);
    INFO(r.out << slurp(t / "err"));
    CHECK(contains(r.out, "rc=143"));
    CHECK(contains(slurp(t / "err"), "by SIGTERM; no output written"));
    CHECK(listing(t.dir) == "err\n");
}

TEST_CASE("cli: --seed -1, an unknown command and --seeds 0 get one message and exit 2", "[cli][output]") {
    struct Case {
        std::string args, message;
    };
    const std::vector<Case> cases = {
        {"run " + kQd1 + " -q --seed -1",
         "--seed: '-1' is not a seed (allowed: an integer from 0 to 9223372036854775807)"},
        {"compare " + kQd1 + " --seed -5", "--seed: '-5' is not a seed"},
        {"run " + kQd1 + " -q --seed 9223372036854775808", "is not a seed"},
        {"frobnicate", "'frobnicate' is not a blksim command (allowed: run, fio, validate, list,"},
        {"sweeep x", "'sweeep' is not a blksim command; did you mean 'sweep'?"},
        {"reproduce --reduced --seeds 0 --only E4", "--seeds 0: a confidence interval needs at least 2 seeds"},
    };
    for (const Case& c : cases) {
        const CliResult r = run_blksim(c.args);
        INFO(c.args << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(contains(r.out, c.message));
        CHECK_FALSE(contains(r.out, "A subcommand is required"));
    }
    CHECK(run_blksim("run " + kQd1 + " -q --seed 9223372036854775807 --set jobs.0.runtime=1ms").status == 0);
}
