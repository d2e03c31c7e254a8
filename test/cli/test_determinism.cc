// Determinism: every scenario shipped under scenarios/ run twice, shortened, gives the same
// report byte for byte (fio's normal and JSON output plus blksim's own section).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

using namespace blksim;
namespace fs = std::filesystem;

namespace {

// Scenario files: everything under scenarios/ but the schema, the profiles (cpu/,
// devices/), which are not runnable on their own, reproduce's published figures and regress's
// suite and baseline (its cases are scenarios).
std::vector<fs::path> shipped_scenarios() {
    std::vector<fs::path> out;
    const fs::path root = fs::path(BLKSIM_SOURCE_DIR) / "scenarios";
    for (const auto& e : fs::recursive_directory_iterator(root)) {
        const fs::path rel = fs::relative(e.path(), root);
        const std::string top = rel.begin()->string();
        if (e.is_regular_file() && e.path().extension() == ".json" && top != "cpu" && top != "devices" &&
            rel != "schema.json" && rel.filename() != "published.json" && rel != "regress/suite.json" &&
            rel != "regress/baseline.json")
            out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string run_once(const topology::MachineConfig& cfg, bool group) {
    topology::Machine m(cfg);
    const result::RunResult r = m.run();
    return report::format_normal(r, group) + report::format_json(r, group);
}

}  // namespace

TEST_CASE("every shipped scenario gives byte-identical reports when run twice", "[cli][determinism]") {
    const auto files = shipped_scenarios();
    REQUIRE(files.size() >= 10);
    for (const auto& f : files) {
        INFO(f.string());
        scenario::Scenario s = scenario::load_scenario(f.string());
        // Shortened: at most 20 ms of simulated time and 2000 I/Os per job, no ramp.
        for (auto& j : s.machine.jobs) {
            j.ramp_time = sim::Duration::ns(0);
            if (j.runtime.count() == 0 || j.runtime > sim::Duration::ns(20'000'000))
                j.runtime = sim::Duration::ns(20'000'000);
            if (j.number_ios == 0 || j.number_ios > 2000)
                j.number_ios = 2000;
        }
        const std::string a = run_once(s.machine, s.output.group_reporting);
        const std::string b = run_once(s.machine, s.output.group_reporting);
        CHECK(a.size() > 1000);
        CHECK(a == b);
    }
}
