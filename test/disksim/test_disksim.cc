// DiskSim drive descriptions, the validation-trace replay and the demerit figure
// (tools/disksim/, docs/disksim.md). Fixtures: test/fixtures/disksim/ (atlas10k's files from
// DiskSim's validation suite and the first 1,000 requests of its trace).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/device/hdd_layout.h"
#include "models/device/hdd_mechanics.h"
#include "test/cli/cli_fixture.h"
#include "tools/disksim/demerit.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/disksim/replay.h"
#include "tools/disksim/validation_trace.h"

using namespace blksim;
using namespace blksim::disksim;
using Catch::Matchers::Contains;

namespace {

std::string fixture(const std::string& name) { return clitest::source_path("test/fixtures/disksim/" + name); }

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const DisksimError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("demerit: identical distributions give 0, a 1 ms shift gives 1 ms", "[disksim]") {
    const std::vector<double> a{0.6, 1.2, 3.5, 7.0, 7.1, 9.9, 12.4, 15.0};
    CHECK(demerit(a, a) == 0.0);
    std::vector<double> shifted = a;
    for (double& x : shifted)
        x += 1.0;
    CHECK(demerit(a, shifted) == Approx(1.0).epsilon(1e-12));
    // Order does not matter: both are sorted into distributions.
    std::vector<double> rev(shifted.rbegin(), shifted.rend());
    CHECK(demerit(rev, a) == Approx(1.0).epsilon(1e-12));
    // Unequal sizes: the same distribution sampled twice as densely is still at distance 0.
    std::vector<double> twice;
    for (const double x : a) {
        twice.push_back(x);
        twice.push_back(x);
    }
    CHECK(demerit(a, twice) == Approx(0.0).margin(1e-12));
    // One value off by 2 of 4: sqrt(2² / 4) = 1.
    CHECK(demerit({1, 2, 3, 4}, {1, 2, 3, 6}) == Approx(1.0));
}

TEST_CASE("summary statistics: mean, stddev and nearest-rank percentiles", "[disksim]") {
    std::vector<double> v;
    for (int i = 1; i <= 100; ++i)
        v.push_back(i);
    const Summary s = summarize(v);
    CHECK(s.mean == Approx(50.5));
    CHECK(s.p50 == 50);
    CHECK(s.p90 == 90);
    CHECK(s.p99 == 99);
    CHECK(s.max == 100);
    CHECK(s.stddev == Approx(29.011).epsilon(1e-4));
}

TEST_CASE("validation trace: records, and a malformed line names file, line and field", "[disksim]") {
    const auto t = parse_validation_trace("R Hit 4583176 4 663.0 45422.0\n\nW Miss 10 8 1072.5 35226\n", "x.trace");
    REQUIRE(t.size() == 2);
    CHECK_FALSE(t[0].write);
    CHECK(t[0].lba == 4583176);
    CHECK(t[0].blocks == 4);
    CHECK(t[0].service_us == 663.0);
    CHECK(t[1].write);
    CHECK(t[1].outcome == Outcome::MISS);
    CHECK(t[1].line == 3);
    CHECK(t[1].idle_us == 35226.0);

    CHECK_THAT(error_of([] { parse_validation_trace("R Hit 1 4 600 100\nX Hit 1 4 600 100\n", "a.trace"); }),
               Contains("a.trace:2: field 1 (direction) 'X': allowed R or W"));
    CHECK_THAT(error_of([] { parse_validation_trace("R Hit 1 4 6o0 100\n", "a.trace"); }),
               Contains("a.trace:1: field 5 (service time) '6o0'"));
    CHECK_THAT(error_of([] { parse_validation_trace("R Maybe 1 4 600 100\n", "a.trace"); }),
               Contains("a.trace:1: field 2 (cache outcome) 'Maybe': allowed Hit, Miss, Doub or Trip"));
    CHECK_THAT(error_of([] { parse_validation_trace("R Hit 1 0 600 100\n", "a.trace"); }),
               Contains("a.trace:1: field 4 (blocks) '0'"));
    CHECK_THAT(error_of([] { parse_validation_trace("R Hit 1 4 600\n", "a.trace"); }),
               Contains("a.trace:1: 5 fields, expected 6"));
    CHECK_THAT(error_of([] { parse_validation_trace("\n", "a.trace"); }), Contains("a.trace: no requests"));
}

TEST_CASE("validate-disk: a malformed trace line is exit status 2 with file and line", "[disksim][cli]") {
    const std::string bad = "/tmp/blksim-disksim-bad.trace";
    {
        std::ofstream out(bad);
        out << "R Hit 4583176 4 663.0 45422.0\nR Hit 4583180 four 607.0 34200.0\n";
    }
    const auto r = clitest::run_blksim("validate-disk " + bad + " --device " + clitest::source_path("scenarios/devices/atlas10k.json"));
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Contains(bad + ":2: field 4 (blocks) 'four'"));
    const auto nodev = clitest::run_blksim("validate-disk " + fixture("atlas10k-1000.trace") + " --device /nonexistent/x.json");
    CHECK(nodev.status == 2);
    CHECK_THAT(nodev.out, Contains("/nonexistent/x.json: cannot open the device profile"));
}

TEST_CASE("DiskSim parameter files: blocks, nested blocks, lists, comments; errors name the line", "[disksim]") {
    const auto blocks = parse_param_text(R"(# a comment
disksim_disk D1 {
  Bulk sector transfer time = 0.099000,
  Model = source d.model,
  Scheduler = disksim_ioqueue {
    Scheduling policy = 1,
  },
  Zones = [ z { A = 1 }, z { A = 2 } ],
  slips = [ 1, 2,
            3 ]
} # end
)",
                                         "d.diskspecs");
    REQUIRE(blocks.size() == 1);
    const ParamBlock& b = blocks[0];
    CHECK(b.type == "disksim_disk");
    CHECK(b.name == "D1");
    CHECK(b.num("Bulk sector transfer time", 0, 1) == 0.099);
    CHECK(b.word("Model") == "source d.model");
    CHECK(b.get("Scheduler").block->num("Scheduling policy", 0, 9) == 1);
    CHECK(b.get("Zones").list.size() == 2);
    CHECK(b.get("slips").list.size() == 3);
    CHECK(b.get("slips").list[2].line == 10);

    CHECK_THAT(error_of([] { parse_param_text("d X {\n  A = 1,\n", "e.diskspecs"); }),
               Contains("e.diskspecs:1: block 'd' is not closed"));
    CHECK_THAT(error_of([] { parse_param_text("d X {\n  A 1,\n}", "e.diskspecs"); }),
               Contains("e.diskspecs:2: expected 'Key = value'"));
    CHECK_THAT(error_of([&] { (void)b.num("Bulk sector transfer time", 1, 2); }),
               Contains("d.diskspecs:3: 'Bulk sector transfer time' = 0.099000: allowed 1 .. 2"));
    CHECK_THAT(error_of([&] { (void)b.get("Nope"); }), Contains("d.diskspecs:2: block 'disksim_disk D1' has no 'Nope' entry"));
}

TEST_CASE("import: atlas10k's .diskspecs, .model and .seek become an HDD profile", "[disksim]") {
    const nlohmann::json prof = import_diskspecs(fixture("atlas10k.diskspecs"));
    const auto& p = prof["params"];
    CHECK(prof["name"] == "atlas10k");
    CHECK(p["rpm"] == 10025);
    CHECK(p["heads"] == 6);
    CHECK(p["sectors"] == 17938986);
    CHECK(p["head_switch"] == "176us");
    CHECK(p["write_settle"] == "487us");
    CHECK(p["seek_track_to_track"] == "1245us");
    const auto& m = p["measured"];
    CHECK(m["sector_xfer_ms"] == 0.099);
    CHECK(m["segment_sectors"] == 374);
    CHECK(m["read_ahead_sectors"] == 354);
    CHECK(m["overheads_ms"]["write_miss"] == nlohmann::json::array({0.34492, 0.49673}));
    const auto& L = m["layout"];
    CHECK(L["serpentine"] == true);  // LBN-to-PBN mapping scheme 1
    CHECK(L["sparing"] == "zone_end");
    REQUIRE(L["zones"].size() == 24);
    CHECK(L["zones"][0]["cyls"] == nlohmann::json::array({0, 432}));
    CHECK(L["zones"][0]["spt"] == 334);
    CHECK(L["zones"][0]["track_skew"] == 63.0);
    CHECK(L["zones"][0]["cyl_skew"] == 113.0);
    CHECK(L["zones"][0]["spares"] == 89);
    CHECK(L["zones"][0]["slips"] == nlohmann::json::array({55017, 358148, 394564, 420533, 483742}));
    REQUIRE(L["seek_table_ms"].size() == 138);
    CHECK(L["seek_table_ms"][0] == nlohmann::json::array({1, 1.245}));
    CHECK(L["seek_table_ms"][137] == nlohmann::json::array({10021, 10.828}));

    // The profile in scenarios/devices is this import (up to date with the importer).
    std::ifstream in(clitest::source_path("scenarios/devices/atlas10k.json"));
    REQUIRE(in);
    const nlohmann::json stored = nlohmann::json::parse(in);
    CHECK(stored["params"] == p);
}

TEST_CASE("import: a broken seek table and a missing model are errors naming file and line", "[disksim]") {
    const std::string dir = "/tmp/blksim-disksim-import";
    (void)std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str());
    (void)std::system(("cp " + fixture("atlas10k.diskspecs") + " " + fixture("atlas10k.model") + " " + dir).c_str());
    {
        std::ofstream out(dir + "/atlas10k.seek");
        out << "Seek distances measured: 3\n1,\t1.2\n2,\t1.1\n2,\t1.3\n";
    }
    CHECK_THAT(error_of([&] { import_diskspecs(dir + "/atlas10k.diskspecs"); }),
               Contains("atlas10k.seek:4: expected 'distance, milliseconds' with distances ascending"));
    (void)std::system(("rm " + dir + "/atlas10k.model").c_str());
    CHECK_THAT(error_of([&] { import_diskspecs(dir + "/atlas10k.diskspecs"); }), Contains("atlas10k.model: cannot open"));
    const auto r = clitest::run_blksim("import-disksim " + dir + "/atlas10k.diskspecs --out -");
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Contains("atlas10k.model: cannot open"));
}

TEST_CASE("measured layout: slips move LBAs on, skews set the angles, the seek table interpolates", "[disksim][hdd]") {
    dev::HddLayoutSpec s;
    s.surfaces = 2;
    s.cylinders = 10;
    s.blocks = 300;
    dev::HddZoneSpec z;
    z.first_cyl = 0;
    z.last_cyl = 9;
    z.spt = 20;
    z.track_skew = 5;
    z.cyl_skew = 8;
    z.spares = 4;
    z.slips = {3};
    s.zones = {z};
    s.seek_table = {{1, 1'000'000}, {3, 2'000'000}, {9, 5'000'000}};
    const int64_t rev = 6'000'000;
    const dev::HddLayout L(s, rev);
    CHECK(L.locate(0).sector == 0);
    CHECK(L.locate(2).sector == 2);
    CHECK(L.locate(3).sector == 4);  // physical sector 3 is slipped
    const auto t1 = L.locate(19);     // physical 20: the second track (head 1), sector 0
    CHECK(t1.head == 1);
    CHECK(t1.sector == 0);
    CHECK(t1.angle_ns == Approx(5 * rev / 20).margin(1));  // one track switch: 5 sectors of skew
    const auto c1 = L.locate(39);     // physical 40: cylinder 1, head 0
    CHECK(c1.cylinder == 1);
    CHECK(c1.head == 0);
    CHECK(c1.angle_ns == Approx((5 + 8) * rev / 20).margin(1));  // one track switch and one cylinder switch
    // One whole track read from its first LBA: 20 sector times (the slip is one of them).
    CHECK(L.media_ns(0, 19, 100'000, 1'000'000) == Approx(rev).margin(2));
    // Crossing onto the next head: the skew's 5 sectors pass during the head switch.
    CHECK(L.media_ns(18, 2, 100'000, 1'000'000) == Approx(7 * rev / 20).margin(2));
    // Seek table: exact points, linear between them, the last point beyond.
    CHECK(L.seek_ns(1) == 1'000'000);
    CHECK(L.seek_ns(2) == 1'500'000);
    CHECK(L.seek_ns(6) == 3'500'000);
    CHECK(L.seek_ns(9) == 5'000'000);
    CHECK(L.seek_ns(50) == 5'000'000);

    // Too small for its block count: refused, naming the count.
    s.blocks = 1000;
    CHECK_THROWS_WITH(dev::HddLayout(s, rev), Contains("fewer than the drive's block count 1000"));
}

TEST_CASE("an imported profile runs in a scenario: blksim fio --device atlas10k", "[disksim][cli]") {
    const auto r = clitest::run_blksim(
        "fio --device atlas10k -q --output-format json -- --name=r --rw=randread --bs=4k --number_ios=200", false);
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    const double iops = j["jobs"][0]["read"]["iops"].get<double>();
    // QD1 4 KiB random reads on a 10,025 rpm drive: seek + half a revolution, ~110-150 IOPS.
    CHECK(iops > 80);
    CHECK(iops < 200);
    // A broken measured value in a profile is refused with the file and its JSON path.
    std::ifstream in(clitest::source_path("scenarios/devices/atlas10k.json"));
    nlohmann::json prof = nlohmann::json::parse(in);
    prof["params"]["measured"]["segment_sectors"] = 0;
    std::ofstream("/tmp/blksim-bad-atlas10k.json") << prof.dump();
    std::ofstream("/tmp/blksim-bad-atlas10k-scenario.json") << R"({ "host": { "cpus": 1, "cost_profile": "desktop-8t" }, "devices": [ { "name": "sda", "model": "hdd",
        "profile": "/tmp/blksim-bad-atlas10k.json" } ],
      "jobs": [ { "name": "r", "device": "sda", "rw": "randread", "bs": "4k", "number_ios": 10 } ] })";
    const auto bad = clitest::run_blksim("run -q /tmp/blksim-bad-atlas10k-scenario.json");
    CHECK(bad.status == 2);
    CHECK_THAT(bad.out, Contains("/tmp/blksim-bad-atlas10k.json: /params/measured/segment_sectors: 0 is out of range"));
}

TEST_CASE("validate-disk: the first 1,000 requests of atlas10k replay within twice DiskSim's error", "[disksim]") {
    const LoadedProfile prof = load_hdd_profile(clitest::source_path("scenarios/devices/atlas10k.json"), "");
    const auto trace = read_validation_trace(fixture("atlas10k-1000.trace"));
    REQUIRE(trace.size() == 1000);
    const ReplayResult r = replay_trace(prof.cfg, trace, "atlas10k-1000.trace");
    REQUIRE(r.simulated_ms.size() == 1000);
    std::vector<double> measured;
    for (const auto& t : trace)
        measured.push_back(t.service_us / 1000.0);
    const double d = demerit(measured, r.simulated_ms);
    // DiskSim's figure on the whole trace is 0.268 ms; an honest bound for blksim is twice it.
    CHECK(d < 2 * 0.268);
    CHECK(d > 0.0);
    // The means agree within 10 %, and writes are all acknowledged from the buffer.
    CHECK(summarize(r.simulated_ms).mean == Approx(summarize(measured).mean).epsilon(0.10));
    CHECK(r.write_through == 0);
    // Deterministic: the same replay gives the same times.
    const ReplayResult again = replay_trace(prof.cfg, trace, "atlas10k-1000.trace");
    CHECK(again.simulated_ms == r.simulated_ms);

    // The CLI: JSON with the documented keys.
    const auto cli = clitest::run_blksim("validate-disk " + fixture("atlas10k-1000.trace") + " --device " +
                                             clitest::source_path("scenarios/devices/atlas10k.json") + " --format json",
                                         false);
    REQUIRE(cli.status == 0);
    const auto j = nlohmann::json::parse(cli.out);
    REQUIRE(j.is_array());
    REQUIRE(j.size() == 1);
    CHECK(j[0]["drive"] == "atlas10k-1000");
    CHECK(j[0]["requests"] == 1000);
    CHECK(j[0]["demerit_ms"].get<double>() == Approx(d));
    CHECK(j[0]["measured_mean_ms"].get<double>() == Approx(summarize(measured).mean));
    CHECK(j[0].contains("simulated_mean_ms"));
}
