// kernel:bfq: Linux 6.1's own block/bfq-iosched.c, bfq-wf2q.c and bfq-cgroup.c (root group
// only), built with kcompat/ from Debian's linux-source-6.1 (extracted by CMake). bfq needs
// what mq-deadline and kyber do not: a task behind every request (`current`, its io_context
// and io_cq: bfq's per-process queues and their weights), and an hrtimer (the idle slice).
// These tests check that each reaches the kernel's code: per-process queues with idling on a
// disk, weights from the io priority, sysfs attributes by name; and how the kernel's order
// compares to blksim's bfq (docs/kernel-schedulers.md).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>

#include "test/cli/cli_fixture.h"
#include "test/sched/kernel_sched_fixture.h"

using namespace clitest;
using namespace kernelsched;

namespace {

// fio's JSON report of a run of `scenario` (relative to the source tree) with `sched`.
nlohmann::json run_json(const std::string& scenario, const std::string& sched, const std::string& tree,
                        const std::string& extra = "") {
    const CliResult r = run_blksim("run -q --output-format json " + source_path(scenario) + " --kernel-tree " + tree +
                                       " --set queues.0.scheduler=" + sched + " " + extra,
                                   false);
    INFO(r.out);
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE(!j.is_discarded());
    return j;
}

double iops(const nlohmann::json& report, const std::string& job, const char* dir = "read") {
    for (const auto& j : report.at("jobs"))
        if (j.at("jobname") == job)
            return j.at(dir).at("iops").get<double>();
    FAIL("no job " << job);
    return 0;
}

constexpr const char* kTwoReaders = "scenarios/examples/hdd-bfq-two-readers.json";
constexpr const char* kWeights = "scenarios/regress/cases/hdd-be-weights.json";

}  // namespace

TEST_CASE("kernel:bfq: per-process queues and the idle slice timer keep two sequential readers apart on a disk",
          "[kernel-sched][kernel-bfq]") {
    // Two psync readers 300 GB apart: without idling the head seeks between them on every
    // request (about 120 IOPS each); bfq's idle slice (the hrtimer) waits for the served
    // process's next request, served from the drive's read-ahead. All of it needs one
    // bfq_queue per process (one io_cq per job thread) and the timer. The drive keeps one
    // stream's read-ahead only (stream_read_ahead_kb 0: no cache segment per stream), as
    // test_bfq_machine.cc does for blksim's bfq: with a segment per stream both readers stream
    // without idling too (3895 and 3916 IOPS at slice_idle=0, as much as with idling).
    const std::string one_stream = "--set devices.0.params.stream_read_ahead_kb=0";
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    const auto idle = run_json(kTwoReaders, "kernel:bfq", tree, one_stream);
    const double a = iops(idle, "reader-a"), b = iops(idle, "reader-b");
    INFO("slice_idle=8 ms: " << a << " and " << b << " IOPS");
    CHECK(a > 1000);
    CHECK(b > 1000);
    // The attribute, stored by the file's own bfq_slice_idle_store(): no idling, seeks.
    const auto none = run_json(kTwoReaders, "kernel:bfq", tree, one_stream + " --set queues.0.iosched.slice_idle=0");
    INFO("slice_idle=0: " << iops(none, "reader-a") << " and " << iops(none, "reader-b") << " IOPS");
    CHECK(iops(none, "reader-a") < a / 4);
    CHECK(iops(none, "reader-b") < b / 4);
}

TEST_CASE("kernel:bfq: a task's io priority is its queue's weight", "[kernel-sched][kernel-bfq]") {
    // Best-effort levels 0, 4 and 7 are weights 80, 50 and 10 (bfq_ioprio_to_weight): the
    // io_context's ioprio, read by bfq_check_ioprio_change() / bfq_set_next_ioprio_data().
    // low_latency off: weight raising would hide the weights for the first seconds.
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    const auto r = run_json(kWeights, "kernel:bfq", tree, "--set global.runtime=4s --set queues.0.iosched.low_latency=0");
    const double be0 = iops(r, "be0"), be4 = iops(r, "be4"), be7 = iops(r, "be7");
    INFO("be0 " << be0 << ", be4 " << be4 << ", be7 " << be7 << " IOPS");
    // Measured (seed 1, 4 s): be0 56.0, be4 27.6, be7 24.6 IOPS. With the io priority lost
    // (every task BE 4, equal weights) be0, be4 and be7 would be alike and both checks fail.
    // be4 against be7 is not checked: the kernel gives them about the same (unlike blksim's
    // bfq, 47 against 1), the difference docs/kernel-schedulers.md leaves unexplained.
    CHECK(be0 > 2 * be7);
    CHECK(be0 > 1.5 * be4);
}

TEST_CASE("kernel:bfq runs a reader beside a writer on a SATA SSD", "[kernel-sched][kernel-bfq]") {
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    const auto r = run_json("test/fixtures/kernel-sched/sata-ssd-mixed.json", "kernel:bfq", tree);
    INFO("r " << iops(r, "r") << " IOPS, w " << iops(r, "w", "write") << " IOPS");
    CHECK(iops(r, "r") > 1000);
    CHECK(iops(r, "w", "write") > 100);
}
