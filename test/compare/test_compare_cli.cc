// `blksim compare`, `blksim sweep` and `blksim sweep-merge` driven as a user does: known
// effects, common random numbers, determinism across thread counts, shards merged, bad input.
// Runs are short (HDD at a few hundred I/Os per simulated second, fractions of a second each).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"
#include "test/compare/compare_metric.h"

using clitest::compare_metric;
using clitest::run_blksim;
using clitest::shell;
using clitest::slurp;
using clitest::source_path;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string HDD = source_path("scenarios/bench/hdd-randread-qd32.json");

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("blksim-compare-test-" + std::to_string(getpid()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string operator/(const std::string& name) const { return (path / name).string(); }
};

double ci_width(const json& m) { return m.at("ci_high").get<double>() - m.at("ci_low").get<double>(); }

}  // namespace

TEST_CASE("compare: RPO against FIFO on an HDD is significant, and --fail-on trips on it", "[compare][cli]") {
    const std::string cmd =
        HDD + " --set jobs.0.runtime=1s --set 'devices.0.params={}' --b devices.0.params.sched=fifo --runs 4 --jobs 2";
    const auto r = run_blksim("compare " + cmd + " --output-format json", false);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    CHECK(j.at("crn") == true);
    CHECK(j.at("a").at("seeds") == j.at("b").at("seeds"));
    const json& iops = compare_metric(j, "randread/read.iops");
    CHECK(iops.at("verdict") == "worse");
    CHECK(iops.at("rel_change_pct").get<double>() < -30.0);  // RPO about doubles 4 KiB random IOPS
    CHECK(compare_metric(j, "randread/read.clat_mean_ns").at("verdict") == "worse");
    // Exit status for scripts: 3 beyond the threshold, 0 within it.
    CHECK(run_blksim("compare " + cmd + " --fail-on read.iops:10", false).status == 3);
    const auto ok = run_blksim("compare " + cmd + " --fail-on read.iops:90 --fail-on randread/read.clat_p99_ns:900", false);
    CHECK(ok.status == 0);
    CHECK(ok.out.find("fail-on read.iops:90: ok") != std::string::npos);
    // The text table names the verdict.
    CHECK(ok.out.find("randread/read.iops") != std::string::npos);
    CHECK(ok.out.find("worse") != std::string::npos);
}

TEST_CASE("compare: identical variants differ by exactly 0 with common random numbers", "[compare][cli]") {
    const auto r = run_blksim("compare " + HDD + " --set jobs.0.runtime=300ms --runs 3 --output-format json", false);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    // fio's six figures and slat (libaio), the group's CPU, the CPUs' spinning, the disk's btt
    // stages, lock wait, tag sleeps and dispatch tag waits.
    REQUIRE(j.at("metrics").size() == 7 + 2 + 1 + 10 + 1 + 3);
    for (const json& m : j.at("metrics")) {
        INFO(m.dump());
        CHECK(m.at("diff").get<double>() == 0.0);
        CHECK(m.at("ci_low").get<double>() == 0.0);
        CHECK(m.at("ci_high").get<double>() == 0.0);
        CHECK(m.at("verdict") == "no significant difference");
    }
}

TEST_CASE("compare: common random numbers narrow the interval of a device-parameter change", "[compare][cli]") {
    // B's drive seeks 8 % slower on average (7.4 -> 8.0 ms). At QD1 every I/O pays one seek;
    // with CRN both variants seek between the same offsets, so the seek-length noise cancels
    // (rotational latency still differs: the head arrives at another angle).
    const std::string cmd = HDD +
                            " --set jobs.0.runtime=1s --set jobs.0.iodepth=1 --set 'devices.0.params={}'"
                            " --b devices.0.params.seek_average=8000us --runs 6 --output-format json";
    const auto crn = run_blksim("compare " + cmd, false);
    const auto indep = run_blksim("compare " + cmd + " --no-crn", false);
    REQUIRE(crn.status == 0);
    REQUIRE(indep.status == 0);
    const json a = json::parse(crn.out), b = json::parse(indep.out);
    CHECK(b.at("crn") == false);
    CHECK(a.at("b").at("seeds") != b.at("b").at("seeds"));
    for (const char* key : {"randread/read.clat_mean_ns", "randread/read.iops"}) {
        INFO(key << ": CRN width " << ci_width(compare_metric(a, key)) << ", independent " << ci_width(compare_metric(b, key)));
        CHECK(ci_width(compare_metric(a, key)) < ci_width(compare_metric(b, key)));
    }
    CHECK(compare_metric(a, "randread/read.clat_mean_ns").at("verdict") == "worse");
}

TEST_CASE("compare: variants that differ in the scheduler draw the same offsets", "[compare][cli]") {
    // Common random numbers at the source: the offsets queued (blkparse 'Q' lines) by the
    // job are the same sequence, one run's a prefix of the other's.
    TempDir dir;
    auto offsets = [&](const std::string& sched, const std::string& file) {
        const auto r = run_blksim("run " + HDD + " -q --set jobs.0.runtime=300ms --set queues.0.scheduler=" + sched +
                                      " --seed 7 --trace " + file + " > /dev/null",
                                  true);
        REQUIRE(r.status == 0);
        return shell("awk '$6 == \"Q\" { print $8 }' " + file).out;
    };
    const std::string a = offsets("none", dir / "a.trace"), b = offsets("mq-deadline", dir / "b.trace");
    REQUIRE(a.size() > 100);
    REQUIRE(b.size() > 100);
    const std::size_t n = std::min(a.size(), b.size());
    const std::size_t line = a.substr(0, n).rfind('\n') + 1;  // whole lines of the shorter run
    CHECK(a.substr(0, line) == b.substr(0, line));
}

TEST_CASE("sweep: the same files for --jobs 1 and --jobs 2; shards merge to the unsharded run", "[compare][cli]") {
    TempDir dir;
    const std::string sweep = "sweep " + HDD +
                              " --set jobs.0.runtime=200ms --param jobs.0.iodepth=1,4,16"
                              " --param queues.0.scheduler=none,mq-deadline";
    REQUIRE(run_blksim(sweep + " --jobs 1 --csv " + (dir / "j1.csv") + " --json " + (dir / "j1.json")).status == 0);
    REQUIRE(run_blksim(sweep + " --jobs 2 --csv " + (dir / "j2.csv") + " --json " + (dir / "j2.json")).status == 0);
    const std::string csv = slurp(dir / "j1.csv"), js = slurp(dir / "j1.json");
    CHECK(csv == slurp(dir / "j2.csv"));
    CHECK(js == slurp(dir / "j2.json"));
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);  // header + 6 points
    CHECK(csv.rfind("point,jobs.0.iodepth,queues.0.scheduler,randread/read.iops,", 0) == 0);
    CHECK(csv.find("\n5,16,mq-deadline,") != std::string::npos);
    // CSV on stdout by default.
    CHECK(run_blksim(sweep + " --jobs 2", false).out == csv);
    // --jobs 2 ran the dearest points first (the iodepth=16 ones); in index order, the same files.
    CHECK(run_blksim(sweep + " --jobs 2 --order index", false).out == csv);
    CHECK(run_blksim(sweep + " --order dearest").status == 2);

    // The Slurm recipe of docs/sweep.md, run locally: array tasks 0..2 of 3, then the merge.
    std::string shards;
    for (int i = 0; i < 3; ++i) {
        const std::string f = dir / ("shard-" + std::to_string(i) + ".json");
        REQUIRE(run_blksim(sweep + " --jobs 1 --shard " + std::to_string(i) + "/3 --json " + f).status == 0);
        shards += " " + f;
    }
    const std::string merged = dir / "merged";
    REQUIRE(run_blksim("sweep-merge" + shards + " --csv " + merged + ".csv --json " + merged + ".json").status == 0);
    CHECK(slurp(merged + ".json") == js);
    CHECK(slurp(merged + ".csv") == csv);
    // A missing shard is named.
    const auto missing = run_blksim("sweep-merge " + (dir / "shard-0.json") + " " + (dir / "shard-2.json"));
    CHECK(missing.status == 2);
    CHECK(missing.out.find("1/3") != std::string::npos);
}

TEST_CASE("compare and sweep: bad input exits 2 with a message naming the option", "[compare][cli]") {
    auto bad = [](const std::string& args, const std::string& needle) {
        const auto r = run_blksim(args);
        INFO(args << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(needle) != std::string::npos);
    };
    bad("sweep " + HDD + " --param jobs.0.iodeth=1,2", "--param jobs.0.iodeth=1");
    bad("sweep " + HDD + " --param queues.0.scheduler=none,fancy", "--param queues.0.scheduler=fancy");
    bad("sweep " + HDD + " --param jobs.0.iodepth", "PATH=V1,V2");
    bad("sweep " + HDD + " --param jobs.0.iodepth=1 --param jobs.0.iodepth=2", "swept twice");
    bad("sweep " + HDD + " --param jobs.0.iodepth=1 --shard 3/3", "--shard '3/3'");
    bad("sweep " + HDD + " --param jobs.0.iodepth=1 --set jobs.0.bogus=1", "bogus");
    bad("compare " + HDD + " --runs 1", "--runs 1");
    bad("compare " + HDD + " --a 'jobs.0.iodepth'", "--a 'jobs.0.iodepth'");
    bad("compare " + HDD + " --b 'jobs.0.iodeth=4'", "variant B");
    bad("compare " + HDD + " --fail-on read.p99:5", "--fail-on 'read.p99:5'");
    bad("compare " + HDD + " --set jobs.0.runtime=100ms --runs 2 --fail-on write.iops:5", "no such metric");
    bad("compare " + HDD + " --output-format xml", "--output-format");
    bad("sweep-merge /nonexistent.json", "cannot open");
}
