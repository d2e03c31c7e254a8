// `blksim regress`: the verdict on synthetic results (gates, exact mode, stale baselines), and
// the command end to end on a small suite of its own: a baseline saved and met again, a slower
// device under the same cell names caught as a regression, another binary as the baseline,
// bad suites refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"
#include "tools/experiment/regress.h"

using namespace blksim;
using namespace blksim::experiment;
using clitest::run_blksim;
using clitest::source_path;
using json = nlohmann::json;

namespace {

// One cell of `runs` seeds whose iops is base * (1 + k * 0.001) in seed k, times `scale`.
CellResult cell(const std::string& name, double iops, double scale, unsigned runs = 5) {
    CellResult c{name, {}, {}};
    for (unsigned k = 0; k < runs; ++k) {
        const double v = iops * (1.0 + 0.001 * k) * scale;
        c.digests.push_back(scale == 1.0 ? 100 + k : 200 + k);
        c.metrics.push_back({{"j/read.iops", v}, {"j/read.clat_p99_ns", 1e6 / v}});
    }
    return c;
}

RegressResults results(std::vector<CellResult> cells) {
    RegressResults r{1, {1, 2, 3, 4, 5}, std::move(cells)};
    return r;
}

RegressSuite suite_with_gates() {
    RegressSuite s;
    s.gates_pct = {{"iops", 1.0}, {"clat_p99_ns", 5.0}};
    return s;
}

}  // namespace

TEST_CASE("regress: identical results pass with no change; a slower build beyond the gate is a regression",
          "[regress]") {
    const RegressSuite s = suite_with_gates();
    const RegressVerdict same = judge_regress(s, results({cell("c/none/default", 1000, 1.0)}),
                                              results({cell("c/none/default", 1000, 1.0)}));
    CHECK(same.differing_cells.empty());
    CHECK(same.changes.empty());
    CHECK(same.regressions == 0);
    CHECK_THAT(format_regress_normal(same, false, "base"), Catch::Contains("verdict: pass"));

    // 3 % fewer IOPS: significant, past the 1 % gate; clat p99 3 % higher: within its 5 %.
    const RegressVerdict slow = judge_regress(s, results({cell("c/none/default", 1000, 1.0)}),
                                              results({cell("c/none/default", 1000, 0.97)}));
    REQUIRE(slow.changes.size() == 2);
    CHECK(slow.regressions == 1);
    CHECK(slow.changes[0].row.key == "j/read.iops");
    CHECK(slow.changes[0].regression);
    CHECK_FALSE(slow.changes[1].regression);
    CHECK(slow.differing_cells == std::vector<std::string>{"c/none/default"});
    CHECK_THAT(slow.first_difference[0], Catch::Contains("j/read.iops"));
    CHECK_THAT(format_regress_normal(slow, false, "base"), Catch::Contains("REGRESSION") && Catch::Contains("verdict: regression"));

    // Faster is a change, not a regression; exact mode still reports the outputs differ.
    const RegressVerdict fast = judge_regress(s, results({cell("c/none/default", 1000, 1.0)}),
                                              results({cell("c/none/default", 1000, 1.05)}));
    CHECK(fast.regressions == 0);
    CHECK(fast.changes.size() == 2);
    CHECK_THAT(format_regress_normal(fast, true, "base"), Catch::Contains("verdict: outputs changed"));
}

TEST_CASE("regress: a figure of the policy's state that moves either way past its gate is a regression",
          "[regress]") {
    RegressSuite s;
    s.gates_pct = {{"depth_min", 10.0}};
    // kyber's write depth ends 20 % deeper in one build and 20 % shallower in the other:
    // neither direction is better, both are a regression; within the gate, neither is.
    const auto depth = [](double scale) {
        CellResult c{"c/kyber/default", {}, {}};
        for (unsigned k = 0; k < 5; ++k) {
            c.digests.push_back(scale == 1.0 ? 100 + k : 200 + k);
            c.metrics.push_back({{"nullb0/kyber_write.depth_min", (10.0 + k) * scale}});
        }
        return c;
    };
    for (const double scale : {1.2, 0.8}) {
        const RegressVerdict v = judge_regress(s, results({depth(1.0)}), results({depth(scale)}));
        REQUIRE(v.changes.size() == 1);
        CHECK(v.changes[0].regression);
        CHECK(v.regressions == 1);
    }
    CHECK(judge_regress(s, results({depth(1.0)}), results({depth(1.05)})).regressions == 0);
}

TEST_CASE("regress: kyber's domain depths and token use are figures of a run", "[regress]") {
    // The suite's token-pressure case, one seed: the reads' hctxs hold every read token, and
    // the timer throttles the write domain from 128 tokens to a few.
    const RegressSuite s = load_regress_suite(source_path("scenarios/regress/suite.json"), {"kyber"});
    const auto cell = std::find_if(s.cells.begin(), s.cells.end(),
                                   [](const RegressCell& c) { return c.name == "nullb-4q-kyber-tokens/kyber/default"; });
    REQUIRE(cell != s.cells.end());
    topology::MachineConfig cfg = cell->machine;
    cfg.seed = 1;
    const SimOutcome o = simulate_with(cfg, [](const result::RunResult& r, SimOutcome& out) {
        out.metrics = regress_metrics(r);
    });
    REQUIRE(o.status == 0);
    const auto value = [&](const std::string& key) {
        for (const Metric& m : o.metrics)
            if (m.key == key)
                return m.value;
        FAIL("no figure " << key);
        return 0.0;
    };
    CHECK(value("nullb0/kyber_read.tokens_max") == 256);
    CHECK(value("nullb0/kyber_read.throttled") > 0);
    CHECK(value("nullb0/kyber_write.depth_min") < 16);
    CHECK(value("nullb0/kyber_write.depth_end") >= value("nullb0/kyber_write.depth_min"));
    CHECK(value("nullb0/kyber_write.resizes") >= 3);
}

TEST_CASE("regress: version 4's batched cases hand the queue plugs of 16 requests", "[regress][cli]") {
    // What the cases are for: io_submit of 16 I/Os under one plug, so that the order and the
    // way blk_mq_flush_plug_list() hands a plug's requests on can matter. A model that
    // flushed each request alone (or a suite that lost iodepth_batch_submit) fails here.
    const RegressSuite s = load_regress_suite(source_path("scenarios/regress/suite.json"), {"none"});
    static const std::regex flush(R"(plug flush: (\d+) requests)");
    for (const char* name : {"hdd-randwrite-batch16", "hdd-seqwrite-batch16-nomerges", "raid5-randwrite-batch16"}) {
        INFO(name);
        const auto cell = std::find_if(s.cells.begin(), s.cells.end(),
                                       [&](const RegressCell& c) { return c.name == std::string(name) + "/none/default"; });
        REQUIRE(cell != s.cells.end());
        clitest::TempDir dir("regress-batch");
        std::string args = "run " + cell->scenario + " -q --explain --trace " + (dir / "trace.txt");
        for (const std::string& set : cell->sets)
            args += " --set '" + set + "'";
        const auto r = run_blksim(args + " --set global.runtime=300ms >/dev/null");
        INFO(r.out);
        REQUIRE(r.status == 0);
        const std::string trace = clitest::slurp(dir / "trace.txt");
        unsigned most = 0, batches = 0;
        for (auto it = std::sregex_iterator(trace.begin(), trace.end(), flush); it != std::sregex_iterator(); ++it) {
            const unsigned n = static_cast<unsigned>(std::stoul((*it)[1]));
            most = std::max(most, n);
            batches += n > 1;
        }
        CHECK(most == 16);
        CHECK(batches >= 3);
    }
}

TEST_CASE("regress: version 4's priority cases mix I/O priorities with flushes and with requeues", "[regress]") {
    // Per-priority accounting goes wrong only when requests of several priorities are in
    // flight while others bypass the scheduler (flushes) or come back to it (requeues).
    const RegressSuite s = load_regress_suite(source_path("scenarios/regress/suite.json"), {"mq-deadline"});
    struct Seen {
        uint64_t flushes = 0, requeues = 0;
        std::set<int> classes;
    };
    const auto run = [&](const std::string& name) {
        const auto cell = std::find_if(s.cells.begin(), s.cells.end(),
                                       [&](const RegressCell& c) { return c.name == name + "/mq-deadline/default"; });
        REQUIRE(cell != s.cells.end());
        topology::MachineConfig cfg = cell->machine;
        cfg.seed = 1;
        Seen seen;
        const SimOutcome o = simulate_with(cfg, [&](const result::RunResult& r, SimOutcome&) {
            for (const result::QueueReport& q : r.queues) {
                seen.flushes += q.flushes;
                seen.requeues += q.requeues + q.resource_requeues;
            }
            for (const Metric& m : regress_metrics(r))
                if (const auto at = m.key.find("prio"); at != std::string::npos && m.value > 0)
                    seen.classes.insert(m.key[at + 4] - '0');
        });
        REQUIRE(o.status == 0);
        return seen;
    };
    const Seen fsync = run("hdd-prio-fsync");
    CHECK(fsync.flushes > 0);
    CHECK(fsync.classes == std::set<int>{1, 2, 3});
    const Seen requeue = run("nullb-prio-requeue");
    CHECK(requeue.requeues > 0);
    CHECK(requeue.classes == std::set<int>{1, 2, 3});
}

TEST_CASE("regress: a baseline from other seeds or another suite version is refused", "[regress]") {
    RegressResults other = results({cell("c/none/default", 1000, 1.0)});
    other.seeds = {7, 8, 9, 10, 11};
    CHECK_THROWS_AS(judge_regress(suite_with_gates(), other, results({cell("c/none/default", 1000, 1.0)})), SuiteError);
}

TEST_CASE("regress: results survive their JSON file exactly", "[regress]") {
    const RegressResults r = results({cell("a/kyber/default", 1234.5678901234567, 1.0), cell("b/bfq/x", 3, 0.97)});
    const RegressResults back = results_from_json(results_to_json(r), "r.json");
    REQUIRE(back.cells.size() == 2);
    CHECK(back.seeds == r.seeds);
    for (std::size_t c = 0; c < 2; ++c) {
        CHECK(back.cells[c].cell == r.cells[c].cell);
        CHECK(back.cells[c].digests == r.cells[c].digests);
        for (std::size_t i = 0; i < r.seeds.size(); ++i)
            for (std::size_t m = 0; m < r.cells[c].metrics[i].size(); ++m)
                CHECK(back.cells[c].metrics[i][m].value == r.cells[c].metrics[i][m].value);
    }
    CHECK_THROWS_WITH(results_from_json(R"({"blksim_regress_results": 1, "suite_version": 1, "seeds": [1, 2],
        "cells": [{"cell": "x", "digests": ["zz"], "metrics": {}}]})", "r.json"),
                      Catch::Contains("r.json: $.cells[0].digests"));
}

namespace {

// A suite of one HDD case under none and mq-deadline (two variants), in `dir`.
void write_suite(const clitest::TempDir& dir, const std::string& hdd_params) {
    json sc = json::parse(std::ifstream(source_path("scenarios/regress/cases/hdd.json")));
    sc["devices"][0]["params"] = json::parse(hdd_params);
    sc["global"]["runtime"] = "2s";
    std::ofstream(dir.dir / "hdd.json") << sc.dump(2);
    const json suite = {
        {"blksim_regress_suite", 1}, {"runs", 4}, {"seed", 1},
        {"gates_pct", {{"iops", 1}}},
        {"cases", {{{"name", "hdd-qd64"}, {"scenario", "hdd.json"}, {"set", {"global.iodepth=64"}}}}},
        {"schedulers",
         {{"none", {{{"name", "default"}}}},
          {"mq-deadline", {{{"name", "default"}}, {{"name", "fifo_batch=1"}, {"set", {"queues.Q.iosched.fifo_batch=1"}}}}}}}};
    std::ofstream(dir.dir / "suite.json") << suite.dump(2);
}

}  // namespace

TEST_CASE("regress: a saved baseline is met again; a slower disk under the same cells is a regression",
          "[regress][cli]") {
    clitest::TempDir dir("regress");
    const std::string suite = (dir.dir / "suite.json").string();
    write_suite(dir, R"({"rpm": 7200})");
    const auto save = run_blksim("regress -j 2 --suite " + suite + " --save " + (dir.dir / "base.json").string());
    REQUIRE(save.status == 0);
    CHECK_THAT(save.out, Catch::Contains("3 cells x 4 seeds saved"));

    const auto again = run_blksim("regress -j 2 --exact --suite " + suite + " --baseline " + (dir.dir / "base.json").string());
    INFO(again.out);
    CHECK(again.status == 0);
    CHECK_THAT(again.out, Catch::Contains("identical in every cell") && Catch::Contains("verdict: pass"));

    // The same suite against itself from another binary (here: this one) says the same.
    const auto binary = run_blksim("regress -j 2 --suite " + suite + " --baseline-binary " + std::string(BLKSIM_BINARY));
    INFO(binary.out);
    CHECK(binary.status == 0);
    CHECK_THAT(binary.out, Catch::Contains("identical in every cell"));

    write_suite(dir, R"({"rpm": 5400})");
    const auto slower = run_blksim("regress -j 2 --suite " + suite + " --baseline " + (dir.dir / "base.json").string());
    INFO(slower.out);
    CHECK(slower.status == 3);
    CHECK_THAT(slower.out, Catch::Contains("hdd-qd64/mq-deadline/fifo_batch=1") && Catch::Contains("REGRESSION") &&
                               Catch::Contains("verdict: regression"));
}

TEST_CASE("regress: bad suites and options get one message and exit 2", "[regress][cli]") {
    clitest::TempDir dir("regress-bad");
    write_suite(dir, R"({"rpm": 7200})");
    const std::string suite = (dir.dir / "suite.json").string();
    const auto unknown = run_blksim("regress --suite " + suite + " --scheduler cfq --save /dev/null");
    CHECK(unknown.status == 2);
    CHECK_THAT(unknown.out, Catch::Contains("--scheduler cfq: the suite") && Catch::Contains("has no such scheduler"));

    json s = json::parse(std::ifstream(suite));
    s["cases"][0]["sett"] = json::array();
    std::ofstream(suite) << s.dump();
    const auto key = run_blksim("regress --suite " + suite + " --save /dev/null");
    CHECK(key.status == 2);
    CHECK_THAT(key.out, Catch::Contains(suite + ": $.cases[0].sett: unknown key"));

    const auto missing = run_blksim("regress --suite " + (dir.dir / "none.json").string());
    CHECK(missing.status == 2);
    CHECK_THAT(missing.out, Catch::Contains("none.json: cannot read the regression suite"));
}

TEST_CASE("regress: the shipped suite loads, crossing every case with every scheduler it lists", "[regress]") {
    const RegressSuite s = load_regress_suite(source_path("scenarios/regress/suite.json"));
    CHECK(s.runs >= 2);
    std::set<std::string> schedulers;
    for (const RegressCell& c : s.cells)
        schedulers.insert(c.scheduler);
    CHECK(schedulers == std::set<std::string>{"none", "mq-deadline", "kyber", "bfq", "noop"});
    for (const RegressCell& c : s.cells)
        for (const auto& q : c.machine.queues)
            CHECK(q.scheduler == c.scheduler);
}

TEST_CASE("regress: a patched kernel scheduler file against the mainline tree, in one command", "[regress][cli]") {
    const std::string tree = BLKSIM_KERNEL_61_TREE;
    if (tree.empty() || !std::filesystem::exists(tree + "/block/mq-deadline.c")) {
        WARN("linux-source-6.1 is not installed: regress with kernel:mq-deadline not tested");
        return;
    }
    clitest::TempDir dir("regress-kernel");
    write_suite(dir, R"({"rpm": 7200})");
    const std::string suite = (dir.dir / "suite.json").string();
    const std::string opts = "regress -j 2 --suite " + suite + " --scheduler kernel:mq-deadline ";
    // The mainline source against itself: no change.
    const auto same = run_blksim(opts + "--kernel-tree " + tree + " --baseline-kernel-tree " + tree);
    INFO(same.out);
    CHECK(same.status == 0);
    CHECK_THAT(same.out, Catch::Contains("2 cells") && Catch::Contains("identical in every cell"));

    // A patch that makes every batch one request, with the deadlines looked at after each:
    // the reports differ, and the regress verdict says where.
    std::ifstream in(tree + "/block/mq-deadline.c");
    std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "static const int fifo_batch = 16;";
    REQUIRE(src.find(from) != std::string::npos);
    src.replace(src.find(from), from.size(), "static const int fifo_batch = 1;");
    std::ofstream(dir.dir / "mq-deadline.c") << src;
    const auto patched = run_blksim(opts + "--kernel-tree " + (dir.dir / "mq-deadline.c").string() +
                                    " --baseline-kernel-tree " + tree + " --exact");
    INFO(patched.out);
    CHECK(patched.status == 3);
    CHECK_THAT(patched.out, Catch::Contains("hdd-qd64/kernel:mq-deadline/default:"));
    CHECK_THAT(patched.out, !Catch::Contains("hdd-qd64/kernel:mq-deadline/fifo_batch=1:"));  // set either way
}
