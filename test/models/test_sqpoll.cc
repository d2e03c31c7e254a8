// io_uring's SQ polling thread (fio's sqthread_poll): a kernel thread spinning on the ring
// submits the job's I/O on its own CPU; the job makes no syscall to submit and reaps the CQ
// ring by spinning in user space.
#include <catch2/catch.hpp>

#include <string>

#include "models/result/run_result.h"
#include "test/models/scenario_run.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

// QD1 4 KiB random reads on one NVMe drive; the job on CPU 1. `extra`: more job options.
std::string sqpoll_scenario(uint32_t cpus, const std::string& extra, const std::string& runtime = "20ms",
                            const std::string& model = "nvme") {
    return R"({
  "host": { "cpus": )" + std::to_string(cpus) + R"(, "cost_profile": "desktop-8t", "os_jitter": false },
  "devices": [ { "name": "nvme0n1", "model": ")" + model + R"(" } ],
  "jobs": [ { "name": "r", "ioengine": "io_uring", "rw": "randread", "bs": "4k", "iodepth": 1,
              "cpus_allowed": "1", "runtime": ")" + runtime + R"(", "time_based": 1)" + extra + R"( } ]
})";
}

result::RunResult run(uint32_t cpus, const std::string& extra, const std::string& runtime = "20ms",
                      const std::string& model = "nvme") {
    return testing::run_scenario_text(sqpoll_scenario(cpus, extra, runtime, model), "sqpoll.json");
}

double fraction(sim::Duration part, sim::Duration whole) {
    return static_cast<double>(part.count()) / static_cast<double>(whole.count());
}

}  // namespace

TEST_CASE("sqthread_poll: the submission moves to the SQ thread's CPU, busy all along; no syscall, no slat, "
          "less system time per I/O", "[sqpoll][nvme]") {
    const result::RunResult plain = run(4, "");
    const result::RunResult sq = run(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 3)");
    const result::JobResult& a = plain.jobs.at(0);
    const result::JobResult& b = sq.jobs.at(0);
    REQUIRE(a.dir[0].total_ios > 100);
    REQUIRE(b.dir[0].total_ios > 100);
    // fio keeps no slat for an SQPOLL ring (the io_uring_enter it measured is gone).
    CHECK(a.dir[0].slat.count() > 0);
    CHECK(a.dir[0].slat.mean() > 0.0);
    CHECK(b.dir[0].slat.count() == 0);
    // No submit syscall, no sleep, wake-up or context switch: a shorter round trip.
    CHECK(b.ctx == 0);
    CHECK(b.dir[0].lat.mean() < a.dir[0].lat.mean());
    CHECK(b.dir[0].total_ios > a.dir[0].total_ios);
    // The job's system time per I/O falls (its syscalls are gone); it spins in user space
    // on the CQ ring instead, so its CPU is busy all the time it runs.
    const double sys_a = static_cast<double>(a.cpu_sys.count()) / static_cast<double>(a.dir[0].total_ios);
    const double sys_b = static_cast<double>(b.cpu_sys.count()) / static_cast<double>(b.dir[0].total_ios);
    CHECK(sys_b < sys_a / 2);
    CHECK(fraction(b.cpu_busy, b.runtime) > 0.95);
    CHECK(fraction(b.cpu_sys, b.runtime) < 0.05);
    // The SQ thread's CPU spins all along; without it, CPU 3 does nothing.
    CHECK(fraction(sq.cpus.at(3).busy, sq.sim_time) > 0.95);
    CHECK(plain.cpus.at(3).busy == sim::Duration());
    // The SQ thread's busy time is not the job's (fio reads the job thread's own rusage).
    CHECK(b.cpu_busy < b.runtime + sim::Duration::ns(1000));
    // Same seed, same run.
    const result::RunResult again = run(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 3)");
    CHECK(again.jobs.at(0).dir[0].total_ios == b.dir[0].total_ios);
    CHECK(again.jobs.at(0).dir[0].clat.mean() == b.dir[0].clat.mean());
    CHECK(again.cpus.at(3).busy == sq.cpus.at(3).busy);
}

TEST_CASE("sqthread_poll on null_blk at QD1: more IOPS, as no io_uring_enter runs per I/O", "[sqpoll][null_blk]") {
    const result::RunResult plain = run(4, "", "20ms", "null_blk");
    const result::RunResult sq = run(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 3)", "20ms", "null_blk");
    const result::JobResult& a = plain.jobs.at(0);
    const result::JobResult& b = sq.jobs.at(0);
    REQUIRE(a.dir[0].total_ios > 1000);
    // The device costs nothing: the job's loop is the bottleneck, and the syscall per I/O
    // (submit and reap) leaves it; the submission path runs on CPU 3 in parallel.
    CHECK(b.dir[0].total_ios * 10 > a.dir[0].total_ios * 11);
    CHECK(fraction(a.cpu_sys, a.runtime) > 0.2);
    CHECK(fraction(b.cpu_sys, b.runtime) < 0.01);
    // null_blk completes in the submitter's context: on the SQ thread's CPU, not the job's.
    CHECK(fraction(sq.cpus.at(3).irq, sq.sim_time) > 0.1);
    CHECK(fraction(sq.cpus.at(1).irq, sq.sim_time) < 0.01);
    CHECK(fraction(plain.cpus.at(1).irq, plain.sim_time) > 0.1);
}

TEST_CASE("sqthread_poll at QD8: the SQ thread's spin books only the core's time nothing else took",
          "[sqpoll][nvme]") {
    // Each round ends with a plug flush whose ->queue_rq is charged on the core after the
    // round's step, and completions interrupt the core: the spin that follows starts after
    // them. Booked from the round's end instead, it counted their time twice and the core was
    // busy longer than the run (the run's invariant check throws).
    const auto qd8 = [](const std::string& extra) {
        std::string text = sqpoll_scenario(4, extra, "50ms");
        text.replace(text.find(R"("iodepth": 1)"), 12, R"("iodepth": 8)");
        return testing::run_scenario_text(text, "sqpoll.json");
    };
    const result::RunResult sq = qd8(R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 3)");
    const result::RunResult plain = qd8("");
    REQUIRE(sq.jobs.at(0).dir[0].total_ios > 1000);
    const result::CpuReport& c = sq.cpus.at(3);
    CHECK(c.busy <= sq.sim_time);
    CHECK(fraction(c.busy, sq.sim_time) > 0.99);
    CHECK(c.irq > sim::Duration());
    // The job's CPU has no submission or completion work left, only its spin.
    CHECK(sq.cpus.at(1).irq == sim::Duration());
    CHECK(plain.cpus.at(1).irq > sim::Duration());
    // More I/Os in flight: at least as many IOPS as without the SQ thread.
    CHECK(sq.jobs.at(0).dir[0].total_ios >= plain.jobs.at(0).dir[0].total_ios);
}

TEST_CASE("sqthread_poll without sqthread_poll_cpu: the SQ thread goes to the least loaded CPU", "[sqpoll][nvme]") {
    // The job is on CPU 1: CPU 0 is the lowest numbered idle one.
    const result::RunResult r = run(4, R"(, "sqthread_poll": 1)");
    CHECK(fraction(r.cpus.at(0).busy, r.sim_time) > 0.95);
    CHECK(fraction(r.cpus.at(1).busy, r.sim_time) > 0.95);
    CHECK(fraction(r.cpus.at(2).busy, r.sim_time) < 0.05);
    CHECK(fraction(r.cpus.at(3).busy, r.sim_time) < 0.05);
}

TEST_CASE("sqthread_poll on the job's own CPU: the two spinners share it by the scheduler's slice",
          "[sqpoll][nvme]") {
    // A 2-CPU host: the SQ thread on the other CPU, or on the job's (CPU 1).
    const result::RunResult apart = run(2, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 0)", "100ms");
    const result::RunResult shared = run(2, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 1)", "100ms");
    const result::JobResult& a = apart.jobs.at(0);
    const result::JobResult& s = shared.jobs.at(0);
    REQUIRE(a.dir[0].total_ios > 1000);
    // It still runs, but each I/O waits for the other spinner's slice (6 ms on 2 CPUs).
    CHECK(s.dir[0].total_ios > 0);
    CHECK(s.dir[0].total_ios * 20 < a.dir[0].total_ios);
    CHECK(s.dir[0].lat.mean() > 1'000'000.0);
    CHECK(a.ctx == 0);
    // The shared core is busy all along; the other one idles.
    CHECK(fraction(shared.cpus.at(1).busy, shared.sim_time) > 0.95);
    CHECK(fraction(shared.cpus.at(0).busy, shared.sim_time) < 0.05);
}

TEST_CASE("sqthread_poll: the SQ thread sleeps after sq_thread_idle without work, and is woken by a syscall",
          "[sqpoll][nvme]") {
    // An I/O every 1.5 s (at 0, 1.5 and 3 s): the thread spins 1 s after each, then sleeps
    // 0.5 s: busy about 3 s of 4.4.
    const result::RunResult idle =
        run(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 3, "thinktime": "1500ms")", "4400ms");
    const result::JobResult& j = idle.jobs.at(0);
    REQUIRE(j.dir[0].total_ios >= 2);
    const double busy = fraction(idle.cpus.at(3).busy, idle.sim_time);
    CHECK(busy > 0.5);
    CHECK(busy < 0.8);
}

TEST_CASE("sqthread_poll and sqthread_poll_cpu: bad values are refused, naming the option", "[sqpoll][scenario]") {
    const auto refused = [](const std::string& text, const std::string& what) {
        try {
            scenario::load_scenario_text(text, "sqpoll.json");
            FAIL("accepted");
        } catch (const scenario::ScenarioError& e) {
            CHECK_THAT(e.what(), Catch::Contains(what));
        }
    };
    refused(sqpoll_scenario(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 4)"), "/jobs/0/sqthread_poll_cpu");
    refused(sqpoll_scenario(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": 4)"), "the host has 4 CPUs (0-3)");
    refused(sqpoll_scenario(4, R"(, "sqthread_poll": 1, "sqthread_poll_cpu": -1)"), "/jobs/0/sqthread_poll_cpu");
    std::string libaio = sqpoll_scenario(4, R"(, "sqthread_poll": 1)");
    libaio.replace(libaio.find("io_uring"), 8, "libaio");
    refused(libaio, "sqthread_poll is an option of ioengine io_uring, not of libaio");
}

// A freed tag wakes the SQ thread sleeping for one; it runs later, not inside the put: a
// round played out there took the very tag being put, and the put then cleared the new
// request's driver tag (a tag held by no request). 4 MiB reads split into 1.25 MiB pieces on
// a loop device of 73 tags: the SQ thread sleeps for tags all along.
TEST_CASE("sqthread_poll: a tag's wake-up runs the sleeping SQ thread after the put, not inside it",
          "[sqpoll][loop]") {
    const std::string s = R"({
  "host": { "cpus": 4, "cost_profile": "e3-host", "os_jitter": false },
  "devices": [ { "name": "loop0", "model": "loop", "params": { "cmd_cost": 5000, "copy_mbps": 100000,
                                                               "hw_queue_depth": 73 } } ],
  "jobs": [ { "name": "r", "ioengine": "io_uring", "sqthread_poll": 1, "rw": "randread", "bs": "4m",
              "iodepth": 19, "runtime": "10ms", "time_based": 1 } ]
})";
    const result::RunResult r = testing::run_scenario_text(s, "sqpoll-tags.json");  // checks its invariants
    const result::JobResult& j = r.jobs.at(0);
    CHECK(j.dir[0].total_ios > 20);
    CHECK(j.dir[0].io_bytes == j.dir[0].total_ios * (uint64_t{4} << 20));
}

// IORING_OP_FSYNC on an SQPOLL ring does not block the job: with fsync=1 at QD17 several are
// in flight at once (requeued commands reorder their ends), each reaped from the CQ ring and
// counted once (fio's sync line). Before, one slot held the ended fsync and a second lost it.
TEST_CASE("sqthread_poll with fsync=1: several fsyncs in flight at once, each counted once", "[sqpoll][flush]") {
    const std::string s = R"({
  "host": { "cpus": 8, "cost_profile": "desktop-8t", "os_jitter": false },
  "devices": [ { "name": "nullb0", "model": "null_blk", "params": { "irqmode": 0, "cache_size": 1024,
                                                                    "hw_queue_depth": 1, "submit_queues": 4,
                                                                    "requeue_every": 12 } } ],
  "queues": [ { "device": "nullb0", "scheduler": "mq-deadline", "nr_requests": 4 } ],
  "jobs": [ { "name": "w", "ioengine": "io_uring", "sqthread_poll": 1, "rw": "randwrite", "bs": "16k",
              "iodepth": 17, "fsync": 1, "runtime": "3ms", "time_based": 1 } ]
})";
    const result::RunResult r = testing::run_scenario_text(s, "sqpoll-fsync.json");  // submitted == completed
    const result::JobResult& j = r.jobs.at(0);
    REQUIRE(j.dir[1].total_ios > 10);
    // fsync=1: one fsync after each write (none after the last), whether or not the previous
    // one has ended.
    CHECK(j.sync.total_ios >= j.dir[1].total_ios - 1);
    CHECK(j.sync.total_ios <= j.dir[1].total_ios);
    CHECK(j.sync.lat.count() == j.sync.total_ios);
}
