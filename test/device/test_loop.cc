// The loop device (models/device/loop.{h,cc}) on a machine: its worker runs on a host CPU,
// copies each request at the configured rate, and completes it from that CPU.
#include <catch2/catch.hpp>

#include <string>

#include "models/result/run_result.h"
#include "test/models/scenario_run.h"

using namespace blksim;

namespace {

// One job on a loop device of a host with `cpus` CPUs, the device's params as given; `host`
// adds keys to the host, `sched` names the queue's scheduler, `queue` adds keys to the queue.
result::RunResult run_loop(int cpus, const std::string& params, const std::string& job, const std::string& host = "",
                           const std::string& sched = "none", const std::string& queue = "") {
    const std::string text = R"({
  "host": { "cpus": )" + std::to_string(cpus) + R"(, "cost_profile": "loop-vm-2cpu", "os_jitter": false )" + host + R"( },
  "devices": [ { "name": "loop0", "model": "loop", "params": )" + params + R"( } ],
  "queues": [ { "device": "loop0", "scheduler": ")" + sched + R"(" )" + queue + R"( } ],
  "jobs": [ { "name": "j", "device": "loop0", "direct": 1, "runtime": "100ms", "time_based": 1,
              "group_reporting": 1, )" + job + R"( } ]
})";
    return testing::run_scenario_text(text, "loop.json");
}

// The loop-vm-2cpu profile's CPUs share no cache (its VM exposes no cache topology); a host
// whose CPUs do.
const std::string kLlc = R"(, "shared_llc": true)";

double field(const result::RunResult& r, const std::string& key) {
    const double v = testing::device_field(r, key);
    REQUIRE(v >= 0);
    return v;
}

double iops(const result::RunResult& r) {
    const auto& j = r.jobs.at(0);
    return static_cast<double>(j.dir[0].total_ios) / (static_cast<double>(j.runtime.count()) / 1e9);
}

}  // namespace

TEST_CASE("loop: 128 KiB reads are bound by the worker's copy rate", "[loop][device]") {
    // One worker copies one command at a time: with a slow copy (1000 MB/s: 131 us per
    // 128 KiB) and eight commands queued, the worker never sleeps and the bandwidth is the
    // copy rate less the per-command share.
    const auto r = run_loop(2, R"({ "copy_mbps": 1000, "cmd_cost": "2us" })",
                            R"("ioengine": "libaio", "rw": "read", "bs": "128k", "iodepth": 8)");
    const double per_cmd_us = 131.072 + 2.0;
    const double bytes_per_s = iops(r) * 131072.0;
    CHECK(bytes_per_s <= 1e9);
    CHECK(bytes_per_s >= 0.95 * 1e9 * 131.072 / per_cmd_us);
    // Doubling the copy rate nearly doubles the throughput: the copy is the bottleneck.
    const auto fast = run_loop(2, R"({ "copy_mbps": 2000, "cmd_cost": "2us" })",
                               R"("ioengine": "libaio", "rw": "read", "bs": "128k", "iodepth": 8)");
    CHECK(iops(fast) / iops(r) > 1.8);
    CHECK(iops(fast) / iops(r) < 2.0);
}

TEST_CASE("loop: the worker's CPU is busy while it copies; one CPU shares it with the job", "[loop][device]") {
    const std::string params = R"({ "copy_mbps": 2000, "cmd_cost": "3us" })";
    const std::string job = R"("ioengine": "libaio", "rw": "randread", "bs": "4k", "iodepth": 32)";
    const auto one = run_loop(1, params, job);
    const auto two = run_loop(2, params, job);
    // Each command's cost (3 us + 4096 B at 2000 MB/s) was on a CPU: the worker's time covers
    // the commands, and the CPUs' busy time covers the worker's and the job's.
    for (const auto* r : {&one, &two}) {
        const double cmds = field(*r, "commands");
        CHECK(cmds >= static_cast<double>(r->jobs.at(0).dir[0].total_ios));
        CHECK(field(*r, "worker_cpu_ms") * 1e6 >= cmds * (3000 + 2048));
        sim::Duration busy;
        for (const auto& c : r->cpus)
            busy = busy + c.busy;
        CHECK(static_cast<double>(busy.count()) >=
              field(*r, "worker_cpu_ms") * 1e6 + static_cast<double>(r->jobs.at(0).cpu_busy.count()));
    }
    // On one CPU the job waits for the worker's copies: it cannot go as fast as with a second
    // CPU for the worker. With its own CPU the worker finds commands queued and takes them
    // without sleeping in between.
    CHECK(iops(two) > 1.3 * iops(one));
    CHECK(field(two, "commands_per_wakeup") > 2.0);
}

TEST_CASE("loop: completions come from the worker's CPU, not the submitter's", "[loop][device]") {
    // A psync job pinned to CPU 0: the worker is woken on the idle CPU 1, copies there and
    // ends the request there (BLOCK_SOFTIRQ on the worker's CPU); CPU 0 takes no completion.
    const auto r = run_loop(2, R"({ "copy_mbps": 4000, "cmd_cost": "1us" })",
                            R"("ioengine": "psync", "rw": "randread", "bs": "4k", "cpus_allowed": "0")", kLlc);
    REQUIRE(r.cpus.size() == 2);
    CHECK(r.jobs.at(0).dir[0].total_ios > 1000);
    CHECK(r.cpus[0].irq.count() == 0);
    CHECK(r.cpus[1].irq.count() > 0);
    // Every I/O woke the worker (QD1: the list is empty each time it looks).
    CHECK(field(r, "wakeups") == Approx(field(r, "commands")).epsilon(0.01));
    CHECK(field(r, "worker_cpu_ms") <= static_cast<double>(r.cpus[1].busy.count()) / 1e6);
}

TEST_CASE("loop: with no shared cache the worker wakes on the submitter's busy CPU, and an elevator's "
          "dispatch loop hands the hctx to kblockd (need_resched)", "[loop][device]") {
    const std::string params = R"({ "copy_mbps": 4000, "cmd_cost": "1us" })";
    const std::string job = R"("ioengine": "psync", "rw": "randread", "bs": "4k", "cpus_allowed": "0")";
    // Every wake-up onto a busy core preempts (CFS, kernels before 6.6).
    const std::string no_llc = R"(, "shared_llc": false, "run_to_parity": false)";
    // select_task_rq: with no sd_llc the worker stays on the CPU it last ran on, the job's,
    // though CPU 1 is idle: it completes every request there.
    const auto none = run_loop(2, params, job, no_llc);
    CHECK(none.jobs.at(0).dir[0].total_ios > 1000);
    CHECK(none.cpus[0].irq.count() > 0);
    CHECK(none.cpus[1].irq.count() == 0);
    CHECK(none.queues.at(0).resched_handoffs == 0);  // no elevator, no dispatch loop
    // With mq-deadline the request goes through blk_mq_do_dispatch_sched(): its round's
    // ->queue_rq woke the worker onto this CPU, where it waits to preempt the job, so the loop
    // ends and kblockd runs the hctx again, once per I/O at QD1, at a context switch each.
    const auto dd = run_loop(2, params, job, no_llc, "mq-deadline");
    const auto ios = static_cast<double>(dd.jobs.at(0).dir[0].total_ios);
    CHECK(static_cast<double>(dd.queues.at(0).resched_handoffs) == Approx(ios).epsilon(0.01));
    CHECK(iops(dd) < 0.85 * iops(none));
    // EEVDF (6.6+, cpu::CfsRq): the job wakes the worker at the end of its queue_rq, all
    // three tasks on CPU 0 having run in turn with next to no waiting, so no lag is large
    // enough to make the worker EEVDF's pick: the wake-up sets no need_resched, the loop does
    // not end early, and nothing is handed to kblockd.
    const auto parity = run_loop(2, params, job, R"(, "shared_llc": false, "run_to_parity": true)", "mq-deadline");
    CHECK(parity.queues.at(0).resched_handoffs == 0);
    CHECK(iops(parity) > 1.1 * iops(dd));
    // With a shared cache the worker wakes on the idle CPU: nothing waits on the job's CPU,
    // need_resched stays clear and the elevator costs only its own work.
    const auto dd_llc = run_loop(2, params, job, kLlc, "mq-deadline");
    CHECK(dd_llc.queues.at(0).resched_handoffs == 0);
    CHECK(dd_llc.cpus[0].irq.count() == 0);
    CHECK(iops(dd_llc) > 0.9 * iops(run_loop(2, params, job, kLlc)));
}

TEST_CASE("loop: rq_affinity sends the worker's completion to the submitter's CPU when the two share "
          "no cache, or always with rq_affinity=2 (blk_mq_complete_need_ipi)", "[loop][device]") {
    const std::string params = R"({ "copy_mbps": 4000, "cmd_cost": "1us" })";
    // The job on CPU 1; the worker starts on CPU 0 and, woken while CPU 0 is idle, stays there.
    const std::string job = R"("ioengine": "psync", "rw": "randread", "bs": "4k", "cpus_allowed": "1")";
    const std::string no_llc = R"(, "shared_llc": false)";
    auto irq_us = [](const result::RunResult& r, int cpu) { return static_cast<double>(r.cpus.at(cpu).irq.count()) / 1e3; };
    // A shared cache and rq_affinity=1: the completion stays on the worker's CPU.
    const auto llc = run_loop(2, params, job, kLlc);
    CHECK(llc.jobs.at(0).dir[0].total_ios > 1000);
    CHECK(irq_us(llc, 0) > 0);
    CHECK(irq_us(llc, 1) == 0);
    // No shared cache: rq_affinity=1 sends it to CPU 1, the submitter's, which takes all of
    // the completion work the worker's CPU took before (the same costs, on the other CPU).
    const auto ipi = run_loop(2, params, job, no_llc);
    CHECK(irq_us(ipi, 0) == 0);
    CHECK(irq_us(ipi, 1) / static_cast<double>(ipi.jobs.at(0).dir[0].total_ios) ==
          Approx(irq_us(llc, 0) / static_cast<double>(llc.jobs.at(0).dir[0].total_ios)).epsilon(0.02));
    // rq_affinity=0: where it ended, whatever the cache; rq_affinity=2: the submitter's,
    // whatever the cache.
    const auto here = run_loop(2, params, job, no_llc, "none", R"(, "rq_affinity": 0)");
    CHECK(irq_us(here, 0) > 0);
    CHECK(irq_us(here, 1) == 0);
    const auto forced = run_loop(2, params, job, kLlc, "none", R"(, "rq_affinity": 2)");
    CHECK(irq_us(forced, 0) == 0);
    CHECK(irq_us(forced, 1) > 0);
}

TEST_CASE("loop: a completion ended from the worker's context runs in its CPU's ksoftirqd, "
          "one wake-up for what is raised before it runs", "[loop][device]") {
    const std::string params = R"({ "copy_mbps": 4000, "cmd_cost": "1us" })";
    // QD1 with a shared cache: the worker on the idle CPU 1 ends each request there, raising
    // BLOCK_SOFTIRQ from process context: ksoftirqd is woken once per I/O and preempts the
    // worker at its cond_resched() (here: the worker sleeps first, the list being empty).
    const std::string qd1 = R"("ioengine": "psync", "rw": "randread", "bs": "4k", "cpus_allowed": "0")";
    const auto r = run_loop(2, params, qd1, kLlc);
    CHECK(field(r, "ksoftirqd_wakeups") == Approx(field(r, "commands")).epsilon(0.01));
    // Without a shared cache and the job on CPU 1, the worker stays on CPU 0 and sends each
    // completion to CPU 1 by IPI: softirq on the way out of that interrupt, no ksoftirqd.
    const std::string qd1_cpu1 = R"("ioengine": "psync", "rw": "randread", "bs": "4k", "cpus_allowed": "1")";
    const auto ipi = run_loop(2, params, qd1_cpu1, R"(, "shared_llc": false)");
    CHECK(ipi.jobs.at(0).dir[0].total_ios > 1000);
    CHECK(field(ipi, "ksoftirqd_wakeups") == 0);
    // The switch to ksoftirqd (the profile's 3.6 us) is on the I/O's path: each QD1 I/O takes
    // longer than when the completion comes by IPI (the worker's own switch-in is paid in both).
    CHECK(1e6 / iops(r) > 1e6 / iops(ipi) + 2.0);
}

TEST_CASE("loop: without a shared cache, the tick's idle balancing takes the worker off the job's CPU "
          "to the idle one", "[loop][device]") {
    // 128 KiB reads at QD8: woken by the job on its own CPU, the worker would share CPU 0 with
    // it for good (no sd_llc: a wake-up keeps it on its previous, busy CPU), one command per
    // wake-up, while CPU 1 idles. The first tick that finds the two runnable moves the worker,
    // and it then wakes on its own, idle CPU.
    const std::string params = R"({ "copy_mbps": 4000, "cmd_cost": "1us" })";
    const std::string job = R"("ioengine": "libaio", "rw": "read", "bs": "128k", "iodepth": 8, "cpus_allowed": "0")";
    const auto r = run_loop(2, params, job, R"(, "shared_llc": false)");
    CHECK(field(r, "migrations") >= 1);
    CHECK(field(r, "migrations") <= 3);
    CHECK(r.cpus[1].busy.count() > r.jobs.at(0).runtime.count() / 2);  // the worker's CPU, copying
    CHECK(field(r, "commands_per_wakeup") > 4.0);
    // The worker's copy is then the bottleneck, as on a CPU of its own: within 5 % of one
    // command per (1 us + 128 KiB at 4000 MB/s). Sharing CPU 0 with the job it would not be.
    CHECK(iops(r) > 0.95 * 1e6 / (1.0 + 131072.0 / 4000.0));
    CHECK(iops(r) <= 1e6 / (1.0 + 131072.0 / 4000.0));
}

TEST_CASE("loop: a worker moved by balancing while it copies, that sleeps and is woken again at once, "
          "runs on the core it was woken on", "[loop][device]") {
    // 4 MiB psync writes split into 512 KiB requests, two tags, a slow copy (5 ms a request):
    // the tick moves the running worker to the idle CPU; it finishes its command with nothing
    // queued and sleeps, and the job, run at once on the worker's old core, submits the next
    // request and wakes it in the same instant. The invariant search found the run stalling
    // here when the worker took its new core only after that wake-up (seed 8769).
    const std::string params = R"({ "copy_mbps": 100, "cmd_cost": "500ns", "hw_queue_depth": 2 })";
    const std::string job = R"("ioengine": "psync", "rw": "randwrite", "bs": "4m", "cpus_allowed": "0")";
    const auto r = run_loop(2, params, job, R"(, "shared_llc": false)");
    CHECK(r.jobs.at(0).dir[1].total_ios >= 2);  // 8 copies of 5.2 ms each
    CHECK(field(r, "migrations") >= 1);
}
