// kernel:kyber: Linux 6.1's own block/kyber-iosched.c, built with kcompat/ from Debian's
// linux-source-6.1 (extracted by CMake), against blksim's kyber. Same scenario and seed:
// the D events of the two traces must be the same, request by request, or differ where
// docs/kernel-schedulers.md says they do. The scenarios set latency targets that kyber's
// timer misses, so that it resizes the domains, or keep more I/O waiting than tokens.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "test/cli/cli_fixture.h"
#include "test/sched/kernel_sched_fixture.h"

using namespace clitest;
using namespace kernelsched;

namespace {

// The scenario with blksim's kyber and with the kernel's; `extra` options to both.
Traces run_both(const std::string& scenario, const std::string& tree, const std::string& extra = "") {
    const std::string sc = source_path("test/fixtures/kernel-sched/" + scenario) + " -q " + extra;
    return run_pair("run " + sc, "run " + sc + " --kernel-tree " + tree + " --set queues.0.scheduler=kernel:kyber",
                    "kkyber");
}

}  // namespace

TEST_CASE("kernel:kyber dispatches as blksim's kyber", "[kernel-sched][kernel-kyber][differential]") {
    const std::string tree = kernel_tree("kyber-iosched.c");
    if (tree.empty())
        return;
    SECTION("null_blk, two hctxs, reads and writes, the write domain throttled") {
        require_same(run_both("kyber-nullblk-2hctx.json", tree));
    }
    SECTION("NVMe, two hctxs, every token of both domains in use") {
        require_same(run_both("kyber-nvme-tokens.json", tree));
    }
    SECTION("SATA SSD, reads beside merging writes, the write domain throttled") {
        require_same(run_both("kyber-sata-ssd.json", tree));
    }
}

namespace {

// The dispatches of a trace up to (not including) second `t`.
std::vector<std::string> before(const std::vector<std::string>& d, double t) {
    std::vector<std::string> out;
    for (const std::string& line : d) {
        std::istringstream f(line);
        std::string dev, cpu, seq;
        double time = 0;
        if (f >> dev >> cpu >> seq >> time && time < t)
            out.push_back(line);
    }
    return out;
}

}  // namespace

TEST_CASE("kernel:kyber: a domain shrunk below the tokens it holds hands out a freed low token at once",
          "[kernel-sched][kernel-kyber][differential]") {
    // blksim's kyber counts tokens: after the timer shrinks a domain, a get waits until fewer
    // than the new depth are held. The kernel's pool is a bitmap: a get takes any free bit
    // below the new depth, so a low token freed while more than the depth are still held is
    // handed out at once. Here the timer shrinks the write domain from 64 to 32 tokens at
    // 0.2 s with more writes than that in the device: the orders are the same until then
    // and part after (docs/kernel-schedulers.md).
    const std::string tree = kernel_tree("kyber-iosched.c");
    if (tree.empty())
        return;
    const Traces t = run_both("kyber-nvme-2hctx.json", tree);
    const auto a = before(t.blksim, 0.2), b = before(t.kernel, 0.2);
    REQUIRE(a.size() > 1000);
    REQUIRE(a == b);
    REQUIRE(t.blksim != t.kernel);
}

TEST_CASE("kernel:kyber: its sysfs attributes reach the kernel's code", "[kernel-sched][kernel-kyber]") {
    const std::string tree = kernel_tree("kyber-iosched.c");
    if (tree.empty())
        return;
    TempDir tmp("kkyber-attrs");
    const std::string sc = source_path("test/fixtures/kernel-sched/kyber-nvme-2hctx.json") +
                           " -q --set queues.0.scheduler=kernel:kyber --kernel-tree " + tree;
    REQUIRE(run_blksim("run " + sc + " --trace " + tmp / "tight.trace").status == 0);
    // Targets no request misses: the timer never throttles, the order changes.
    REQUIRE(run_blksim("run " + sc + " --trace " + tmp / "loose.trace" +
                       " --set queues.0.iosched.read_lat_nsec=1000000000 --set queues.0.iosched.write_lat_nsec=1000000000")
                .status == 0);
    REQUIRE(dispatches(slurp(tmp / "tight.trace")) != dispatches(slurp(tmp / "loose.trace")));
    const CliResult bad = run_blksim("run " + sc + " --set queues.0.iosched.fifo_batch=1");
    INFO(bad.out);
    CHECK(bad.status == 2);
    CHECK(bad.out.find("unknown kernel:kyber tunable 'fifo_batch'") != std::string::npos);
}

TEST_CASE("kernel:kyber: list, run --set and fio --scheduler", "[kernel-sched][kernel-kyber][cli]") {
    const std::string tree = kernel_tree("kyber-iosched.c");
    if (tree.empty())
        return;
    const CliResult list = run_blksim("list schedulers");
    REQUIRE(list.status == 0);
    const size_t at = list.out.find("kernel:kyber");
    REQUIRE(at != std::string::npos);
    CHECK(list.out.find("read_lat_nsec", at) != std::string::npos);
    CHECK(list.out.find("write_lat_nsec", at) != std::string::npos);

    const CliResult run = run_blksim("run " + source_path("scenarios/examples/nvme-kyber-mixed.json") +
                                     " --set jobs.0.runtime=200ms --set jobs.1.runtime=200ms --set jobs.0.ramp_time=0"
                                     " --set jobs.1.ramp_time=0 --set queues.0.scheduler=kernel:kyber --kernel-tree " +
                                     tree);
    INFO(run.out);
    REQUIRE(run.status == 0);
    CHECK(run.out.find("reader") != std::string::npos);

    const CliResult fio = run_blksim("fio --device nvme --scheduler kernel:kyber --kernel-tree " + tree +
                                     "/block -- --name=r --rw=randread --bs=4k --iodepth=32 --ioengine=libaio"
                                     " --runtime=50ms --time_based");
    INFO(fio.out);
    REQUIRE(fio.status == 0);
    CHECK(fio.out.find("IOPS=") != std::string::npos);
}

TEST_CASE("kernel:kyber: --explain shows the kernel's own tracepoints and changes nothing else",
          "[kernel-sched][kernel-kyber][explain]") {
    const std::string tree = kernel_tree("kyber-iosched.c");
    if (tree.empty())
        return;
    TempDir tmp("kkyber-explain");
    // Reads miss their 2 ms target beside a 128 KiB writer: the timer throttles writes.
    const std::string run = "run " + source_path("scenarios/examples/nvme-kyber-mixed.json") +
                            " -q --output-format json --set queues.0.scheduler=kernel:kyber --kernel-tree " + tree +
                            " --set global.runtime=500ms --set global.ramp_time=0";
    const CliResult off = run_blksim(run + " --trace " + tmp / "off.trace", false);
    const CliResult on = run_blksim(run + " --explain --trace " + tmp / "on.trace", false);
    REQUIRE(off.status == 0);
    REQUIRE(on.status == 0);
    CHECK(on.out == off.out);
    const SplitTrace plain = split_trace(slurp(tmp / "off.trace"), "kernel:kyber: ");
    const SplitTrace told = split_trace(slurp(tmp / "on.trace"), "kernel:kyber: ");
    CHECK(plain.notes.empty());
    // (The messages take sequence numbers of their CPU: the dispatches are compared without.)
    CHECK(told.dispatched.size() == plain.dispatched.size());
    CHECK((told.dispatched == plain.dispatched));  // (a bool: the lists are long to print)
    CHECK(!plain.dispatched.empty());
    // kyber_timer_fn: per window and domain, its total p99 and I/O p90 (trace_kyber_latency),
    // and the writes' depth cut below its 128 tokens (trace_kyber_adjust); dispatches that
    // find no write token (trace_kyber_throttled).
    unsigned read_p99 = 0, write_p99 = 0, write_cuts = 0, throttled = 0;
    for (const std::string& m : told.notes) {
        read_p99 += m.starts_with("kyber_latency: READ total p99 ");
        write_p99 += m.starts_with("kyber_latency: WRITE total p99 ");
        if (m.starts_with("kyber_adjust: WRITE "))
            write_cuts += std::stoul(m.substr(20)) < 128;
        throttled += m == "kyber_throttled: WRITE";
    }
    CHECK(read_p99 >= 3);
    CHECK(write_p99 >= 3);
    CHECK(write_cuts >= 1);
    CHECK(throttled > 0);
}
