// tools/experiment: the t quantile, the paired interval, verdicts, --fail-on, --param and
// --shard parsing, the sweep files and their merge, and concurrent simulations.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tools/experiment/compare.h"
#include "tools/experiment/progress.h"
#include "tools/experiment/simulate.h"
#include "tools/experiment/stats.h"
#include "tools/experiment/sweep.h"
#include "tools/experiment/thread_pool.h"
#include "tools/scenario/scenario.h"

using namespace blksim;
using namespace blksim::experiment;

TEST_CASE("t quantiles match the tables", "[compare]") {
    CHECK(t_quantile(0.975, 1) == Approx(12.706).epsilon(1e-4));
    CHECK(t_quantile(0.975, 9) == Approx(2.262).epsilon(1e-3));
    CHECK(t_quantile(0.975, 29) == Approx(2.045).epsilon(1e-3));
    CHECK(t_quantile(0.975, 1e6) == Approx(1.960).epsilon(1e-3));
    CHECK_THROWS(t_quantile(0.975, 0));
}

TEST_CASE("paired confidence interval of the difference", "[compare]") {
    // d = 1, 2, 3, 4, 5: mean 3, sd sqrt(2.5), half width t(0.975, 4) * sd / sqrt(5).
    const std::vector<double> a = {10, 20, 30, 40, 50};
    const std::vector<double> b = {11, 22, 33, 44, 55};
    const PairedCi ci = paired_ci(a, b);
    CHECK(ci.n == 5);
    CHECK(ci.mean_a == Approx(30));
    CHECK(ci.mean_b == Approx(33));
    CHECK(ci.diff == Approx(3));
    CHECK(ci.diff_sd == Approx(std::sqrt(2.5)));
    CHECK(ci.half_width == Approx(2.776445 * std::sqrt(2.5) / std::sqrt(5.0)).epsilon(1e-5));
    CHECK(ci.significant());
    CHECK(ci.rel_change_pct() == Approx(10.0));
    // Identical samples: exactly zero, a zero-width interval, not significant.
    const PairedCi same = paired_ci(a, a);
    CHECK(same.diff == 0.0);
    CHECK(same.half_width == 0.0);
    CHECK_FALSE(same.significant());
    CHECK_THROWS(paired_ci(std::vector<double>{1}, std::vector<double>{2}));
}

TEST_CASE("confidence interval of a mean over seeds", "[compare][reproduce]") {
    // 1, 2, 3, 4: mean 2.5, sd sqrt(5/3), half width t(0.975, 3) * sd / 2.
    const MeanCi ci = mean_ci(std::vector<double>{1, 2, 3, 4});
    CHECK(ci.n == 4);
    CHECK(ci.mean == Approx(2.5));
    CHECK(ci.sd == Approx(std::sqrt(5.0 / 3.0)));
    CHECK(ci.half_width == Approx(3.182446 * std::sqrt(5.0 / 3.0) / 2.0).epsilon(1e-5));
    CHECK(mean_ci(std::vector<double>{7, 7, 7}).half_width == 0.0);
    CHECK_THROWS(mean_ci(std::vector<double>{1}));
}

TEST_CASE("verdicts follow each metric's good direction", "[compare]") {
    auto run = [](double iops, double lat) {
        return std::vector<Metric>{{"j/read.iops", iops}, {"j/read.clat_p99_ns", lat}};
    };
    const std::vector<std::vector<Metric>> a = {run(100, 1000), run(110, 1100), run(90, 900)};
    const std::vector<std::vector<Metric>> b = {run(120, 1200), run(131, 1300), run(109, 1100)};
    const auto rows = compare_runs(a, b, 0.95);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].verdict == Verdict::BETTER);  // more IOPS
    CHECK(rows[1].verdict == Verdict::WORSE);   // longer latency
    CHECK(fails(parse_fail_on("read.clat_p99_ns:5"), rows[1]));
    CHECK_FALSE(fails(parse_fail_on("read.clat_p99_ns:25"), rows[1]));  // +19 %
    CHECK(fails(parse_fail_on("j/read.clat_p99_ns:5"), rows[1]));
    CHECK_FALSE(fails(parse_fail_on("read.iops:0"), rows[0]));  // better is never a failure
    CHECK_THROWS_WITH(parse_fail_on("read.p99:5"), Catch::Contains("--fail-on") && Catch::Contains("read.clat_p99_ns"));
    CHECK_THROWS(parse_fail_on("read.iops"));
    CHECK_THROWS(parse_fail_on("read.iops:-1"));
}

TEST_CASE("compare's metric families: names, directions, --fail-on from a zero mean", "[compare]") {
    for (const char* ok : {"read.slat_mean_ns", "write.prio1_4.clat_p99_ns", "read.prio2_0.clat_mean_ns",
                           "cpu.usr_pct", "cpu.spin_pct", "btt.q2g_mean_ns", "btt.d2c_p99_ns", "lock.wait_ns",
                           "tags.driver_sleeps", "tags.sched_sleeps"}) {
        INFO(ok);
        CHECK(is_metric_suffix(ok));
        CHECK_FALSE(higher_is_better(std::string("g/") + ok));
    }
    for (const char* bad : {"read.prio1.clat_mean_ns", "read.prio1_0.clat_p50_ns", "read.prioa_0.clat_mean_ns",
                            "cpu.iops", "btt.q2x_mean_ns", "lock.wait", "tags.sleeps", "disk.wait_ns"}) {
        INFO(bad);
        CHECK_FALSE(is_metric_suffix(bad));
    }
    CHECK(higher_is_better("g/read.iops"));
    // Lock wait from 0 in A: a significant worsening trips any threshold.
    auto run = [](double w) { return std::vector<Metric>{{"sda/lock.wait_ns", w}}; };
    const auto rows = compare_runs({run(0), run(0), run(0)}, {run(100), run(150), run(120)}, 0.95);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].verdict == Verdict::WORSE);
    CHECK(fails(parse_fail_on("lock.wait_ns:1000000"), rows[0]));
    CHECK(matches(parse_fail_on("lock.wait_ns:5"), "sda/lock.wait_ns"));
    CHECK_FALSE(matches(parse_fail_on("lock.wait_ns:5"), "sda/tags.driver_sleeps"));
}

TEST_CASE("a zero-width interval away from 0 is flagged; at 0 or with spread it is not", "[compare]") {
    const std::vector<double> a = {100, 200, 300};
    CHECK(paired_ci(a, std::vector<double>{110, 210, 310}).zero_width());
    CHECK(paired_ci(a, std::vector<double>{110, 210, 310}).significant());
    CHECK_FALSE(paired_ci(a, a).zero_width());
    CHECK_FALSE(paired_ci(a, std::vector<double>{110, 212, 310}).zero_width());
    // Differences equal up to the rounding of B - A still have no real width.
    CHECK(paired_ci(std::vector<double>{0.1, 0.2, 0.7}, std::vector<double>{0.4, 0.5, 1.0}).zero_width());
}

TEST_CASE("sweep replications: each metric's mean and interval, for metrics every replication has", "[compare]") {
    const std::vector<std::vector<Metric>> reps = {
        {{"j/read.iops", 1}, {"j/write.iops", 5}},
        {{"j/read.iops", 2}},
        {{"j/read.iops", 3}, {"j/write.iops", 7}},
    };
    const std::vector<Metric> s = replication_summary(reps);
    REQUIRE(s.size() == 3);
    const MeanCi ci = mean_ci(std::vector<double>{1, 2, 3});
    CHECK(s[0].key == "j/read.iops");
    CHECK(s[0].value == ci.mean);
    CHECK(s[1].key == "j/read.iops.ci_low");
    CHECK(s[1].value == ci.mean - ci.half_width);
    CHECK(s[2].key == "j/read.iops.ci_high");
    CHECK(s[2].value == ci.mean + ci.half_width);
    CHECK(replication_summary({reps[0]}).empty());
}

TEST_CASE("--param and --shard parsing", "[compare]") {
    const SweepParam p = parse_param("jobs.0.iodepth=1, 4,16");
    CHECK(p.path == "jobs.0.iodepth");
    CHECK(p.values == std::vector<std::string>{"1", "4", "16"});
    const SweepParam q = parse_param(R"(jobs.0.bs=["4k,8k","16k",32768])");
    CHECK(q.values == std::vector<std::string>{"4k,8k", "16k", "32768"});
    CHECK_THROWS_AS(parse_param("jobs.0.iodepth"), SweepError);
    CHECK_THROWS_AS(parse_param("=1,2"), SweepError);
    CHECK_THROWS_AS(parse_param("a=1,,2"), SweepError);
    CHECK_THROWS_AS(parse_param("a=[1,"), SweepError);
    const Shard s = parse_shard("1/3");
    CHECK((s.index == 1 && s.count == 3));
    CHECK(s.owns(4));
    CHECK_FALSE(s.owns(3));
    CHECK_THROWS_AS(parse_shard("3/3"), SweepError);
    CHECK_THROWS_AS(parse_shard("1"), SweepError);
    CHECK_THROWS_AS(parse_shard("a/2"), SweepError);
}

TEST_CASE("points are the cartesian product, first parameter slowest", "[compare]") {
    const std::vector<SweepParam> ps = {parse_param("a=1,2"), parse_param("b=x,y,z")};
    CHECK(point_count(ps) == 6);
    CHECK(point_sets(ps, 0) == std::vector<std::string>{"a=1", "b=x"});
    CHECK(point_sets(ps, 2) == std::vector<std::string>{"a=1", "b=z"});
    CHECK(point_sets(ps, 3) == std::vector<std::string>{"a=2", "b=x"});
    CHECK(point_count({}) == 1);
}

TEST_CASE("sweep files: JSON round trip, shards merge to the unsharded output", "[compare]") {
    SweepOutput all;
    all.scenario = "s.json";
    all.sets = {"jobs.0.runtime=1s"};
    all.params = {parse_param("a=1,2,3"), parse_param(R"(b=["x,1","y"])")};
    for (std::size_t i = 0; i < 6; ++i)
        all.results.push_back({i, {{"j/read.iops", 1000.0 / 3.0 * static_cast<double>(i + 1)},
                                   {"j/read.clat_p99_ns", 1e9 + static_cast<double>(i)}}});
    all.results[5].metrics.push_back({"j/write.iops", 0.1});  // a column only one point has
    const std::string csv = to_csv(all), json = to_json(all);
    CHECK(csv.substr(0, csv.find('\n')) == "point,a,b,j/read.iops,j/read.clat_p99_ns,j/write.iops");
    CHECK(csv.find("\n1,1,y,666.6666666666666,1000000001,\n") != std::string::npos);
    CHECK(csv.find("\n0,1,\"x,1\",") != std::string::npos);
    CHECK(to_json(from_json(json, "all.json")) == json);

    std::vector<SweepOutput> shards;
    for (std::size_t k = 0; k < 4; ++k) {  // 4 shards of 6 points: shard 3 gets point 3 only
        SweepOutput s = all;
        s.shard = {k, 4};
        s.results.clear();
        for (const PointResult& r : all.results)
            if (s.shard.owns(r.index))
                s.results.push_back(r);
        shards.push_back(from_json(to_json(s), "shard"));
    }
    const std::vector<std::string> names = {"s0", "s1", "s2", "s3"};
    const SweepOutput merged = merge_shards({shards[2], shards[0], shards[3], shards[1]}, names);
    CHECK(to_json(merged) == json);
    CHECK(to_csv(merged) == csv);
    CHECK_THROWS_WITH(merge_shards({shards[0], shards[1], shards[2]}, names),
                      Catch::Contains("point 3 is missing") && Catch::Contains("3/4"));
    CHECK_THROWS_WITH(merge_shards({shards[0], shards[0]}, names), Catch::Contains("both shard 0/4"));
    SweepOutput other = shards[1];
    other.sets.clear();
    CHECK_THROWS_WITH(merge_shards({shards[0], other}, names), Catch::Contains("another sweep"));
    CHECK_THROWS_AS(from_json("{\"x\": 1}", "bad.json"), SweepError);
}

TEST_CASE("progress line", "[compare]") {
    CHECK(Progress::line("sweep", 4, 16, 2, 10.0) ==
          "sweep: 2 threads: [4/16 runs] [25.0% done] [elapsed 00m:10s] [eta 00m:30s]");
    CHECK(Progress::line("sweep", 0, 16, 1, 0.0).find("[eta --m:--s]") != std::string::npos);
}

TEST_CASE("parallel_for runs every index once, whatever the thread count", "[compare]") {
    for (unsigned jobs : {1u, 2u, 7u}) {
        std::vector<int> hits(50, 0);
        std::size_t last = 0;
        parallel_for(hits.size(), jobs, [&](std::size_t i) { ++hits[i]; }, [&](std::size_t d) { last = d; }, 0.001);
        CHECK(std::count(hits.begin(), hits.end(), 1) == 50);
        CHECK(last == 50);
    }
}

// The global-state question: simulations running at once in one process must give what they
// give alone (no shared mutable state in sim/ or models/). Different devices, schedulers and
// engines run concurrently, each compared with its serial run.
TEST_CASE("concurrent simulations give the serial results", "[compare]") {
    const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
        {"scenarios/bench/hdd-randread-qd32.json", {"jobs.0.runtime=300ms"}},
        {"scenarios/bench/hdd-randread-qd32.json", {"jobs.0.runtime=300ms", "queues.0.scheduler=mq-deadline"}},
        {"scenarios/examples/nullblk-mq-deadline-10jobs.json", {"jobs.0.runtime=5ms"}},
        {"scenarios/examples/sata-ssd-randread-qd32.json", {"jobs.0.runtime=5ms"}},
        {"scenarios/examples/nullblk-psync-qd1.json", {"jobs.0.runtime=5ms"}},
        {"scenarios/examples/sas-hba-2hdd-mq-deadline.json", {"global.runtime=200ms"}},
    };
    std::vector<topology::MachineConfig> cfgs;
    for (const auto& [file, sets] : cases)
        cfgs.push_back(scenario::load_scenario(std::string(BLKSIM_SOURCE_DIR) + "/" + file, sets).machine);
    std::vector<SimOutcome> serial, parallel(cfgs.size() * 2);
    for (const auto& c : cfgs)
        serial.push_back(simulate(c));
    parallel_for(parallel.size(), 4, [&](std::size_t i) { parallel[i] = simulate(cfgs[i % cfgs.size()]); });
    for (std::size_t i = 0; i < parallel.size(); ++i) {
        INFO(cases[i % cfgs.size()].first);
        const SimOutcome& s = serial[i % cfgs.size()];
        REQUIRE(s.status == 0);
        REQUIRE(parallel[i].status == 0);
        REQUIRE(parallel[i].metrics.size() == s.metrics.size());
        for (std::size_t k = 0; k < s.metrics.size(); ++k) {
            CHECK(parallel[i].metrics[k].key == s.metrics[k].key);
            CHECK(parallel[i].metrics[k].value == s.metrics[k].value);
        }
    }
}
