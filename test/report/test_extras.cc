// blksim's own report section (format_blksim_extras) and its "blksim" JSON object. The
// expected numbers are worked out by hand from fio's histogram rules: a value v >= 128 ns
// lands in a bucket of width 2^(msb(v) - 6) and a percentile prints the bucket's midpoint,
// e.g. 10000 ns -> [9984, 10112) -> 10048; below 128 ns every value is its own bucket. The
// stage table then keeps each percentile within the stage's exact min and max.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "test/report/report_fixture.h"

using namespace blksim;
using namespace blksim::report;
using namespace blksim::sim::literals;
using nlohmann::ordered_json;

namespace {

void add_n(StageStat& s, int n, int64_t ns) {
    for (int i = 0; i < n; ++i)
        s.add(ns);
}

// One disk with hand-picked stage latencies, and two CPUs, over 2 s.
//   Q2G: 8 x 100 ns, 2 x 120 ns        mean 104 ns; p50 100; p90..p99.9 120 (exact buckets)
//   G2I: nothing (the row prints zeros)
//   I2D: 1 x 5 us                      p = 5000 (bucket [4992, 5056): 5024 > max)
//   D2C: 800 x 10 us, 150 x 50 us, 45 x 200 us, 5 x 1 ms
//        mean 29.5 us; cumulative 800/950/995/1000 -> p50 10048, p90 49920, p99 199680,
//        p99.9 1000000 (the 1 ms bucket [999424, 1007616): 1003520 > max), max exactly 1000 us
//   Q2C: 1 x 2 ms                      p = 2000000 (bucket [1998848, 2015232): 2007040 > max)
RunResult extras_run() {
    QueueReport q;
    q.name = "nullb0";
    q.scheduler = "mq-deadline";
    q.nr_hw_queues = 2;
    q.tag_depth = 64;
    q.tags_in_use_mean = 12.25;
    q.tag_sleeps = 3;
    q.has_elevator = true;
    q.sched_tag_sleeps = 5;
    q.driver_tag_waits = 6;
    q.direct_issues = 7;
    q.inserts = 993;
    q.resource_requeues = 4;
    q.requeues = 2;
    add_n(q.q2g, 8, 100);
    add_n(q.q2g, 2, 120);
    add_n(q.i2d, 1, 5000);
    add_n(q.d2c, 800, 10000);
    add_n(q.d2c, 150, 50000);
    add_n(q.d2c, 45, 200000);
    add_n(q.d2c, 5, 1000000);
    add_n(q.q2c, 1, 2000000);

    RunResult r;
    DiskUtil du;
    du.name = "nullb0";
    r.disks.push_back(du);
    r.queues.push_back(std::move(q));
    r.cpus.push_back({0, 1500_ms, 250_ms, 200_ms});
    r.cpus.push_back({1, 1_ms, 0_ns, 0_ns});
    r.sim_time = 2_s;
    return r;
}

}  // namespace

TEST_CASE("blksim extras: queue summary, btt stage table, CPUs", "[extras]") {
    const std::string expected =
        "\n"
        "blksim (what fio cannot show):\n"
        "  nullb0: scheduler=mq-deadline, nr_hw_queues=2, tag_depth=64, tags_in_use_mean=12.25\n"
        "    tag_sleeps=3, sched_tag_sleeps=5, driver_tag_waits=6, direct_issues=7, inserts=993, resource_requeues=4, requeues=2\n"
        "    stage (usec)         N        mean         p50         p90         p99       p99.9         max\n"
        "    Q2G                 10       0.104       0.100       0.120       0.120       0.120       0.120\n"
        "    G2I                  0       0.000       0.000       0.000       0.000       0.000       0.000\n"
        "    I2D                  1       5.000       5.000       5.000       5.000       5.000       5.000\n"
        "    D2C               1000      29.500      10.048      49.920     199.680    1000.000    1000.000\n"
        "    Q2C                  1    2000.000    2000.000    2000.000    2000.000    2000.000    2000.000\n"
        "  cpus (% of 2.000000 s simulated):\n"
        "    cpu   0: busy= 75.00%, irq= 12.50%, spin= 10.00%\n"
        "    cpu   1: busy=  0.05%, irq=  0.00%, spin=  0.00%\n";
    CHECK(format_blksim_extras(extras_run()) == expected);
}

TEST_CASE("blksim extras: nothing measured still prints the heading only", "[extras]") {
    RunResult r;
    CHECK(format_blksim_extras(r) == "\nblksim (what fio cannot show):\n");
    // A zero-length run must not divide by zero.
    r.cpus.push_back({3, 1_ms, 1_ms, 0_ns});
    CHECK(format_blksim_extras(r) ==
          "\nblksim (what fio cannot show):\n"
          "  cpus (% of 0.000000 s simulated):\n"
          "    cpu   3: busy=  0.00%, irq=  0.00%, spin=  0.00%\n");
}

TEST_CASE("blksim object in the JSON output", "[extras]") {
    const std::string text = format_json(extras_run(), false);
    ordered_json j;
    REQUIRE_NOTHROW(j = ordered_json::parse(text));

    // After fio's own keys, so that fio's order is untouched.
    const std::vector<std::string> top = testing::keys_of(j);
    REQUIRE(top.size() >= 2);
    CHECK(top[top.size() - 2] == "disk_util");
    CHECK(top.back() == "blksim");

    const ordered_json& b = j["blksim"];
    CHECK(testing::keys_of(b) == std::vector<std::string>{"queues", "cpus"});
    REQUIRE(b["queues"].size() == 1);
    const ordered_json& q = b["queues"][0];
    CHECK(testing::keys_of(q) == std::vector<std::string>{
                                "name", "scheduler", "nr_hw_queues", "tag_depth",
                                "tags_in_use_mean", "tag_sleeps", "sched_tag_sleeps", "driver_tag_waits", "direct_issues", "inserts",
                                "resource_requeues", "requeues", "budget", "budget_exhausted", "locks", "stages_ns"});
    CHECK(q["budget"] == 0);  // null_blk on the host: no dispatch budget
    CHECK(q["name"] == "nullb0");
    CHECK(q["scheduler"] == "mq-deadline");
    CHECK(q["nr_hw_queues"] == 2);
    CHECK(q["tag_depth"] == 64);
    CHECK(q["tags_in_use_mean"] == 12.25);
    CHECK(q["tag_sleeps"] == 3);
    CHECK(q["sched_tag_sleeps"] == 5);
    CHECK(q["driver_tag_waits"] == 6);
    CHECK(q["direct_issues"] == 7);
    CHECK(q["inserts"] == 993);
    CHECK(q["resource_requeues"] == 4);
    CHECK(q["requeues"] == 2);

    const ordered_json& st = q["stages_ns"];
    CHECK(testing::keys_of(st) == std::vector<std::string>{"q2g", "g2i", "i2d", "d2c", "q2c"});
    const ordered_json& d2c = st["d2c"];
    CHECK(testing::keys_of(d2c) == std::vector<std::string>{"N", "mean", "min", "max", "percentile"});
    CHECK(d2c["N"] == 1000);
    CHECK(d2c["mean"].get<double>() == Approx(29500.0));
    CHECK(d2c["min"] == 10000);
    CHECK(d2c["max"] == 1000000);
    CHECK(testing::keys_of(d2c["percentile"]) ==
          std::vector<std::string>{"50.000000", "90.000000", "99.000000", "99.900000"});
    CHECK(d2c["percentile"]["50.000000"] == 10048);
    CHECK(d2c["percentile"]["90.000000"] == 49920);
    CHECK(d2c["percentile"]["99.000000"] == 199680);
    CHECK(d2c["percentile"]["99.900000"] == 1000000);
    CHECK(st["q2g"]["mean"].get<double>() == Approx(104.0));
    CHECK(st["q2g"]["min"] == 100);
    CHECK(st["q2g"]["percentile"]["90.000000"] == 120);
    CHECK(st["g2i"]["N"] == 0);
    CHECK(st["g2i"]["percentile"]["50.000000"] == 0);
    CHECK(st["q2c"]["percentile"]["99.900000"] == 2000000);

    REQUIRE(b["cpus"].size() == 2);
    const ordered_json& c0 = b["cpus"][0];
    CHECK(testing::keys_of(c0) ==
          std::vector<std::string>{"id", "busy_ns", "irq_ns", "busy_pct", "irq_pct", "spin_ns", "spin_pct"});
    CHECK(c0["id"] == 0);
    CHECK(c0["busy_ns"] == 1500000000);
    CHECK(c0["irq_ns"] == 250000000);
    CHECK(c0["busy_pct"] == 75.0);
    CHECK(c0["irq_pct"] == 12.5);
    CHECK(c0["spin_ns"] == 200000000);
    CHECK(c0["spin_pct"] == 10.0);
    CHECK(b["cpus"][1]["busy_pct"].get<double>() == Approx(0.05));

    // fio's printing for the new object too: doubles as "%f", 2-space indents.
    CHECK(text.find("\n  \"blksim\" : {\n    \"queues\" : [\n      {\n        \"name\" : \"nullb0\",\n") !=
          std::string::npos);
    CHECK(text.find("\"tags_in_use_mean\" : 12.250000,\n") != std::string::npos);
    CHECK(text.ends_with("        \"spin_pct\" : 0.000000\n      }\n    ]\n  }\n}\n"));
}

TEST_CASE("JSON without queues or CPUs has no blksim object", "[extras]") {
    RunResult r;
    r.sim_time = 1_s;
    const ordered_json j = ordered_json::parse(format_json(r, false));
    CHECK_FALSE(j.contains("blksim"));
}

TEST_CASE("a device's negative figure stays negative in JSON (bfq's hw_tag -1: not yet detected)", "[extras]") {
    RunResult r = extras_run();
    DeviceReport d;
    d.name = "sda";
    d.model = "bfq";
    d.add("hw_tag", -1);
    d.add("idle_slices", 158);
    r.devices.push_back(d);
    const ordered_json j = ordered_json::parse(format_json(r, false));
    const ordered_json& dev = j["blksim"]["devices"][0];
    CHECK(dev["hw_tag"].get<int64_t>() == -1);
    CHECK(dev["idle_slices"].get<uint64_t>() == 158);
}
