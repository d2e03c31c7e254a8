// The command line as the tools around blksim have it: --version, --set taking one value,
// --set making a scenario's queues, "did you mean" for a misspelt key, run --scheduler, a
// fio job file given to run, list --format json, import-disksim's default output.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"

using clitest::run_blksim;
using clitest::shell;
using clitest::slurp;
using clitest::source_path;
using json = nlohmann::json;

namespace {

// One null_blk device, no queues array, one short psync job.
const std::string NULLB = source_path("scenarios/examples/nullblk-psync-qd1.json");
const std::string FIO_JOB = "--name=r --rw=randread --bs=4k --runtime=5ms --time_based";

}  // namespace

TEST_CASE("blksim --version", "[cli]") {
    const auto r = run_blksim("--version");
    CHECK(r.status == 0);
    CHECK(r.out.starts_with("blksim "));
    CHECK(r.out.find('.') != std::string::npos);
}

TEST_CASE("--set takes one value: the fio arguments after it are fio's", "[cli]") {
    // Before, --set took every word up to the next option, "--" and fio's arguments included.
    const auto r = run_blksim("fio --device nvme -q --output-format json --set jobs.0.iodepth=3 -- " + FIO_JOB, false);
    REQUIRE(r.status == 0);
    CHECK(json::parse(r.out).at("jobs")[0].at("job options").at("iodepth") == "3");
    const auto two = run_blksim("run " + NULLB + " --set jobs.0.iodepth=2 jobs.0.bs=8k");
    CHECK(two.status == 2);
}

TEST_CASE("--set queues.N... on a scenario without queues makes one entry per device", "[cli][scenario]") {
    REQUIRE(slurp(NULLB).find("\"queues\"") == std::string::npos);
    const auto set = run_blksim("run " + NULLB + " -q --set jobs.0.runtime=5ms --set queues.0.scheduler=kyber "
                                "--set queues.0.iosched.read_lat_nsec=1000000 --output-format json", false);
    REQUIRE(set.status == 0);
    // run --scheduler is the same machine: the same report, byte for byte.
    const auto sched = run_blksim("run " + NULLB + " -q --set jobs.0.runtime=5ms --scheduler kyber "
                                  "--set queues.0.iosched.read_lat_nsec=1000000 --output-format json", false);
    REQUIRE(sched.status == 0);
    CHECK(sched.out == set.out);
    const auto none = run_blksim("run " + NULLB + " -q --set jobs.0.runtime=5ms --output-format json", false);
    REQUIRE(none.status == 0);
    CHECK(none.out != set.out);
    // The queue made is that device's: a tunable of another scheduler is refused there.
    const auto bad = run_blksim("run " + NULLB + " --set queues.0.iosched.read_lat_nsec=1");
    CHECK(bad.status == 2);
    CHECK(bad.out.find("/queues/0/iosched") != std::string::npos);
}

TEST_CASE("a misspelt --set key gets the nearest key", "[cli][scenario]") {
    const auto r = run_blksim("run " + NULLB + " --set jobs.0.iodeph=4");
    CHECK(r.status == 2);
    CHECK(r.out.find("--set jobs.0.iodeph=4") != std::string::npos);
    CHECK(r.out.find("did you mean iodepth?") != std::string::npos);
    const auto far = run_blksim("run " + NULLB + " --set jobs.0.zzzzzzzz=4");
    CHECK(far.status == 2);
    CHECK(far.out.find("did you mean") == std::string::npos);
}

TEST_CASE("blksim run on a fio job file says to use blksim fio", "[cli]") {
    const clitest::TempDir t("runfio");
    { std::ofstream(t / "job.fio") << "[r]\nrw=randread\n"; }
    { std::ofstream(t / "job.ini") << "; a job\n[global]\nbs=4k\n"; }
    for (const char* f : {"job.fio", "job.ini"}) {
        const auto r = run_blksim("run " + (t / f));
        INFO(r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find("blksim fio --device DEVICE -- " + (t / f)) != std::string::npos);
    }
}

TEST_CASE("blksim list: CPU profiles and shipped scenarios, and --format json", "[cli]") {
    const auto text = run_blksim("list", false);
    REQUIRE(text.status == 0);
    CHECK(text.out.find("cpu profiles") != std::string::npos);
    CHECK(text.out.find("desktop-8t") != std::string::npos);
    CHECK(text.out.find("  teaching/:") != std::string::npos);
    CHECK(text.out.find("lock-collapse") != std::string::npos);
    const auto j = run_blksim("list --format json", false);
    REQUIRE(j.status == 0);
    const json all = json::parse(j.out);
    for (const char* k : {"devices", "engines", "schedulers", "cpu_profiles", "scenarios"})
        CHECK(all.contains(k));
    bool bfq = false;
    for (const json& s : all.at("schedulers"))
        bfq = bfq || s.at("name") == "bfq";
    CHECK(bfq);
    CHECK(all.at("scenarios").at("examples").size() >= 5);
    const auto one = run_blksim("list cpu --format json", false);
    REQUIRE(one.status == 0);
    CHECK(json::parse(one.out).size() == 1);
    // The text of a section is the same with the others or alone.
    const auto sched = run_blksim("list schedulers", false);
    CHECK(text.out.find(sched.out) != std::string::npos);
}

TEST_CASE("sweep-merge names itself once in a message", "[cli][compare]") {
    const auto r = run_blksim("sweep-merge /nonexistent.json");
    CHECK(r.status == 2);
    CHECK(r.out.find("sweep-merge:") == r.out.rfind("sweep-merge:"));
}

TEST_CASE("import-disksim without --out writes NAME.json in the current directory", "[cli][disksim]") {
    const clitest::TempDir t("import");
    const auto r = shell("cd " + t.dir.string() + " && " + BLKSIM_BINARY + " import-disksim " +
                         source_path("test/fixtures/disksim/atlas10k.diskspecs") + " 2>&1");
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK(std::filesystem::is_regular_file(t / "atlas10k.json"));
    CHECK(json::parse(slurp(t / "atlas10k.json")).at("name") == "atlas10k");
}
