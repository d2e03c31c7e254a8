// Polled completion (fio's hipri): io_uring on an IOPOLL ring spins on its CPU for its
// completions, which an NVMe drive with poll queues delivers without an interrupt; pvsync2
// accepts hipri but sleeps as psync (the kernel polls no synchronous direct I/O).
#include <catch2/catch.hpp>

#include <string>

#include "models/result/run_result.h"
#include "models/workload/engine.h"
#include "test/models/scenario_run.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

// QD1 4 KiB random reads for 20 ms on one NVMe drive; the job on CPU 1 of a 2-CPU host.
std::string polled_scenario(const std::string& engine, bool hipri, uint32_t poll_queues) {
    return R"({
  "host": { "cpus": 2, "cost_profile": "desktop-8t", "os_jitter": false },
  "devices": [ { "name": "nvme0n1", "model": "nvme", "params": { "poll_queues": )" +
           std::to_string(poll_queues) + R"( } } ],
  "jobs": [ { "name": "r", "ioengine": ")" + engine + R"(", "hipri": )" + (hipri ? "1" : "0") +
           R"(, "rw": "randread", "bs": "4k", "iodepth": 1, "cpus_allowed": "1", "runtime": "20ms",
              "time_based": 1 } ]
})";
}

result::RunResult run(const std::string& engine, bool hipri, uint32_t poll_queues) {
    return testing::run_scenario_text(polled_scenario(engine, hipri, poll_queues), "polled.json");
}

double fraction(sim::Duration part, sim::Duration whole) {
    return static_cast<double>(part.count()) / static_cast<double>(whole.count());
}

}  // namespace

TEST_CASE("io_uring hipri on NVMe with poll queues: no interrupt and no wake-up, lower clat, the submitting "
          "CPU spins at 100 % system time", "[polled][nvme]") {
    const result::RunResult irq = run("io_uring", false, 1);
    const result::RunResult poll = run("io_uring", true, 1);
    const result::JobResult& a = irq.jobs.at(0);
    const result::JobResult& b = poll.jobs.at(0);
    REQUIRE(a.dir[0].total_ios > 100);
    REQUIRE(b.dir[0].total_ios > 100);
    // The interrupt, softirq, wake-up and context switch are gone from every I/O.
    CHECK(b.dir[0].clat.mean() < a.dir[0].clat.mean() - 1000.0);
    CHECK(b.dir[0].total_ios > a.dir[0].total_ios);
    CHECK(b.ctx == 0);
    CHECK(a.ctx > 100);
    // The job's CPU: busy and in the kernel nearly all the time it ran (fio's cpu line).
    CHECK(fraction(b.cpu_busy, b.runtime) > 0.97);
    CHECK(fraction(b.cpu_sys, b.runtime) > 0.9);
    CHECK(fraction(a.cpu_busy, a.runtime) < 0.2);
    // The core it ran on counts the spin as busy; no interrupt work there.
    const result::CpuReport& core = poll.cpus.at(1);
    CHECK(fraction(core.busy, poll.sim_time) > 0.95);
    CHECK(core.irq == sim::Duration());
    CHECK(irq.cpus.at(1).irq > sim::Duration());
    // Same seed, same run.
    const result::RunResult again = run("io_uring", true, 1);
    CHECK(again.jobs.at(0).dir[0].total_ios == b.dir[0].total_ios);
    CHECK(again.jobs.at(0).dir[0].clat.mean() == b.dir[0].clat.mean());
    CHECK(again.jobs.at(0).cpu_sys == b.cpu_sys);
}

TEST_CASE("io_uring hipri without poll queues: completions come by interrupt while the thread still spins",
          "[polled][nvme]") {
    const result::RunResult irq = run("io_uring", false, 0);
    const result::RunResult poll = run("io_uring", true, 0);
    const result::RunResult pollq = run("io_uring", true, 1);
    const result::JobResult& b = poll.jobs.at(0);
    // The interrupt is taken (the kernel clears REQ_POLLED on a queue that cannot poll) ...
    CHECK(poll.cpus.at(1).irq > sim::Duration());
    // ... but nobody sleeps: no wake-up or context switch, and the CPU spins.
    CHECK(b.ctx == 0);
    CHECK(fraction(b.cpu_busy, b.runtime) > 0.97);
    CHECK(b.dir[0].clat.mean() < irq.jobs.at(0).dir[0].clat.mean());
    CHECK(b.dir[0].clat.mean() > pollq.jobs.at(0).dir[0].clat.mean());
}

TEST_CASE("pvsync2 with hipri runs as psync: the kernel sleeps in submit_bio_wait()", "[polled][nvme]") {
    const result::RunResult sync2 = run("pvsync2", true, 1);
    const result::RunResult psync = run("psync", false, 1);
    CHECK(sync2.jobs.at(0).options.ioengine == "pvsync2");
    CHECK(sync2.jobs.at(0).dir[0].total_ios == psync.jobs.at(0).dir[0].total_ios);
    CHECK(sync2.jobs.at(0).dir[0].clat.mean() == psync.jobs.at(0).dir[0].clat.mean());
    CHECK(sync2.jobs.at(0).ctx == psync.jobs.at(0).ctx);
}

TEST_CASE("hipri belongs to io_uring and pvsync2", "[polled][scenario]") {
    for (const char* engine : {"psync", "libaio"}) {
        INFO(engine);
        try {
            scenario::load_scenario_text(polled_scenario(engine, true, 1), "polled.json");
            FAIL("accepted");
        } catch (const scenario::ScenarioError& e) {
            CHECK_THAT(e.what(), Catch::Contains("/jobs/0/hipri") &&
                                     Catch::Contains("hipri is an option of ioengine io_uring or pvsync2, not of " +
                                                     std::string(engine)));
        }
    }
    workload::JobConfig cfg;
    cfg.ioengine = workload::IoEngine::IO_URING;
    cpu::HostConfig host;
    CHECK_FALSE(workload::make_engine(cfg, host)->polls());
    cfg.hipri = true;
    CHECK(workload::make_engine(cfg, host)->polls());
    cfg.ioengine = workload::IoEngine::PVSYNC2;
    CHECK_FALSE(workload::make_engine(cfg, host)->polls());
}

// A loop device's command ends in its worker, a task: on a 1-CPU host it can run only when the
// polling job gives the core up. The worker woken by the job's submission sets need_resched(),
// and the job yields as its syscall returns (Task::wakeup_preempt), an involuntary context
// switch per I/O: it runs as the interrupt-driven job does, which sleeps there instead.
// Before, the spin held the core for good and the run stalled; then, for a while, it gave the
// core up only at the tick once its slice was used up (3 ms per I/O).
TEST_CASE("io_uring hipri on a loop device on one CPU: the spin yields the core to the loop worker",
          "[polled][loop]") {
    auto scenario = [](int hipri, int cpus = 1) {
        return R"({
  "host": { "cpus": )" + std::to_string(cpus) + R"(, "cost_profile": "e3-host", "os_jitter": false },
  "devices": [ { "name": "loop0", "model": "loop" } ],
  "jobs": [ { "name": "r", "ioengine": "io_uring", "hipri": )" +
               std::to_string(hipri) + R"(, "rw": "randread", "bs": "4k", "iodepth": 1,
              "runtime": "20ms", "time_based": 1 } ]
})";
    };
    const result::RunResult polled = testing::run_scenario_text(scenario(1), "polled-loop.json");
    const result::RunResult irq = testing::run_scenario_text(scenario(0), "irq-loop.json");
    const result::JobResult& p = polled.jobs.at(0);
    const result::JobResult& i = irq.jobs.at(0);
    REQUIRE(i.dir[0].total_ios > 100);
    CHECK(p.ctx >= p.dir[0].total_ios);
    CHECK(p.dir[0].clat.mean() < 100'000.0);
    CHECK(static_cast<double>(p.dir[0].total_ios) > 0.9 * static_cast<double>(i.dir[0].total_ios));
    CHECK(static_cast<double>(p.dir[0].total_ios) < 1.1 * static_cast<double>(i.dir[0].total_ios));
    // With a second CPU the worker runs there and the job spins undisturbed: no switch.
    const result::RunResult two = testing::run_scenario_text(scenario(1, 2), "polled-loop-2.json");
    const result::JobResult& apart = two.jobs.at(0);
    CHECK(apart.ctx == 0);
    CHECK(apart.dir[0].total_ios > p.dir[0].total_ios);
}
