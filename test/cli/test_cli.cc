// The blksim command line end to end: exit statuses, one-line errors, determinism.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace {

using Result = clitest::CliResult;
Result blksim(const std::string& args, bool with_stderr = true) { return clitest::run_blksim(args, with_stderr); }
std::string src(const std::string& rel) { return clitest::source_path(rel); }

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/blksim-test-" + name;
    std::ofstream(path) << text;
    return path;
}

}  // namespace

TEST_CASE("blksim run prints fio's report and exits 0", "[cli]") {
    auto r = blksim("run -q " + src("scenarios/examples/nullblk-psync-qd1.json") + " --set jobs.0.runtime=20ms");
    CHECK(r.status == 0);
    CHECK(r.out.find("qd1: (groupid=0, jobs=1): err= 0") != std::string::npos);
    CHECK(r.out.find("Run status group 0 (all jobs):") != std::string::npos);
    CHECK(r.out.find("Disk stats (read/write):") != std::string::npos);
}

TEST_CASE("same scenario and seed give byte-identical output; another seed does not", "[cli][determinism]") {
    // randrw: the seed decides each I/O's direction, so another seed changes the report (on
    // null_blk offsets alone would not: it ignores them).
    const std::string scen = src("scenarios/examples/nullblk-libaio-qd32.json") +
                             " --set jobs.0.runtime=20ms --set jobs.0.rw=randrw";
    auto a = blksim("run -q " + scen, false);
    auto b = blksim("run -q " + scen, false);
    auto j1 = blksim("run -q --output-format json " + scen, false);
    auto j2 = blksim("run -q --output-format json " + scen, false);
    auto c = blksim("run -q --seed 7 " + scen, false);
    REQUIRE(a.status == 0);
    CHECK(a.out == b.out);
    CHECK(j1.out == j2.out);
    CHECK(a.out != c.out);
}

TEST_CASE("bad input exits 2 with one message naming file and JSON path", "[cli]") {
    SECTION("missing file") {
        auto r = blksim("run /nonexistent/scenario.json");
        CHECK(r.status == 2);
        CHECK(r.out.find("/nonexistent/scenario.json") != std::string::npos);
    }
    SECTION("unknown key") {
        const auto p = write_temp("unknown-key.json", R"({"jobs":[{"name":"a","rw":"read"}],
            "devices":[{"name":"nullb0","model":"null_blk"}], "bogus": 1})");
        auto r = blksim("run " + p);
        CHECK(r.status == 2);
        CHECK(r.out.find(p) != std::string::npos);
        CHECK(r.out.find("bogus") != std::string::npos);
    }
    SECTION("bad value through --set") {
        auto r = blksim("run " + src("scenarios/examples/nullblk-psync-qd1.json") + " --set jobs.0.bs=4q");
        CHECK(r.status == 2);
        CHECK(r.out.find("/jobs/0/bs") != std::string::npos);
    }
    SECTION("unknown CLI option") {
        auto r = blksim("run --frobnicate x.json");
        CHECK(r.status == 2);
    }
    SECTION("unknown list kind") {
        auto r = blksim("list gizmos");
        CHECK(r.status == 2);
        CHECK(r.out.find("devices, engines, schedulers") != std::string::npos);
    }
}

TEST_CASE("blksim validate and list", "[cli]") {
    auto v = blksim("validate " + src("scenarios/bench/nullblk-32x32.json"));
    CHECK(v.status == 0);
    CHECK(v.out.find("32 thread(s)") != std::string::npos);
    auto l = blksim("list");
    CHECK(l.status == 0);
    CHECK(l.out.find("null_blk") != std::string::npos);
    CHECK(l.out.find("io_uring") != std::string::npos);
    CHECK(l.out.find("none") != std::string::npos);
}

TEST_CASE("every shipped scenario validates", "[cli][scenarios]") {
    // Every scenario file under scenarios/ except the schema, the profiles, reproduce's data
    // and regress's suite and baseline.
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(src("scenarios"))) {
        const auto p = e.path();
        const auto dir = p.parent_path().filename().string();
        if (p.extension() != ".json" || p.filename() == "schema.json" || dir == "cpu" || dir == "devices" ||
            p.filename() == "published.json" || (dir == "regress" && p.parent_path().parent_path().filename() == "scenarios"))
            continue;
        INFO(p.string());
        CHECK(blksim("validate " + p.string()).status == 0);
        ++n;
    }
    CHECK(n >= 3);
}

TEST_CASE("blksim run --trace writes blkparse lines, Q G P U D C per psync request", "[cli][trace]") {
    const std::string trace = "/tmp/blksim-test-trace.txt";
    auto r = blksim("run -q " + src("scenarios/examples/nullblk-psync-qd1.json") +
                    " --set jobs.0.runtime=100us --trace " + trace, false);
    REQUIRE(r.status == 0);
    std::ifstream in(trace);
    std::string line, actions;
    int lines = 0;
    while (std::getline(in, line)) {
        ++lines;
        // "252,0    0        1     0.000000302  1000  Q   R 172000440 + 8 [fio]"
        CHECK(line.rfind("252,0 ", 0) == 0);
        actions += line.substr(line.find("1000  ") + 6, 1);
    }
    REQUIRE(lines >= 12);
    // Each pread: Q, G, P (plug), U (unplug, 1 request), D, C — no I on the direct-issue path.
    CHECK(actions.substr(0, 12) == "QGPUDCQGPUDC");
    CHECK(blksim("run --trace /nonexistent-dir/x.txt " + src("scenarios/examples/nullblk-psync-qd1.json")).status == 2);
}

TEST_CASE("validate --graph prints the topology; a cycle in it is refused with exit 2", "[cli][topology]") {
    const std::string base = R"({
  "host": { "cost_profile": "desktop-8t" },
  "controllers": [ { "name": "hba0", "kind": "hba", "can_queue": 64 },
                   { "name": "exp0", "kind": "expander", "parent": "PARENT" } ],
  "devices": [ { "name": "sda", "model": "null_blk", "controller": "exp0" },
               { "name": "sdb", "model": "null_blk", "controller": "hba0" } ],
  "jobs": [ { "name": "j", "device": "sda" } ]
})";
    std::string ok = base;
    ok.replace(ok.find("PARENT"), 6, "hba0");
    auto g = blksim("validate --graph " + write_temp("topo-ok.json", ok));
    CHECK(g.status == 0);
    CHECK_THAT(g.out, Catch::StartsWith("digraph G {") && Catch::Contains("hba0 host tags") &&
                          Catch::Contains("exp0 (expander)"));

    std::string cyc = base;
    cyc.replace(cyc.find("PARENT"), 6, "exp0");
    const std::string path = write_temp("topo-cycle.json", cyc);
    auto r = blksim("run " + path);
    CHECK(r.status == 2);
    CHECK(r.out == "blksim: " + path + ": /controllers/1/parent: controllers form a cycle: exp0 -> exp0; a chain "
                   "of expanders must end at an hba\n");
}
