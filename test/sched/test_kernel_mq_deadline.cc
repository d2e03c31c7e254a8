// kernel:mq-deadline: Linux 6.1's own block/mq-deadline.c, built with kcompat/ from Debian's
// linux-source-6.1 (extracted by CMake), against blksim's mq-deadline set to 6.1's
// behaviour (next_rq=1). Same scenario and seed: the D events of the two traces must be
// the same, request by request (docs/kernel-schedulers.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"
#include "test/sched/kernel_sched_fixture.h"

using namespace clitest;
using namespace kernelsched;

namespace {

// The scenario with blksim's mq-deadline (6.1 behaviour) and with the kernel's, each with
// `iosched` tunables (a JSON object body) and `extra` options given to both; `own_iosched`
// only to blksim's (its switches for what a patched file does).
Traces run_both(const std::string& scenario, const std::string& tree, const std::string& iosched = "",
                const std::string& extra = "", const std::string& own_iosched = "") {
    const std::string sc = source_path("test/fixtures/kernel-sched/" + scenario);
    const std::string own = "'queues.0.iosched={\"next_rq\": 1" + (iosched.empty() ? "" : ", " + iosched) +
                            (own_iosched.empty() ? "" : ", " + own_iosched) + "}'";
    const std::string kern = "'queues.0.iosched={" + iosched + "}'";
    return run_pair("run " + sc + " -q --set " + own + " " + extra,
                    "run " + sc + " -q --kernel-tree " + tree + " --set queues.0.scheduler=kernel:mq-deadline --set " +
                        kern + " " + extra,
                    "kmqdl");
}

}  // namespace

TEST_CASE("kernel:mq-deadline dispatches as blksim's mq-deadline (6.1 behaviour)", "[kernel-sched][differential]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    SECTION("HDD, random reads and writes") { require_same(run_both("hdd-randrw.json", tree)); }
    SECTION("HDD, sequential streams that merge") { require_same(run_both("hdd-seq-merge.json", tree)); }
    SECTION("SATA SSD, reads beside writes") { require_same(run_both("sata-ssd-mixed.json", tree)); }
    SECTION("NVMe, several hctxs") { require_same(run_both("nvme-mixed.json", tree)); }
    SECTION("null_blk, 10 psync jobs") { require_same(run_both("nullblk-10jobs.json", tree)); }
    SECTION("RT, BE and IDLE levels with prio aging") {
        require_same(run_both("hdd-prio.json", tree, "\"prio_aging_expire\": 100"));
    }
    SECTION("nomerges=1: the one-hit cache only") {
        require_same(run_both("hdd-seq-merge.json", tree, "", "--set queues.0.nomerges=1"));
    }
    SECTION("tunables at their extremes") {
        require_same(run_both("hdd-randrw.json", tree, "\"fifo_batch\": 1, \"writes_starved\": 0"));
        require_same(run_both("hdd-randrw.json", tree, "\"read_expire\": 0, \"write_expire\": 0"));
        require_same(run_both("hdd-seq-merge.json", tree, "\"front_merges\": 0, \"fifo_batch\": 1000"));
        // 64 scheduler tags in 4 sbitmap words of 16: a whole number of tags per word.
        require_same(run_both("hdd-randrw.json", tree, "\"async_depth\": 4"));
    }
}

TEST_CASE("kernel:mq-deadline: an async_depth below one tag per sbitmap word is a limit per word",
          "[kernel-sched][differential]") {
    // dd_limit_depth() sets a shallow depth per sbitmap word (dd_to_word_depth rounds up): with
    // 64 scheduler tags in 4 words of 16, async_depth=1 becomes one tag per word, 4 in all.
    // blksim's mq-deadline limits the whole tag space to async_depth (1): writes get fewer
    // scheduler tags than in the kernel, and the orders part (docs/kernel-schedulers.md).
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    const Traces t = run_both("hdd-randrw.json", tree, "\"async_depth\": 1");
    REQUIRE(t.blksim.size() > 100);
    REQUIRE(t.blksim != t.kernel);
}

TEST_CASE("kernel:mq-deadline: blksim's default (mainline) continues a batch where 6.1 does not",
          "[kernel-sched][differential]") {
    // 6.1 continues at per_prio->next_rq[], kernels since about 6.5 at the first request at or
    // above latest_pos; blksim's mq-deadline models the latter unless next_rq=1. On a disk
    // where requests wait in the scheduler the two orders part (docs/kernel-schedulers.md).
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kmqdl-mainline");
    const std::string sc = source_path("test/fixtures/kernel-sched/hdd-randrw.json");
    REQUIRE(run_blksim("run " + sc + " -q --trace " + tmp / "a.trace").status == 0);
    REQUIRE(run_blksim("run " + sc + " -q --trace " + tmp / "b.trace" + " --kernel-tree " + tree +
                       " --set queues.0.scheduler=kernel:mq-deadline").status == 0);
    const auto a = dispatches(slurp(tmp / "a.trace")), b = dispatches(slurp(tmp / "b.trace"));
    REQUIRE(a.size() > 100);
    REQUIRE(a != b);
}

TEST_CASE("kernel:mq-deadline: sysfs attributes reach the kernel's code, a lone patched .c file runs",
          "[kernel-sched]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kmqdl-attrs");
    const std::string sc = source_path("test/fixtures/kernel-sched/hdd-randrw.json");
    const std::string k = " -q --set queues.0.scheduler=kernel:mq-deadline --kernel-tree ";
    REQUIRE(run_blksim("run " + sc + k + tree + " --trace " + tmp / "default.trace").status == 0);
    REQUIRE(run_blksim("run " + sc + k + tree + " --trace " + tmp / "batch1.trace" +
                       " --set queues.0.iosched.fifo_batch=1").status == 0);
    const auto d = dispatches(slurp(tmp / "default.trace"));
    REQUIRE(d != dispatches(slurp(tmp / "batch1.trace")));

    // The file alone, under another name and outside any tree: rbtree comes from the
    // reference tree, and the code is the same.
    std::filesystem::copy_file(tree + "/block/mq-deadline.c", tmp / "my-deadline.c");
    REQUIRE(run_blksim("run " + sc + k + tmp / "my-deadline.c" + " --trace " + tmp / "lone.trace").status == 0);
    REQUIRE(dispatches(slurp(tmp / "lone.trace")) == d);
}

TEST_CASE("kernel:mq-deadline: bad kernel sources are one message and exit 2", "[kernel-sched][bad-input]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kmqdl-bad");
    const std::string sc = source_path("test/fixtures/kernel-sched/hdd-randrw.json") +
                           " -q --set queues.0.scheduler=kernel:mq-deadline";
    const std::string source = slurp(tree + "/block/mq-deadline.c");
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(tmp / name) << text;
        return tmp / name;
    };
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string s = source;
        const size_t at = s.find(from);
        REQUIRE(at != std::string::npos);
        return s.replace(at, from.size(), to);
    };
    struct Case {
        std::string args, expect;
    };
    const Case cases[] = {
        {"", "name it with kernel.tree"},
        {"--kernel-tree " + tmp / "nowhere", "does not exist"},
        {"--kernel-tree " + write("syntax.c", replaced("static void dd_exit_sched(struct elevator_queue *e)",
                                                       "static void dd_exit_sched(struct elevator_queue *e) oops")),
         "syntax.c:"},
        {"--kernel-tree " + write("undef.c", replaced("dd->starved = 0;", "dd->starved = blk_not_in_kcompat();")),
         "undefined reference to `blk_not_in_kcompat'"},
        {"--kernel-tree " + write("noreg.c", "#include <linux/module.h>\nstatic int __init f(void) { return 0; }\n"
                                             "module_init(f);\n"),
         "elv_register() was not called"},
        {"--kernel-tree " + write("noinit.c", "int x;\n"), "no module_init() function"},
        {"--kernel-tree " + write("noattr.c", replaced("\tDD_ATTR(fifo_batch),\n", "")) +
             " --set queues.0.iosched.fifo_batch=4",
         "/queues/0/iosched/fifo_batch: the kernel's mq-deadline has no sysfs attribute 'fifo_batch'"},
        {"--kernel-tree " + tree + " --set queues.0.iosched.next_rq=1", "unknown kernel:mq-deadline tunable 'next_rq'"},
    };
    for (const Case& c : cases) {
        const CliResult r = run_blksim("run " + sc + " " + c.args);
        INFO(c.args << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(c.expect) != std::string::npos);
        CHECK(std::count(r.out.begin(), r.out.end(), '\n') <= 4);  // one message (a compiler error spans 3 lines)
    }
}

TEST_CASE("kernel:mq-deadline: a BUG in the kernel's code stops the run naming it, a WARN is printed",
          "[kernel-sched]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kmqdl-bug");
    std::string source = slurp(tree + "/block/mq-deadline.c");
    const std::string at = "\trq = dd_dispatch_prio_aged_requests(dd, now);";
    REQUIRE(source.find(at) != std::string::npos);
    auto with = [&](const std::string& name, const std::string& check) {
        std::string s = source;
        s.insert(s.find(at), "\t" + check + "(jiffies > 25);\n");  // 100 ms into the run
        std::ofstream(tmp / name) << s;
        return tmp / name;
    };
    const std::string sc = source_path("test/fixtures/kernel-sched/hdd-randrw.json") +
                           " -q --set queues.0.scheduler=kernel:mq-deadline --kernel-tree ";
    const CliResult bug = run_blksim("run " + sc + with("bug.c", "BUG_ON"));
    INFO(bug.out);
    CHECK(bug.status == 1);
    CHECK(bug.out.find("kernel BUG at bug.c:") != std::string::npos);
    CHECK(bug.out.find("BUG_ON(jiffies > 25)") != std::string::npos);
    const CliResult warn = run_blksim("run " + sc + with("warn.c", "WARN_ON_ONCE"));
    INFO(warn.out);
    CHECK(warn.status == 0);
    CHECK(warn.out.find("blksim: warning: kernel WARNING at warn.c:") != std::string::npos);
}

// --- the seed patches (kernel-patches/) applied to 6.1's file --------------------------------

namespace {

// 6.1's mq-deadline.c with kernel-patches/<patch> applied, as the file `name` in tmp.
std::string patched(const TempDir& tmp, const std::string& tree, const std::string& patch, const std::string& name) {
    std::filesystem::copy_file(tree + "/block/mq-deadline.c", tmp / name);
    const std::string cmd = "patch --quiet --forward " + tmp / name + " < " + source_path("kernel-patches/" + patch);
    INFO(cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    return tmp / name;
}

// The variant's mean of a metric in a `compare --output-format json` report (stdout, then
// compare's summary line on stderr).
double compare_mean(const std::string& out, const std::string& metric, const char* variant) {
    const nlohmann::json report = nlohmann::json::parse(out.substr(0, out.rfind('}') + 1), nullptr, false);
    REQUIRE(!report.is_discarded());
    for (const auto& m : report.at("metrics"))
        if (m.at("metric").get<std::string>().ends_with("/" + metric))
            return m.at(std::string("mean_") + variant).get<double>();
    FAIL("no metric " << metric);
    return 0;
}

}  // namespace

TEST_CASE("kernel-patches: E1's head request in 6.1's file dispatches as blksim's head_on_wrap",
          "[kernel-sched][seed-patches]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kseed-e1");
    const std::string e1 = patched(tmp, tree, "e1-prioritize-first-request.patch", "e1-deadline.c");
    // Both seed options of E1: nr_sched_batch (kcompat's queue attribute, blksim's tunable)
    // and the head request on a wrap (the patched file, blksim's head_on_wrap).
    const Traces t = run_both("hdd-randrw.json", e1, "\"nr_sched_batch\": 1", "", "\"head_on_wrap\": 1");
    require_same(t);
    // ... and the patch changes what 6.1's own file does on the same scenario.
    REQUIRE(t.kernel != run_both("hdd-randrw.json", tree, "\"nr_sched_batch\": 1").kernel);
}

TEST_CASE("kernel-patches: E3's direct dispatch in 6.1's file dispatches as blksim's direct_dispatch",
          "[kernel-sched][seed-patches]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kseed-e3");
    const std::string e3 = patched(tmp, tree, "e3-direct-dispatch.patch", "e3-deadline.c");
    // 16 null_blk tags for 10 psync jobs: the scheduler is often empty when a request comes.
    const std::string sc = source_path("test/fixtures/kernel-sched/nullblk-10jobs.json");
    const std::string common = " -q --set devices.0.params.hw_queue_depth=16 --set queues.0.scheduler=kernel:mq-deadline";
    require_same(run_both("nullblk-10jobs.json", e3, "", "--set devices.0.params.hw_queue_depth=16",
                          "\"direct_dispatch\": 1"));
    REQUIRE(run_blksim("run " + sc + common + " --kernel-tree " + e3 + " --trace " + tmp / "e3.trace").status == 0);
    REQUIRE(run_blksim("run " + sc + common + " --kernel-tree " + tree + " --trace " + tmp / "61.trace").status == 0);
    const std::string patched_trace = slurp(tmp / "e3.trace"), mainline_trace = slurp(tmp / "61.trace");
    // Mainline inserts every request; the patched file lets some go straight to the driver.
    CHECK(actions(mainline_trace, "I").size() == dispatches(mainline_trace).size());
    CHECK(actions(patched_trace, "I").size() < dispatches(patched_trace).size() / 2);
}

TEST_CASE("kernel-patches: on a short E1 cell the patched file beats 6.1's, as published",
          "[kernel-sched][seed-patches]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    TempDir tmp("kseed-dir");
    const std::string e1 = patched(tmp, tree, "e1-prioritize-first-request.patch", "e1-deadline.c");
    // E1's write cell (published +35 % with nr_sched_batch=1 + head request), 0.3 s, 2 seeds.
    const CliResult r = run_blksim(
        "compare " + source_path("scenarios/seeds/e1-raid0-hdd-baseline-write.json") +
        " --set jobs.0.runtime=300ms --set queues.0.scheduler=kernel:mq-deadline -n 2 -j 2 --output-format json"
        " --a 'kernel.tree=" + tree + "/block/mq-deadline.c;queues.0.iosched={}'"
        " --b 'kernel.tree=" + e1 + ";queues.0.iosched={\"nr_sched_batch\": 1}'");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(compare_mean(r.out, "write.iops", "b") > 1.1 * compare_mean(r.out, "write.iops", "a"));
}

TEST_CASE("kernel-patches: nr_sched_batch is a queue attribute of kcompat's core, 1..nr_requests",
          "[kernel-sched][seed-patches][bad-input]") {
    const std::string tree = kernel_tree();
    if (tree.empty())
        return;
    const std::string sc = source_path("test/fixtures/kernel-sched/hdd-randrw.json") +
                           " -q --set queues.0.scheduler=kernel:mq-deadline --kernel-tree " + tree;
    // With 6.1's own file too: it is not the file's attribute. The core's dispatch round
    // takes it as blksim's mq-deadline takes its tunable, which changes the order here.
    const Traces one = run_both("hdd-prio.json", tree, "\"nr_sched_batch\": 1");
    require_same(one);
    REQUIRE(one.kernel != run_both("hdd-prio.json", tree).kernel);
    // At nr_requests it is mainline.
    TempDir tmp("kseed-nsb");
    REQUIRE(run_blksim("run " + sc + " --set queues.0.nr_requests=64 --set queues.0.iosched.nr_sched_batch=64 --trace " +
                       tmp / "b.trace").status == 0);
    REQUIRE(run_blksim("run " + sc + " --set queues.0.nr_requests=64 --trace " + tmp / "c.trace").status == 0);
    CHECK(dispatches(slurp(tmp / "b.trace")) == dispatches(slurp(tmp / "c.trace")));
    const CliResult r = run_blksim("run " + sc + " --set queues.0.nr_requests=64 --set queues.0.iosched.nr_sched_batch=65");
    INFO(r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find("nr_sched_batch: 1..nr_requests (64)") != std::string::npos);
}
