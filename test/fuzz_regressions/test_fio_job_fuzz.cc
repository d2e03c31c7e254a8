// Inputs found by the libFuzzer target fuzz/fio_job.cc (docs/fuzzing.md), each reduced to
// what triggers it: the loader must refuse them with its clear error (exit status 2).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>

#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

std::string load_error(const std::string& job_text) {
    const std::string path =
        (std::filesystem::temp_directory_path() / ("blksim-fuzzreg-" + std::to_string(getpid()) + ".fio")).string();
    std::ofstream(path, std::ios::binary) << job_text;
    scenario::FioCommand cmd;
    cmd.device = "nullb";
    cmd.fio_args = {path};
    std::vector<std::string> warnings;
    cmd.policy.warnings = &warnings;
    cmd.policy.getenv = [](const std::string&) { return std::optional<std::string>(); };
    std::string what;
    try {
        scenario::load_fio_command(cmd);
    } catch (const scenario::ScenarioError& e) {
        what = e.what();
    }
    std::remove(path.c_str());
    return what;
}

}  // namespace

// valijson's maxLength counts UTF-8 characters and read past its table on a run of
// continuation bytes (UBSan: index 6 out of bounds in utf8_utils.hpp); job names and values
// from a job file are raw bytes. Now refused before schema validation, naming the line.
TEST_CASE("fuzz regression: a job name that is not UTF-8 is refused, not read past", "[fuzz][fio]") {
    const std::string err = load_error("[backwards-r\x95\x95\x95\x95\x95\x95\x95\x95" "ead]\nbs=4k\nsize=1m\n");
    CHECK_THAT(err, Catch::Matchers::Contains("not valid UTF-8"));
    CHECK_THAT(err, Catch::Matchers::Contains(".fio:1"));
}

TEST_CASE("fuzz regression: a --set string that is not UTF-8 is refused", "[fuzz][scenario]") {
    const std::string text = R"({"host": {"cpus": 1}, "devices": [{"name": "nullb0", "model": "null_blk"}],
        "jobs": [{"name": "a", "rw": "read", "size": "1m"}]})";
    std::string err;
    try {
        scenario::load_scenario_text(text, "x.json", {"jobs.0.name=a\xc3"});
    } catch (const scenario::ScenarioError& e) {
        err = e.what();
    }
    CHECK_THAT(err, Catch::Matchers::Contains("not valid UTF-8"));
}
