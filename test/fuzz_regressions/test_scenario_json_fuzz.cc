// Inputs found by the libFuzzer target fuzz/scenario_json.cc (docs/fuzzing.md), reduced to
// what triggers them: the readers must refuse them with their clear error (exit status 2).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

std::string scenario_error(const std::string& text) {
    try {
        scenario::load_scenario_text(text, "fuzz.json");
    } catch (const scenario::ScenarioError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// nlohmann's parser reports a number beyond a double's range with out_of_range (406), not
// parse_error: it escaped the loader and terminated `blksim validate` / `run` (found with a
// 1e3084615 in an 11 KB scenario).
TEST_CASE("fuzz regression: a JSON number beyond a double's range is a scenario error", "[fuzz][scenario]") {
    const std::string err = scenario_error("{\n  \"seed\": 1,\n  \"host\": {\"cpus\": 1e400}\n}\n");
    CHECK_THAT(err, Catch::Matchers::StartsWith("fuzz.json: invalid JSON at line 3, column "));
    CHECK_THAT(err, Catch::Matchers::Contains("number overflow parsing '1e400'"));
    CHECK_THAT(scenario_error("[-1e999]"), Catch::Matchers::Contains("line 1, column 7: number overflow parsing '-1e999'"));
    // The largest double still reads (the schema then says what it thinks of it).
    CHECK_THAT(scenario_error("{\"seed\": 1.7e308}"), !Catch::Matchers::Contains("invalid JSON"));
}

// The same parser reads the HDD profiles `blksim validate-disk --device` takes.
TEST_CASE("fuzz regression: an HDD profile with a number beyond a double's range is a DiskSim error", "[fuzz][disksim]") {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("blksim-fuzzreg-" + std::to_string(getpid()) + ".json")).string();
    std::ofstream(path) << "{\"name\": \"x\", \"params\": {\"sectors\": 1e400}}\n";
    std::string err;
    try {
        disksim::load_hdd_profile(path, ".");
    } catch (const disksim::DisksimError& e) {
        err = e.what();
    }
    std::remove(path.c_str());
    CHECK_THAT(err, Catch::Matchers::StartsWith(path + ": not valid JSON"));
    CHECK_THAT(err, Catch::Matchers::Contains("number overflow parsing '1e400'"));
}
