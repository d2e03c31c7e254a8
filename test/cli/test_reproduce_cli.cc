// `blksim reproduce` end to end: the reduced table (short runtimes, 2 seeds) has one row per
// entry of scenarios/seeds/published.json, in its order and with its published figures; the
// E2/E3/E4 rows that blksim reproduces are within tolerance, E1's known misses are reported
// as such (never as passes); --check turns a FAIL into exit status 1; bad input exits 2.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const std::string DATA = clitest::source_path("scenarios/seeds/published.json");

}  // namespace

TEST_CASE("reproduce --reduced: one row per published figure, E2/E3/E4 within tolerance", "[cli][reproduce]") {
    const auto r = clitest::run_blksim("reproduce --reduced --check --jobs 2 --format json", false);
    INFO(r.out);
    REQUIRE(r.status == 0);  // --check: no row expected to pass is outside its tolerance
    const json out = json::parse(r.out, nullptr, false);
    REQUIRE(!out.is_discarded());
    const json all = json::parse(slurp(DATA));
    // --reduced leaves the hypotheses out (never a failure, nothing for --check to judge).
    json data = all;
    data["rows"] = json::array();
    for (const json& r : all.at("rows"))
        if (r.at("expect") != "hypothesis")
            data["rows"].push_back(r);
    REQUIRE(data.at("rows").size() < all.at("rows").size());
    REQUIRE(out.at("rows").size() == data.at("rows").size());
    CHECK(out.at("reduced") == true);
    CHECK(out.at("seeds").size() == data.at("reduced").at("seeds"));

    int passes = 0, misses = 0;
    for (std::size_t i = 0; i < out.at("rows").size(); ++i) {
        const json& row = out.at("rows").at(i);
        const json& want = data.at("rows").at(i);
        INFO(row.dump());
        CHECK(row.at("experiment") == want.at("experiment"));
        CHECK(row.at("cell") == want.at("cell"));
        CHECK(row.at("metric") == want.at("metric"));
        CHECK(row.at("values").size() == out.at("seeds").size());
        // The published figure as the data file gives it (a ratio of two figures for ratio rows).
        const json& pub = want.at("published");
        const double published = pub.is_number() ? pub.get<double>()
                                                 : pub.at("ratio").at(0).get<double>() / pub.at("ratio").at(1).get<double>();
        CHECK(row.at("published").get<double>() == Approx(published));
        CHECK(row.at("expect") == want.at("expect"));
        if (want.at("expect") == "pass") {
            CHECK(row.at("status") == "ok");
            CHECK(row.at("within") == true);
            ++passes;
        } else {
            // Reported, never counted as a pass.
            CHECK(row.at("status").get<std::string>().rfind("known miss", 0) == 0);
            CHECK(row.contains("why"));
            ++misses;
        }
        const std::string exp = row.at("experiment");
        if (exp == "E2" || exp == "E3" || exp == "E4") {
            CHECK(want.at("expect") == "pass");
            // Within tolerance by the numbers, not only by the verdict.
            const double mean = row.at("mean").get<double>();
            if (want.at("tolerance").contains("relative_pct"))
                CHECK(std::abs(mean - published) <= want.at("tolerance").at("relative_pct").get<double>() / 100 * published);
            else
                CHECK(std::abs(mean - published) <= want.at("tolerance").at("absolute").get<double>());
        }
    }
    // E2 4, E3 6, E4 4, E1's 6 rw cells and batch1-head's read direction
    CHECK(passes >= 21);
    // E1's reads and writes, batch1's and the rw directions, batch1-head's write direction
    // (not significant in the reduced run)
    CHECK(misses >= 13);
    CHECK(out.at("summary").at("fail") == 0);
}

TEST_CASE("reproduce: the text table and the seeds and experiments options", "[cli][reproduce]") {
    const auto r = clitest::run_blksim("reproduce --reduced --only E3,E4 --seeds 3", false);
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("3 seeds (1..3), reduced runtimes") != std::string::npos);
    for (const char* col : {"exp", "cell", "published", "simulated (mean ± 95 % CI)", "error", "tolerance", "result"})
        CHECK(r.out.find(col) != std::string::npos);
    // Each row's line starts with its experiment.
    auto line_of = [&](const std::string& cell) {
        const auto at = r.out.find(cell);
        REQUIRE(at != std::string::npos);
        const auto start = r.out.rfind('\n', at) + 1;
        return r.out.substr(start, r.out.find('\n', at) - start);
    };
    CHECK(line_of("NVMe jobs10-4k: mq-deadline / none").rfind("E3 ", 0) == 0);
    CHECK(line_of("clat avg, prio 1/0 (10 %)").rfind("E4 ", 0) == 0);
    CHECK(line_of("clat avg, prio 1/0 (10 %)").find("24.64") != std::string::npos);   // published
    CHECK(line_of("clat avg, prio 1/0 (10 %)").find("±15 %") != std::string::npos);
    CHECK(r.out.find("\nE1 ") == std::string::npos);   // --only
    CHECK(r.out.find("10 within tolerance, 0 outside tolerance that should pass (FAIL), 0 known misses") !=
          std::string::npos);
}

namespace {

// The shipped data file with its rows replaced by `rows`.
json with_rows(json rows) {
    json data = json::parse(slurp(DATA));
    data["rows"] = std::move(rows);
    return data;
}

// E4's IOPS row as shipped, its scenario given by an absolute path.
json e4_iops_row() {
    const json data = json::parse(slurp(DATA));  // kept: the loop must not iterate a temporary
    for (json row : data.at("rows"))
        if (row.at("experiment") == "E4" && row.at("cell") == "IOPS") {
            row["scenario"] = clitest::source_path("scenarios/seeds/") + row.at("scenario").get<std::string>();
            return row;
        }
    FAIL("published.json has no E4 IOPS row");
    return {};
}

}  // namespace

TEST_CASE("reproduce --check exits 1 when a row expected to pass is outside tolerance", "[cli][reproduce]") {
    // The E4 IOPS row with a published figure blksim is far from (152 -> 1520 IOPS).
    clitest::TempDir tmp("reproduce-check");
    json row = e4_iops_row();
    row["published"] = 1520;
    json data = with_rows(json::array({row}));
    data["reduced"]["sets"].erase("E1");
    data["reduced"]["sets"].erase("E2");
    data["reduced"]["sets"].erase("E3");
    std::ofstream(tmp / "p.json") << data.dump();
    const auto without = clitest::run_blksim("reproduce --reduced --data " + tmp / "p.json", false);
    CHECK(without.status == 0);  // reported only
    CHECK(without.out.find("FAIL") != std::string::npos);
    const auto with = clitest::run_blksim("reproduce --reduced --check --data " + tmp / "p.json", false);
    CHECK(with.status == 1);
}

TEST_CASE("reproduce --check: hypotheses are run and shown, never a failure, and --reduced leaves them out",
          "[cli][reproduce]") {
    // E4's IOPS row twice as hypotheses: one far from a published figure, one held back.
    clitest::TempDir tmp("reproduce-hypothesis");
    json row = e4_iops_row();
    row["expect"] = "hypothesis";
    row["why"] = "as shipped";
    row["sets"] = json::array({"jobs.0.runtime=20s"});
    row["published"] = 1520;
    json held_back = row;
    held_back.erase("published");
    held_back.erase("tolerance");
    json data = with_rows(json::array({row, held_back}));
    data.erase("reduced");
    std::ofstream(tmp / "h.json") << data.dump();
    const auto r = clitest::run_blksim("reproduce --check --seeds 2 --format json --data " + tmp / "h.json", false);
    INFO(r.out);
    REQUIRE(r.status == 0);
    const json out = json::parse(r.out);
    REQUIRE(out.at("rows").size() == 2);
    CHECK(out.at("rows")[0].at("status") == "hypothesis, outside");
    CHECK(out.at("rows")[0].at("expect") == "hypothesis");
    CHECK(out.at("rows")[1].at("status") == "predicted");
    CHECK(out.at("rows")[1].at("published").is_null());
    CHECK(out.at("rows")[1].at("mean").get<double>() == Approx(out.at("rows")[0].at("mean").get<double>()));
    CHECK(out.at("summary").at("fail") == 0);
    CHECK(out.at("summary").at("hypothesis_outside") == 1);
    CHECK(out.at("summary").at("predicted") == 1);
    const auto reduced = clitest::run_blksim("reproduce --reduced --check --data " + tmp / "h.json", false);
    CHECK(reduced.out.find("0 rows") != std::string::npos);
}

TEST_CASE("reproduce: bad data files and options exit 2 naming the file and the JSON path", "[cli][reproduce]") {
    clitest::TempDir tmp("reproduce-bad");
    const std::string scen = clitest::source_path("scenarios/seeds/e4-ncq-prio.json");
    auto with_row = [&](const std::string& name, const std::string& row) {
        std::ofstream(tmp / name) << R"({"blksim_published": 1, "source": "x", "rows": [)" + row + "]}";
        return clitest::run_blksim("reproduce --data " + tmp / name);
    };
    const std::string good = R"("experiment": "E4", "cell": "c", "section": "s", "scenario": ")" + scen +
                             R"(", "published": 152, "expect": "pass")";
    struct Bad {
        std::string row, needle;
    };
    const Bad cases[] = {
        {"{" + good + R"(, "metric": "read.iops", "unit": "IOPS", "tolerance": {"relative_pct": 15}, "colour": 1})",
         "$.rows[0].colour: unknown key"},
        {"{" + good + R"(, "metric": "read.iopz", "unit": "IOPS", "tolerance": {"relative_pct": 15}})",
         "$.rows[0].metric: 'read.iopz' is not a metric"},
        {"{" + good + R"(, "metric": "read.iops", "unit": "MiB/s", "tolerance": {"relative_pct": 15}})",
         "$.rows[0].unit: 'MiB/s' is not a unit of read.iops (allowed: \"IOPS\", \"k IOPS\", \"M IOPS\")"},
        {"{" + good + R"(, "metric": "read.iops", "unit": "IOPS", "tolerance": {"relative_pct": -1}})",
         "$.rows[0].tolerance: "},
        {"{" + good + R"(, "metric": "read.iops", "unit": "IOPS", "tolerance": "direction"})",
         "$.rows[0].tolerance: \"direction\" compares two runs"},
    };
    for (const Bad& b : cases) {
        const auto r = with_row("bad.json", b.row);
        INFO(b.row << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(tmp / "bad.json") != std::string::npos);
        CHECK(r.out.find(b.needle) != std::string::npos);
    }
    // A missing scenario file, a known_miss without why.
    auto r = with_row("bad.json", R"({"experiment": "E4", "cell": "c", "section": "s", "scenario": "nope.json",
        "metric": "read.iops", "unit": "IOPS", "published": 1, "tolerance": {"relative_pct": 15}, "expect": "pass"})");
    CHECK(r.status == 2);
    CHECK(r.out.find("$.rows[0].scenario: 'nope.json': no such scenario file") != std::string::npos);
    r = with_row("bad.json", "{" + good.substr(0, good.size() - std::string(R"(, "expect": "pass")").size()) +
                                 R"(, "metric": "read.iops", "unit": "IOPS", "tolerance": {"relative_pct": 15}, "expect": "known_miss"})");
    CHECK(r.status == 2);
    CHECK(r.out.find("$.rows[0].why: a known_miss row must say why") != std::string::npos);
    // A hypothesis says which one it is; a held-back one has no tolerance.
    const std::string hyp = R"({"experiment": "E4", "cell": "c", "section": "s", "scenario": ")" + scen +
                            R"(", "metric": "read.iops", "unit": "IOPS", "expect": "hypothesis")";
    r = with_row("bad.json", hyp + R"(, "published": 1, "tolerance": {"relative_pct": 15}})");
    CHECK(r.status == 2);
    CHECK(r.out.find("$.rows[0].why: a hypothesis row must say which hypothesis") != std::string::npos);
    r = with_row("bad.json", hyp + R"(, "why": "w", "tolerance": {"relative_pct": 15}})");
    CHECK(r.status == 2);
    CHECK(r.out.find("$.rows[0].tolerance: a row without \"published\" (held back) has no tolerance") !=
          std::string::npos);
    // Options.
    r = clitest::run_blksim("reproduce --seeds 1");
    CHECK(r.status == 2);
    CHECK(r.out.find("--seeds 1: a confidence interval needs at least 2 seeds") != std::string::npos);
    r = clitest::run_blksim("reproduce --only E9");
    CHECK(r.status == 2);
    CHECK(r.out.find("--only E9: ") != std::string::npos);
    CHECK(r.out.find("(it has: E1, E2, E3, E3h, E4)") != std::string::npos);
    r = clitest::run_blksim("reproduce --data " + tmp / "none.json");
    CHECK(r.status == 2);
    CHECK(r.out.find("none.json: cannot open the file") != std::string::npos);
    r = clitest::run_blksim("reproduce --format csv");
    CHECK(r.status == 2);
}
