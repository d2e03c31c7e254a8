// kernel:bfq: Linux 6.1's own block/bfq-iosched.c, bfq-wf2q.c and bfq-cgroup.c (root group
// only), built with kcompat/ from Debian's linux-source-6.1 (extracted by CMake). bfq needs
// what mq-deadline and kyber do not: a task behind every request (`current`, its io_context
// and io_cq: bfq's per-process queues and their weights), and an hrtimer (the idle slice).
// These tests check that each reaches the kernel's code: per-process queues with idling on a
// disk, weights from the io priority, sysfs attributes by name; and how the kernel's order
// compares to blksim's bfq (docs/kernel-schedulers.md).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

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
    // Measured (seed 1, 4 s): be0 61.5, be4 28.7, be7 6.6 IOPS. With the io priority lost
    // (every task BE 4, equal weights) be0, be4 and be7 would be alike and the checks fail.
    // (Before kcompat's clock read later at each read, be7 got 24.6, as much as be4: every
    // queue's first request wrapped bfq_update_io_intensity's idle time, see the docs.)
    CHECK(be0 > 2 * be7);
    CHECK(be0 > 1.5 * be4);
    CHECK(be4 > 2 * be7);
}

TEST_CASE("kernel:bfq and blksim's bfq give unequal weights the same shares on a disk", "[kernel-sched][kernel-bfq]") {
    // Three random readers at BE levels 0, 4, 7 and a sequential one at 4 (hdd-be-weights,
    // 10 s). Three faults showed here as differences (docs/kernel-schedulers.md): blksim's
    // bfq_bfqq_charge_time (a slot past the budget timeout charged the sectors served),
    // kcompat's clock and the place of prepare_request: be7 4.6 / seq4 56.1 IOPS against
    // the kernel's code's 28.2 / 206.3. Since, the two dispatch alike on this disk.
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    // Measured (seed 1), both: low_latency 0: 56.0 / 25.9 / 20.1 / 225.2; low_latency 1:
    // 2.0 / 103.7 / 0.4 / 6.5 (be4, raised, takes the disk).
    for (const int low_latency : {0, 1}) {
        const std::string set = "--set queues.0.iosched.low_latency=" + std::to_string(low_latency);
        const auto ours = run_json(kWeights, "bfq", tree, set);
        const auto kernel = run_json(kWeights, "kernel:bfq", tree, set);
        for (const char* job : {"be0", "be4", "be7", "seq4"}) {
            const double a = iops(ours, job), b = iops(kernel, job);
            INFO("low_latency " << low_latency << ", " << job << ": bfq " << a << ", kernel:bfq " << b << " IOPS");
            if (b >= 10)
                CHECK(a == Approx(b).epsilon(0.15));
            else
                CHECK(a < 10);
        }
    }
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

TEST_CASE("kernel:bfq: --explain shows bfq_log_bfqq's notes, the same text every run, and changes nothing else",
          "[kernel-sched][kernel-bfq][explain]") {
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    TempDir tmp("kbfq-explain");
    const std::string run = "run " + source_path(kTwoReaders) + " -q --output-format json --kernel-tree " + tree +
                            " --set queues.0.scheduler=kernel:bfq --set global.runtime=200ms --set global.ramp_time=0";
    const CliResult off = run_blksim(run + " --trace " + tmp / "off.trace", false);
    const CliResult on = run_blksim(run + " --explain --trace " + tmp / "on.trace", false);
    const CliResult again = run_blksim(run + " --explain --trace " + tmp / "again.trace", false);
    REQUIRE(off.status == 0);
    REQUIRE(on.status == 0);
    REQUIRE(again.status == 0);
    CHECK(on.out == off.out);
    const SplitTrace plain = split_trace(slurp(tmp / "off.trace"), "kernel:bfq: ");
    const SplitTrace told = split_trace(slurp(tmp / "on.trace"), "kernel:bfq: ");
    CHECK(plain.notes.empty());
    CHECK(!plain.dispatched.empty());
    CHECK((told.dispatched == plain.dispatched));  // (a bool: the lists are long to print)
    // The kernel prints %p hashed; here the pointer's order of first appearance: the same
    // text every run (an address would differ with ASLR), and no address in it.
    CHECK(slurp(tmp / "on.trace") == slurp(tmp / "again.trace"));
    unsigned expired = 0, in_service = 0, idled = 0, addresses = 0;
    for (const std::string& n : told.notes) {
        expired += n.find(" expire (") != std::string::npos;
        in_service += n.find(" set_in_service_queue, cur-budget = ") != std::string::npos;
        idled += n == "bfq select_queue: no queue returned";  // waiting for the in-service queue
        addresses += n.find("0x") != std::string::npos;
    }
    CHECK(expired >= 1);
    CHECK(in_service >= 2);
    CHECK(idled >= 1);
    CHECK(addresses == 0);
}

namespace {

// The scenario with blksim's bfq and with the kernel's (both given `extra`): their D events.
Traces run_both_bfq(const std::string& scenario, const std::string& tree, const std::string& extra = "") {
    const std::string sc = source_path(scenario) + " -q " + extra;
    return run_pair("run " + sc + " --set queues.0.scheduler=bfq",
                    "run " + sc + " --kernel-tree " + tree + " --set queues.0.scheduler=kernel:bfq", "kbfq-diff");
}

}  // namespace

TEST_CASE("kernel:bfq dispatches as blksim's bfq on a disk", "[kernel-sched][kernel-bfq][differential]") {
    // Request by request, on the rotational scenarios (those where queues merge have their own
    // test case below; docs/kernel-schedulers.md: where the two differ and why).
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    SECTION("weights 80, 40, 10 and a sequential reader, low_latency off") {
        require_same(run_both_bfq(kWeights, tree, "--set global.runtime=4s --set queues.0.iosched.low_latency=0"));
    }
    SECTION("the same with weight raising") {
        require_same(run_both_bfq(kWeights, tree, "--set global.runtime=4s"));
    }
    SECTION("two sequential readers kept apart by the idle slice; with raising; at prio 0 and 7") {
        require_same(run_both_bfq(kTwoReaders, tree));
        require_same(run_both_bfq(kTwoReaders, tree, "--set queues.0.iosched.low_latency=1"));
        require_same(run_both_bfq(kTwoReaders, tree, "--set global.prioclass=2 --set jobs.0.prio=0 --set jobs.1.prio=7"));
    }
    SECTION("random reads and writes; sequential writes that merge") {
        require_same(run_both_bfq("test/fixtures/kernel-sched/hdd-randrw.json", tree));
        require_same(run_both_bfq("test/fixtures/kernel-sched/hdd-seq-merge.json", tree));
    }
    SECTION("the regress suite's disk cases") {
        for (const char* c : {"hdd", "hdd-prio", "hdd-streams", "hba-2hdd", "hdd-fsync"})
            require_same(run_both_bfq(std::string("scenarios/regress/cases/") + c + ".json", tree));
    }
    SECTION("RT, BE and IDLE readers and a writer: the kernel injects while idling for the RT reader") {
        require_same(run_both_bfq("test/fixtures/kernel-sched/hdd-prio.json", tree));
    }
    SECTION("tunables by their sysfs names") {
        const std::string w = "--set global.runtime=4s --set queues.0.iosched.";
        for (const char* t : {"strict_guarantees=1", "slice_idle=0", "timeout_sync=50 --set queues.0.iosched.low_latency=0",
                              "max_budget=4096 --set queues.0.iosched.low_latency=0",
                              "back_seek_penalty=1 --set queues.0.iosched.low_latency=0"})
            require_same(run_both_bfq(kWeights, tree, w + t));
    }
}

TEST_CASE("kernel:bfq dispatches as blksim's bfq where cooperating processes' queues merge",
          "[kernel-sched][kernel-bfq][differential]") {
    // Queue merging (bfq_setup_cooperator(), models/sched/bfq_coop.cc): early merges of
    // queues doing close I/O on a disk, stable merges of queues created together (at once on
    // a queueing SSD or null_blk, after 600 ms on a disk).
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    SECTION("a random reader beside a sequential writer on a disk: the writer's queue joins the reader's") {
        require_same(run_both_bfq("scenarios/regress/cases/hdd-read-write.json", tree));
    }
    SECTION("RT and IDLE writers that fsync beside RT and BE readers: the RT queues merge at 0.65 s") {
        // Injection meets merging here: waker detection counts the process's requests
        // (bic->requests), not the shared queue's, and a shared queue is no waker.
        require_same(run_both_bfq("scenarios/regress/cases/hdd-prio-fsync.json", tree));
    }
    SECTION("a reader and a writer on a SATA SSD and on an NVMe drive; ten jobs on null_blk") {
        require_same(run_both_bfq("test/fixtures/kernel-sched/sata-ssd-mixed.json", tree));
        require_same(run_both_bfq("test/fixtures/kernel-sched/nvme-mixed.json", tree));
        require_same(run_both_bfq("test/fixtures/kernel-sched/nullblk-10jobs.json", tree));
    }
    SECTION("strict guarantees on a 4-queue NVMe drive: each wake-up runs one hctx, the calling CPU's") {
        // bfq_schedule_dispatch → blk_mq_run_hw_queues under QUEUE_FLAG_SQ_SCHED runs the
        // completing CPU's hctx (the idle timer's: the arming CPU's). Running every hctx
        // (kcompat before) or hctx 0 (blksim's bfq before) parted the two ~91 ns apart from
        // the third dispatch: four bfqd->lock sections per wake-up against one.
        require_same(run_both_bfq("scenarios/regress/cases/nvme-mixed.json", tree,
                                  "--set queues.0.iosched.strict_guarantees=1"));
    }
}

TEST_CASE("kernel:bfq, kernel:mq-deadline and kernel:kyber take fio's trims", "[kernel-sched][kernel-bfq]") {
    // A discard reaches the kernel file as REQ_OP_DISCARD (async, a write for op_is_write()).
    // A run whose first request is a discard used to crash in bfq_limit_depth(): blksim
    // merges no discards, so no ->bio_merge had set `current` before the tag allocation.
    const std::string tree = kernel_tree("bfq-iosched.c");
    if (tree.empty())
        return;
    for (const char* sched : {"kernel:bfq", "kernel:mq-deadline", "kernel:kyber"}) {
        INFO(sched);
        const CliResult r = run_blksim(std::string("fio -q --output-format json --device nvme --scheduler ") + sched +
                                           " --kernel-tree " + tree +
                                           " -- --name=t --ioengine=psync --rw=randtrim --bs=64k --size=4m",
                                       false);
        INFO(r.out);
        REQUIRE(r.status == 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        CHECK(j.at("jobs").at(0).at("trim").at("total_ios") == 64);
    }
}
