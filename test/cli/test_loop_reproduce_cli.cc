// The loop-device calibration set (scenarios/validation/loop-6.18/published.json, real Linux
// 6.18 runs) and its rerun on another host (scenarios/validation/loop-6.18-rerun/, nothing
// fitted to it) through `blksim reproduce --data ... --reduced --check`: every row expected to
// pass is within its tolerance by the numbers, the known misses are reported as such.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

struct LoopSet {
    std::string data;
    int min_passes;
};

}  // namespace

TEST_CASE("reproduce --data loop-6.18 and its rerun: the passing rows within tolerance", "[cli][reproduce][loop]") {
    // L1: the none IOPS and clat means of the three workloads, the 128 KiB ratios,
    // mq-deadline's QD1 p99 ratio. L2: 24 of the 36 scheduler ratios and two none p99s, which
    // the rerun host's measured vCPU stalls give (64 KiB QD4, 128 KiB QD8; the other none rows
    // are another host's and known misses).
    const LoopSet set = GENERATE(LoopSet{"scenarios/validation/loop-6.18/published.json", 16},
                                 LoopSet{"scenarios/validation/loop-6.18-rerun/published.json", 26});
    const std::string LOOP_DATA = clitest::source_path(set.data);
    const auto r = clitest::run_blksim("reproduce --data " + LOOP_DATA + " --reduced --check --jobs 2 --format json", false);
    INFO(r.out);
    REQUIRE(r.status == 0);
    const json out = json::parse(r.out, nullptr, false);
    REQUIRE(!out.is_discarded());
    std::ifstream in(LOOP_DATA);
    const json data = json::parse(in);
    REQUIRE(out.at("rows").size() == data.at("rows").size());
    int passes = 0;
    for (std::size_t i = 0; i < out.at("rows").size(); ++i) {
        const json& row = out.at("rows").at(i);
        const json& want = data.at("rows").at(i);
        INFO(row.dump());
        if (want.at("expect") != "pass") {
            CHECK(row.at("status").get<std::string>().rfind("known miss", 0) == 0);
            continue;
        }
        ++passes;
        const json& pub = want.at("published");
        const double published = pub.is_number() ? pub.get<double>()
                                                 : pub.at("ratio").at(0).get<double>() / pub.at("ratio").at(1).get<double>();
        const double tol = want.at("tolerance").at("relative_pct").get<double>() / 100;
        CHECK(std::abs(row.at("mean").get<double>() - published) <= tol * published);
    }
    CHECK(passes >= set.min_passes);
    CHECK(out.at("summary").at("fail") == 0);
}
