// compare's metrics beyond fio's headline figures (per-priority clat, slat, CPU, lock wait,
// tag sleeps, btt stages) and --fail-on on each family, the zero-width interval warning, the
// compare page, and sweep --runs. Runs are short and --runs 2 or 3.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"
#include "test/compare/compare_metric.h"

using clitest::compare_metric;
using clitest::run_blksim;
using clitest::slurp;
using clitest::source_path;
using json = nlohmann::json;

namespace {

const std::string HDD = source_path("scenarios/bench/hdd-randread-qd32.json");
const std::string NULLB10 = source_path("scenarios/examples/nullblk-mq-deadline-10jobs.json");

// fio's arguments of a prioritised random-read workload: a quarter of the reads RT (class 1).
const std::string PRIO_FIO = " -- --name=r --rw=randread --bs=4k --ioengine=libaio --iodepth=8 --numjobs=4 "
                             "--runtime=300ms --time_based --cmdprio_percentage=25 --cmdprio_class=1";

bool has_metric(const json& report, const std::string& key) {
    for (const json& m : report.at("metrics"))
        if (m.at("metric") == key)
            return true;
    return false;
}

// blksim's stderr alone (its stdout discarded).
clitest::CliResult stderr_of(const std::string& args) {
    return clitest::shell(std::string(BLKSIM_BINARY) + " " + args + " 2>&1 >/dev/null");
}

std::vector<std::string> csv_split(const std::string& line) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
        f.push_back(x);
    return f;
}

std::vector<std::string> csv_lines(const std::string& csv) {
    std::vector<std::string> lines;
    std::stringstream ss(csv);
    for (std::string l; std::getline(ss, l);)
        lines.push_back(l);
    return lines;
}

}  // namespace

TEST_CASE("compare: per-priority clat, slat, CPU, btt, lock and tag metrics", "[compare][cli]") {
    const auto r = run_blksim("compare --device hdd-7200-sata --a-scheduler none --b-scheduler mq-deadline --runs 2 "
                              "--output-format json" + PRIO_FIO,
                              false);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    // fio's clat prio classes: the RT reads and the others (class 0 without a prioclass).
    for (const char* key : {"r/read.prio1_0.clat_mean_ns", "r/read.prio1_0.clat_p99_ns", "r/read.slat_mean_ns",
                            "r/cpu.usr_pct", "r/cpu.sys_pct", "all/cpu.spin_pct"})
        CHECK(has_metric(j, key));
    std::string disk;
    for (const json& m : j.at("metrics"))
        if (const std::string k = m.at("metric"); k.ends_with("/btt.q2c_mean_ns"))
            disk = k.substr(0, k.find('/'));
    REQUIRE(!disk.empty());
    for (const char* stage : {"q2g", "g2i", "i2d", "d2c", "q2c"})
        for (const char* stat : {"mean", "p99"})
            CHECK(has_metric(j, disk + "/btt." + stage + "_" + stat + "_ns"));
    // Q2C covers D2C; with none every request is issued directly (no elevator lock, no
    // scheduler tags); mq-deadline has a lock and holds requests between I and D.
    const json& q2c = compare_metric(j, disk + "/btt.q2c_mean_ns");
    const json& d2c = compare_metric(j, disk + "/btt.d2c_mean_ns");
    CHECK(q2c.at("mean_a").get<double>() >= d2c.at("mean_a").get<double>());
    CHECK(compare_metric(j, disk + "/lock.wait_ns").at("mean_a") == 0.0);
    CHECK(compare_metric(j, disk + "/tags.sched_sleeps").at("mean_a") == 0.0);
    CHECK(has_metric(j, disk + "/tags.driver_sleeps"));
    CHECK(compare_metric(j, disk + "/tags.dispatch_waits").at("mean_a") == 0.0);
    // The RT reads overtake the others in mq-deadline's RT queue: their mean is lower than the
    // group's, which is a mix of both.
    CHECK(compare_metric(j, "r/read.prio1_0.clat_mean_ns").at("mean_b").get<double>() <
          compare_metric(j, "r/read.clat_mean_ns").at("mean_b").get<double>());
}

TEST_CASE("compare: --fail-on takes a metric of each family, and trips on a lock wait A does not have",
          "[compare][cli]") {
    // 8 jobs on 10 CPUs on null_blk: mq-deadline's dd->lock is contended, none has no lock.
    const std::string fio = " -- --name=r --rw=randread --bs=4k --ioengine=libaio --iodepth=4 --numjobs=8"
                            " --runtime=20ms --time_based --cmdprio_percentage=25 --cmdprio_class=1";
    const std::string cmd = "compare --device " + NULLB10 + " --a-scheduler none --b-scheduler mq-deadline --runs 2";
    const auto j = run_blksim(cmd + " --output-format json" + fio, false);
    REQUIRE(j.status == 0);
    const json rep = json::parse(j.out);
    const json& lock = compare_metric(rep, "nullb0/lock.wait_ns");
    REQUIRE(lock.at("mean_a") == 0.0);
    REQUIRE(lock.at("verdict") == "worse");
    // Every family's metric is known to --fail-on (an unknown or absent one exits 2);
    // thresholds no relative change reaches pass.
    const auto r = run_blksim(cmd + " --fail-on read.prio1_0.clat_p99_ns:1e9 --fail-on read.slat_mean_ns:1e9"
                                    " --fail-on cpu.sys_pct:1e9 --fail-on all/cpu.spin_pct:1e9"
                                    " --fail-on btt.q2c_p99_ns:1e9 --fail-on tags.sched_sleeps:1e9"
                                    " --fail-on tags.driver_sleeps:1e9 --fail-on nullb0/lock.wait_ns:0" + fio,
                              false);
    INFO(r.out);
    // From 0 in A, any significant lock wait in B is beyond every threshold.
    CHECK(r.status == 3);
    CHECK(r.out.find("fail-on nullb0/lock.wait_ns:0: REGRESSION in nullb0/lock.wait_ns") != std::string::npos);
    // Without an elevator lock no CPU spins: the same for the spinning mq-deadline adds.
    CHECK(r.out.find("fail-on all/cpu.spin_pct:1e9: REGRESSION in all/cpu.spin_pct") != std::string::npos);
    for (const char* rule : {"read.prio1_0.clat_p99_ns:1e9", "read.slat_mean_ns:1e9", "cpu.sys_pct:1e9",
                             "btt.q2c_p99_ns:1e9", "tags.sched_sleeps:1e9",
                             "tags.driver_sleeps:1e9"})
        CHECK(r.out.find(std::string("fail-on ") + rule + ": ok") != std::string::npos);
    // A metric of a significant change trips a threshold below its change, not one above it.
    for (const char* key : {"r/cpu.sys_pct", "nullb0/btt.q2c_mean_ns", "r/read.prio1_0.clat_mean_ns"}) {
        const json& row = compare_metric(rep, key);
        INFO(row.dump());
        if (row.at("verdict") != "worse")
            continue;
        const double pct = std::fabs(row.at("rel_change_pct").get<double>());
        CHECK(run_blksim(cmd + " --fail-on " + key + ":" + std::to_string(pct / 2) + fio, false).status == 3);
        CHECK(run_blksim(cmd + " --fail-on " + key + ":" + std::to_string(pct * 2) + fio, false).status == 0);
    }
    // A family's unknown name is refused with the list of what there is.
    const auto bad = run_blksim("compare " + HDD + " --fail-on btt.q2x_mean_ns:5");
    CHECK(bad.status == 2);
    CHECK(bad.out.find("btt.q2c_p99_ns") != std::string::npos);
    // A psync job has no slat: the name is valid, the metric absent from this comparison.
    const auto absent = run_blksim("compare " + NULLB10 + " --set jobs.0.runtime=5ms --runs 2 --fail-on read.slat_mean_ns:5");
    CHECK(absent.status == 2);
    CHECK(absent.out.find("no such metric") != std::string::npos);
}

TEST_CASE("compare: a zero-width interval is flagged and warned about once", "[compare][cli]") {
    // One job at QD1 on null_blk, whose completion time is fixed, on a quiet machine (no OS
    // jitter): B's 10 us more moves every run's mean completion latency by exactly 10 us,
    // whatever the seed.
    const std::string base = "compare " + NULLB10 +
                             " --set jobs.0.runtime=5ms --set jobs.0.numjobs=1 --set queues.0.scheduler=none"
                             " --set host.os_jitter=false"
                             " --set devices.0.params.irqmode=2 --set devices.0.params.completion_nsec=10000 --runs 3";
    const auto warned = stderr_of(base + " --b devices.0.params.completion_nsec=20000 --output-format json");
    INFO(warned.out);
    REQUIRE(warned.status == 0);
    const auto line_at = warned.out.find("warning: zero-width confidence interval");
    REQUIRE(line_at != std::string::npos);
    const std::string line = warned.out.substr(line_at, warned.out.find('\n', line_at) - line_at);
    CHECK(line.find("psync10/read.clat_mean_ns") != std::string::npos);
    CHECK(warned.out.find("zero-width", line_at + line.size()) == std::string::npos);  // one line
    const json j = json::parse(run_blksim(base + " --b devices.0.params.completion_nsec=20000 --output-format json",
                                          false).out);
    const json& clat = compare_metric(j, "psync10/read.clat_mean_ns");
    CHECK(clat.at("ci_zero_width") == true);
    CHECK(clat.at("significant") == true);
    // Identical variants differ by 0: no difference to be misled by, no warning.
    const auto same = stderr_of(base + " --output-format json");
    REQUIRE(same.status == 0);
    CHECK(same.out.find("zero-width") == std::string::npos);
    const json s = json::parse(run_blksim(base + " --output-format json", false).out);
    CHECK(compare_metric(s, "psync10/read.clat_mean_ns").at("ci_zero_width") == false);
}

TEST_CASE("compare --html: A and B side by side, every metric, nothing loaded from elsewhere", "[compare][cli]") {
    clitest::TempDir dir("compare-html");
    const std::string page = dir / "cmp.html";
    const auto r = run_blksim("compare --device hdd-7200-sata --a-scheduler none --b-scheduler mq-deadline --runs 2 "
                              "--a-name plain --b-name deadline --output-format json --html " + page + PRIO_FIO,
                              false);
    REQUIRE(r.status == 0);
    const std::string html = slurp(page);
    const json j = json::parse(r.out);
    CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(html.find("A (plain)") != std::string::npos);
    CHECK(html.find("B (deadline)") != std::string::npos);
    CHECK(html.find("--scheduler none") != std::string::npos);
    CHECK(html.find("--scheduler mq-deadline") != std::string::npos);
    for (const json& m : j.at("metrics"))
        CHECK(html.find(m.at("metric").get<std::string>()) != std::string::npos);
    // One CDF per group and direction and per priority, each with a curve of A and one of B.
    CHECK(html.find("<figcaption>r/read</figcaption>") != std::string::npos);
    CHECK(html.find("<figcaption>r/read prio 1/0</figcaption>") != std::string::npos);
    const auto count = [&](const std::string& s) {
        std::size_t n = 0;
        for (auto at = html.find(s); at != std::string::npos; at = html.find(s, at + 1))
            ++n;
        return n;
    };
    CHECK(count("<polyline") == 2 * count("<figcaption>"));
    // Offline: no address, script or external resource.
    for (const char* ref : {"http:", "https:", "//", "<script", "<link", "@import", "url("}) {
        INFO(ref);
        CHECK(html.find(ref) == std::string::npos);
    }
    // A page that cannot be written is refused before anything runs.
    const auto bad = run_blksim("compare " + HDD + " --runs 2 --html /nonexistent-dir/x.html");
    CHECK(bad.status == 2);
    CHECK(bad.out.find("/nonexistent-dir/x.html") != std::string::npos);
}

TEST_CASE("sweep --runs: per point the mean of paired-seed replications and its interval", "[compare][cli]") {
    clitest::TempDir dir("sweep-runs");
    const std::string sweep = "sweep " + HDD + " --set jobs.0.runtime=200ms --param jobs.0.iodepth=1,8 --jobs 2";
    const std::string one = run_blksim(sweep, false).out;
    // --runs 1 is the sweep without --runs, byte for byte (CSV and JSON).
    CHECK(run_blksim(sweep + " --runs 1", false).out == one);
    REQUIRE(run_blksim(sweep + " --json " + (dir / "a.json")).status == 0);
    REQUIRE(run_blksim(sweep + " --runs 1 --json " + (dir / "b.json")).status == 0);
    CHECK(slurp(dir / "a.json") == slurp(dir / "b.json"));
    CHECK(slurp(dir / "a.json").find("\"runs\"") == std::string::npos);

    // Replication i of a point uses the point's seed + i: the mean of --runs 3 is the mean
    // of three one-run sweeps at seeds s, s + 1, s + 2.
    const auto three = run_blksim(sweep + " --runs 3", false);
    REQUIRE(three.status == 0);
    const std::vector<std::string> lines = csv_lines(three.out);
    REQUIRE(lines.size() == 3);
    const std::vector<std::string> head = csv_split(lines[0]);
    CHECK(head[2] == "randread/read.iops");
    CHECK(head[3] == "randread/read.iops.ci_low");
    CHECK(head[4] == "randread/read.iops.ci_high");
    const json scen = json::parse(slurp(HDD));
    const uint64_t s = scen.value("seed", uint64_t{0});
    std::vector<double> iops(2, 0.0);
    for (uint64_t i = 0; i < 3; ++i) {
        const auto r = run_blksim(sweep + " --set seed=" + std::to_string(s + i), false);
        REQUIRE(r.status == 0);
        const std::vector<std::string> l = csv_lines(r.out);
        for (std::size_t p = 0; p < 2; ++p)
            iops[p] += std::stod(csv_split(l[1 + p])[2]) / 3;
    }
    for (std::size_t p = 0; p < 2; ++p) {
        const std::vector<std::string> f = csv_split(lines[1 + p]);
        INFO(lines[1 + p]);
        CHECK(std::stod(f[2]) == Approx(iops[p]).epsilon(1e-12));
        CHECK(std::stod(f[3]) < std::stod(f[2]));  // random offsets: the replications differ
        CHECK(std::stod(f[4]) > std::stod(f[2]));
        CHECK(std::stod(f[2]) - std::stod(f[3]) == Approx(std::stod(f[4]) - std::stod(f[2])));
    }

    // The JSON says how many runs; shards merge only with shards of as many.
    REQUIRE(run_blksim(sweep + " --runs 3 --json " + (dir / "r3.json")).status == 0);
    CHECK(json::parse(slurp(dir / "r3.json")).at("runs") == 3);
    REQUIRE(run_blksim(sweep + " --runs 3 --shard 0/2 --json " + (dir / "s0.json")).status == 0);
    REQUIRE(run_blksim(sweep + " --runs 3 --shard 1/2 --json " + (dir / "s1.json")).status == 0);
    REQUIRE(run_blksim(sweep + " --runs 2 --shard 1/2 --json " + (dir / "s1-2.json")).status == 0);
    const auto merged = run_blksim("sweep-merge " + (dir / "s0.json") + " " + (dir / "s1.json") + " --json -", false);
    REQUIRE(merged.status == 0);
    CHECK(merged.out == slurp(dir / "r3.json"));
    const auto mixed = run_blksim("sweep-merge " + (dir / "s0.json") + " " + (dir / "s1-2.json"));
    CHECK(mixed.status == 2);
    CHECK(mixed.out.find("--runs") != std::string::npos);
    const auto zero = run_blksim(sweep + " --runs 0");
    CHECK(zero.status == 2);
    CHECK(zero.out.find("--runs 0") != std::string::npos);
}
