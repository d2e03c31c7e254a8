// Runs that must finish, and reports that must be possible. Each case is a machine on which
// the model once stopped making progress (a waiter nobody would wake) or reported the
// impossible (a core busy more than all the time, a stage ending before it began); each
// names the kernel mechanism that keeps the real block layer going.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "models/blkmq/tags.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

result::RunResult run(const std::string& text) {
    const scenario::Scenario s = scenario::load_scenario_text(text, "progress.json");
    topology::Machine m(s.machine);
    return m.run();
}

void check_stages_non_negative(const result::QueueReport& q) {
    for (const result::StageStat* st : {&q.q2g, &q.g2i, &q.i2d, &q.d2c, &q.q2c}) {
        if (st->stat.count() == 0)
            continue;
        CHECK(st->stat.min() >= 0);
        CHECK(st->stat.max() >= st->stat.min());
    }
}

}  // namespace

TEST_CASE("sbitmap_queue_min_shallow_depth: the wake batch never exceeds what a limited allocation can use",
          "[models][tags][progress]") {
    blkmq::BlkMqTags t(256);
    CHECK(t.wake_batch() == 8);  // clamp(256 / 8, 1, 8)
    t.set_min_shallow_depth(1);
    CHECK(t.wake_batch() == 1);
    t.set_min_shallow_depth(192);  // kyber's async_depth of 256 (75 %)
    CHECK(t.wake_batch() == 8);
    t.set_min_shallow_depth(20);
    CHECK(t.wake_batch() == 2);
}

TEST_CASE("mq-deadline async_depth=1: a writer asleep for a scheduler tag is woken by the last freed tag",
          "[models][tags][progress][mq-deadline]") {
    // The reader keeps one of the 256 tags busy; the writer may only take a tag while none
    // is in use. With a wake batch of 8 it slept through the reader's last completions and
    // was never woken once the reader ended. dd_depth_updated() declares min_shallow_depth 1.
    const auto r = run(R"({"host": {"cpus": 2, "cost_profile": "e2-testbox"},
      "devices": [{"name": "d0", "model": "null_blk"}],
      "queues": [{"device": "d0", "scheduler": "mq-deadline", "iosched": {"async_depth": 1}}],
      "jobs": [{"name": "w", "rw": "write", "runtime": "60ms", "time_based": 1},
               {"name": "r", "rw": "read", "runtime": "10ms", "time_based": 1, "ramp_time": "1ms"}]})");
    REQUIRE(r.jobs.size() == 2);
    CHECK(r.jobs[0].dir[1].total_ios > 0);
    CHECK(r.jobs[1].dir[0].total_ios > 0);
}

TEST_CASE("a queue-wide scheduler's request of another hctx waits on its own hctx, whose completions restart it",
          "[models][progress][mq-deadline]") {
    // mq-deadline hands any hctx's request to the hctx that runs it; when that request's own
    // driver tags are all busy it must wait where its hctx's completions look (the kernel's
    // blk_mq_dispatch_hctx_list), not on a hctx that may have nothing in flight.
    for (const char* nomerges : {"0", "2"}) {
        INFO("nomerges=" << nomerges);
        const auto r = run(std::string(R"({"host": {"cpus": 4, "cost_profile": "desktop-8t"},
          "devices": [{"name": "d0", "model": "null_blk",
                       "params": {"irqmode": 2, "completion_nsec": 1000000, "hw_queue_depth": 4, "submit_queues": 2}}],
          "queues": [{"device": "d0", "scheduler": "mq-deadline", "nomerges": )") + nomerges + R"(}],
          "jobs": [{"name": "j", "ioengine": "io_uring", "rw": "read", "bs": "16k", "iodepth": 8, "numjobs": 4,
                    "runtime": "30ms", "time_based": 1}]})");
        uint64_t ios = 0;
        for (const auto& j : r.jobs)
            ios += j.dir[0].total_ios;
        CHECK(ios > 100);
        // Without merges each I/O is a request: 2 hctxs x 4 tags of 1 ms each for 30 ms, and
        // the ones still in flight at the end.
        if (std::string(nomerges) == "2")
            CHECK(ios <= 2 * 4 * 32);
    }
}

TEST_CASE("a tag set shared between disks: a hctx with no driver tag is run again by any disk's freed tag",
          "[models][tags][progress]") {
    // One tag for two disks behind an HBA (can_queue=1, host_tagset=1): each disk's hctx
    // finds the tag held by the other's command. blk_mq_mark_tag_wait puts the hctx on the
    // tags' wait queue (BLK_MQ_F_TAG_QUEUE_SHARED), so the other disk's completion runs it.
    const auto r = run(R"({"host": {"cpus": 8, "cost_profile": "desktop-8t"},
      "controllers": [{"name": "h", "kind": "hba", "can_queue": 1, "host_tagset": 1}],
      "devices": [{"name": "sda", "model": "hdd", "profile": "hdd-7200-sata", "controller": "h"},
                  {"name": "sdb", "model": "hdd", "profile": "hdd-7200-sata", "controller": "h"}],
      "queues": [{"device": "sda", "scheduler": "mq-deadline"}, {"device": "sdb", "scheduler": "mq-deadline"}],
      "global": {"ioengine": "libaio", "direct": 1, "rw": "randread", "bs": "4k", "iodepth": 64,
                 "runtime": "200ms", "time_based": 1},
      "jobs": [{"name": "a", "device": "sda"}, {"name": "b", "device": "sdb"}]})");
    REQUIRE(r.jobs.size() == 2);
    // One command at a time across both disks, a few ms each: both disks get turns.
    CHECK(r.jobs[0].dir[0].total_ios > 5);
    CHECK(r.jobs[1].dir[0].total_ios > 5);
}

TEST_CASE("a request reaches the driver no earlier than it was inserted (I2D >= 0)", "[models][progress][invariants]") {
    // 4 CPUs on one hctx with 4 driver tags and 1 ms completions: requests pulled from the
    // elevator wait on hctx->dispatch, and a completion processed after a submitter's step
    // (but stamped earlier) used to issue them before their I.
    for (const char* sched : {"mq-deadline", "bfq", "none"}) {
        INFO(sched);
        const auto r = run(std::string(R"({"host": {"cpus": 4, "cost_profile": "desktop-8t"},
          "devices": [{"name": "d0", "model": "null_blk",
                       "params": {"irqmode": 2, "completion_nsec": 1000000, "hw_queue_depth": 4}}],
          "queues": [{"device": "d0", "scheduler": ")") + sched + R"("}],
          "jobs": [{"name": "j", "ioengine": "io_uring", "rw": "read", "bs": "4k", "iodepth": 8, "numjobs": 4,
                    "runtime": "50ms", "time_based": 1}]})");
        REQUIRE(r.queues.size() == 1);
        CHECK(r.queues[0].i2d.stat.count() > 0);
        check_stages_non_negative(r.queues[0]);
    }
}

TEST_CASE("work charged inside a step (a split bio's plug flushes and inline completions) lengthens it",
          "[models][cpu][progress][invariants]") {
    // One psync job on one CPU reading 4 MiB: each bio is split into 8 pieces whose ->queue_rq
    // and softirq completions run on the same CPU inside the submission step. Booked over the
    // step's own time, they would make the core 215 % busy and the job run twice as fast as
    // one core can go.
    const auto r = run(R"({"host": {"cpus": 1, "cost_profile": "desktop-8t"},
      "devices": [{"name": "d0", "model": "null_blk", "params": {"irqmode": 1}}],
      "jobs": [{"name": "j1", "ioengine": "psync", "rw": "read", "bs": "4m", "runtime": "20ms", "time_based": 1}]})");
    REQUIRE(r.cpus.size() == 1);
    CHECK(r.cpus[0].busy <= r.sim_time);
    CHECK(r.cpus[0].irq <= r.cpus[0].busy);
    // The core really is the bottleneck: nearly all of the time is busy.
    CHECK(r.cpus[0].busy.count() > r.sim_time.count() * 9 / 10);
    check_stages_non_negative(r.queues.at(0));
}

TEST_CASE("a replay that waits on purpose longer than the progress window is not a stall", "[models][progress][replay]") {
    // An async engine reaps only when it must: during a recorded 200 s gap nothing is in
    // the kernel and no event happens, so the first audit after the gap sees the next I/O
    // just submitted. The window opens there, not at the audit before the gap.
    const std::filesystem::path log = std::filesystem::temp_directory_path() / "blksim-progress-gap.log";
    {
        std::ofstream f(log);
        f << "fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 0 4096\n"
             "/dev/x wait 200000000 0\n/dev/x read 4096 4096\n/dev/x close\n";
    }
    for (const char* engine : {"libaio", "io_uring", "psync"}) {
        INFO(engine);
        const auto r = run(std::string(R"({"host": {"cpus": 2, "cost_profile": "desktop-8t"},
          "devices": [{"name": "nullb0", "model": "null_blk", "params": {"irqmode": 2, "completion_nsec": "10us"}}],
          "jobs": [{"name": "rep", "ioengine": ")") + engine + R"(", "iodepth": 32, "read_iolog": ")" +
                           log.string() + R"("}]})");
        CHECK(r.jobs.at(0).dir[0].total_ios == 2);
        CHECK(r.sim_time.count() > 200'000'000'000);
    }
    std::filesystem::remove(log);
}

TEST_CASE("disk util never exceeds 100 %: busy periods opened by stamps ahead of the clock do not overlap",
          "[models][progress][invariants]") {
    // 14 io_uring jobs on 7 CPUs, null_blk completing in softirq: issues are stamped inside
    // steps played out ahead of the clock, so a busy period could open before the last one
    // closed and be counted twice (util up to 244 %).
    const auto r = run(R"({"host": {"cpus": 7, "cost_profile": "e2-testbox"},
      "devices": [{"name": "d0", "model": "null_blk", "params": {"hw_queue_depth": 45, "irqmode": 1, "submit_queues": 5}}],
      "queues": [{"device": "d0", "scheduler": "none", "max_sectors_kb": 8, "nr_requests": 64}],
      "jobs": [{"name": "j0", "ioengine": "io_uring", "rw": "read", "bs": "8k", "iodepth": 40, "numjobs": 14,
                "thinktime": "100us", "runtime": "20ms", "time_based": 1}]})");
    REQUIRE(r.disks.size() == 1);
    CHECK(r.disks[0].util > 0.0);
    CHECK(r.disks[0].util <= 100.0);
}

TEST_CASE("a split bio's pieces flushed inside one step take the elevator lock one after the other",
          "[models][progress][mq-deadline]") {
    // 4 MiB psync writes split into 8 pieces of 512 KiB, each flushed from the plug inside the
    // submission step and inserted + dispatched under dd->lock. A piece that asked for the
    // lock before the core had finished the previous pieces' sections spun on its own core
    // and was charged that spin again: the delay doubled with every piece (D at 77 ms, its
    // completion at 64 ms).
    const auto r = run(R"({"host": {"cpus": 4, "cost_profile": "desktop-8t"},
      "devices": [{"name": "d0", "model": "hdd", "params": {"write_cache": 0}}],
      "queues": [{"device": "d0", "scheduler": "mq-deadline", "nomerges": 2}],
      "jobs": [{"name": "j0", "ioengine": "psync", "rw": "write", "bs": "4m", "numjobs": 3,
                "runtime": "100ms", "time_based": 1}]})");
    const result::QueueReport& q = r.queues.at(0);
    check_stages_non_negative(q);
    // Each piece reaches the driver microseconds after its insert, not milliseconds.
    CHECK(q.i2d.stat.count() > 0);
    CHECK(q.i2d.stat.max() < 100'000.0);
}

TEST_CASE("host-wide tags: a hctx that found no driver tag is run again by another hctx's freed tag",
          "[models][tags][progress]") {
    // A RAID card with one command slot and a hctx per CPU over host-wide tags: the second
    // job's request, pulled by its own hctx while the first job's command holds the tag,
    // waited on that hctx for a completion of its own that could never come.
    for (const char* sched : {"mq-deadline", "bfq", "kyber"}) {
        INFO(sched);
        const auto r = run(std::string(R"({"host": {"cpus": 2, "cost_profile": "desktop-8t"},
          "devices": [{"name": "d0", "model": "raid", "members": [{"model": "hdd"}], "params": {"queue_depth": 1}}],
          "queues": [{"device": "d0", "scheduler": ")") + sched + R"("}],
          "jobs": [{"name": "j0", "numjobs": 2, "runtime": "15ms", "time_based": 1}]})");
        REQUIRE(r.jobs.size() == 2);
        CHECK(r.jobs[0].dir[0].total_ios > 0);
        CHECK(r.jobs[1].dir[0].total_ios > 0);
    }
}

TEST_CASE("a dispatch round whose missing driver tag came back while its list went out goes on",
          "[models][progress][kyber]") {
    // One psync job's 128 KiB read split into 16 pieces on a null_blk with 2 tags that
    // completes inline: a round pulls 3 pieces, the third finds no tag, but the first two
    // complete while the list goes out and the third gets one. The round used to stop there
    // although the elevator held more, and nothing ran the hctx again.
    for (const char* sched : {"kyber", "mq-deadline", "bfq"}) {
        INFO(sched);
        const auto r = run(std::string(R"({"host": {"cpus": 2, "cost_profile": "desktop-8t"},
          "devices": [{"name": "d0", "model": "null_blk", "params": {"hw_queue_depth": 2}}],
          "queues": [{"device": "d0", "scheduler": ")") + sched + R"(", "max_sectors_kb": 8}],
          "jobs": [{"name": "j0", "bs": "128k", "runtime": "5ms", "time_based": 1}]})");
        CHECK(r.jobs.at(0).dir[0].total_ios > 10);
    }
}

TEST_CASE("fdatasync with few tags: a flush whose tag came back before its step ended is still submitted",
          "[models][progress][flush]") {
    // Six io_uring jobs at QD1 with fdatasync=1 on a 2-tag null_blk with a write cache. A
    // job whose empty flush found no tag can be woken by a freed tag before its step has
    // ended; it was then put to sleep as if its fsync were in flight, which it never was.
    // The flush is also issued no earlier than the last of its waiters reached the list
    // (their steps are played out ahead of the clock), so none of them ends before D.
    const auto r = run(R"({"host": {"cpus": 5, "cost_profile": "e3-host"},
      "devices": [{"name": "d1", "model": "null_blk",
                   "params": {"cache_size": 16, "fua": 0, "hw_queue_depth": 2, "irqmode": 0}}],
      "queues": [{"device": "d1", "scheduler": "none", "nomerges": 2}],
      "jobs": [{"name": "j0", "ioengine": "io_uring", "rw": "write", "bs": "16k", "iodepth": 1, "fdatasync": 1,
                "numjobs": 6, "runtime": "9ms", "time_based": 1}]})");
    REQUIRE(r.jobs.size() == 6);
    for (const auto& j : r.jobs)
        CHECK(j.sync.lat.count() > 0);
    check_stages_non_negative(r.queues.at(0));
    // A completion inside ->queue_rq frees its tag at an instant charged ahead of the clock;
    // a job whose event comes in between must not take it before then (it took 2.32 of 2).
    CHECK(r.queues.at(0).tags_in_use_mean <= 2.0);
}

namespace {

// Two rate-limited jobs arriving at random (Poisson) on a SATA SSD under mq-deadline, with a
// 50 us hard-irq handler: a completion frees its tags when its work after the handler ends,
// ahead of the clock, and a job that submits in between finds none with nothing else at
// the drive.
// `device_params` and `nr_requests` make the one tag short: the drive's or the scheduler's.
result::RunResult two_jobs_one_tag(const std::string& device_params, int nr_requests) {
    return run(R"({"host": {"cpus": 4, "cost_profile": "e3-host", "costs": {"irq": "50us"}},
      "devices": [{"name": "sda", "model": "sata_ssd", "profile": "samsung-860evo-500g",
                   "params": )" + device_params + R"(}],
      "queues": [{"device": "sda", "scheduler": "mq-deadline", "nr_requests": )" + std::to_string(nr_requests) + R"(}],
      "jobs": [{"name": "j", "device": "sda", "ioengine": "libaio", "direct": 1, "rw": "randread", "bs": "4k",
                "iodepth": 1, "numjobs": 2, "rate_iops": 300, "rate_process": "poisson",
                "runtime": "2s", "time_based": 1}]})");
}

}  // namespace

TEST_CASE("a dispatch that finds its hctx's one tag freed at a later instant is rerun then",
          "[models][progress][tags]") {
    // One NCQ tag. That completion's restart came first in the event order; without a rerun
    // at the tag's instant the request stayed on hctx->dispatch until the next submission,
    // milliseconds later (5.9 ms).
    const auto r = two_jobs_one_tag(R"({"queue_depth": 1})", 0);
    REQUIRE(r.jobs.size() == 2);
    REQUIRE(r.queues.at(0).driver_tag_waits > 0);  // the case arose
    // At worst a request waits for the other job's command and a handler besides its own:
    // 2 x (10.2 us command + 70 us flash read + 50 us handler) and the link, well under 1 ms.
    for (const auto& j : r.jobs)
        CHECK(j.dir[0].clat.max() < 1'000'000);
}

TEST_CASE("a task that sleeps for a tag freed at a later instant is woken then", "[models][progress][tags]") {
    // One scheduler tag: the job sleeps in blk_mq_get_tag. The put came first in the event
    // order, with nobody asleep; it must still count for the sleeper at its instant
    // (BlkMqTags::replay), or the sleeper waits for the next put, milliseconds later (5.9 ms).
    const auto r = two_jobs_one_tag("{}", 1);
    REQUIRE(r.jobs.size() == 2);
    REQUIRE(r.queues.at(0).sched_tag_sleeps > 0);  // the case arose
    // A sleeper waits at most for the other job's read and its handler (~130 us) and its
    // own wake-up: well under 1 ms in io_submit().
    for (const auto& j : r.jobs)
        CHECK(j.dir[0].slat.max() < 1'000'000);
}

TEST_CASE("a task woken in its step by a tag freed after the step's end sleeps until then",
          "[models][progress][tags]") {
    // One scheduler tag (kyber, nr_requests=1) on a loop device; a 1 MiB write split in two
    // takes the tag for its first half and sleeps for the second, while the other job's
    // flush sleeps too. The loop worker's completion puts the tag at the end of its work,
    // after the first job's long step (the plug flush ran the half's queue_rq) has ended,
    // and that put's wake-up reaches the job still in that step. The job must sleep on to
    // the put's instant: going on at once, it tried the tag before it was free, slept again
    // with the wake-up spent, and nothing freed a tag again (the run stalled; invariant
    // search seed 68433).
    const auto r = run(R"({"host": {"cpus": 8, "cost_profile": "desktop-8t",
                                    "vcpu_preemption": [{"mean": "20us", "per_s": 1000}]},
      "devices": [{"name": "d0", "model": "loop",
                   "params": {"blocksize": 512, "cmd_cost": 500, "copy_mbps": 100000, "hw_queue_depth": 72}}],
      "queues": [{"device": "d0", "scheduler": "kyber", "nr_requests": 1}],
      "jobs": [{"name": "j0", "ioengine": "psync", "rw": "randwrite", "bs": "8k", "fsync": 1, "rate_iops": 20000,
                "runtime": "18297us", "time_based": 1},
               {"name": "j1", "ioengine": "psync", "rw": "write", "bs": "1m", "end_fsync": 1,
                "runtime": "4469us", "time_based": 1}],
      "seed": 68433})");
    REQUIRE(r.jobs.size() == 2);
    CHECK(r.jobs[1].dir[1].total_ios > 0);
    CHECK(r.queues.at(0).sched_tag_sleeps > 0);
}

TEST_CASE("a device that defers a command for another hctx's reruns every hctx when it completes one",
          "[models][progress][flush]") {
    // A SATA SSD behind an HBA with two hardware queues: the drive defers a flush while
    // another command runs (BLK_STS_DEV_RESOURCE, ATA's non-queued command rule). The
    // deferred flush sat on its own hctx, and only the hctx of the completing command was
    // run again; the driver's promise is a rerun of the device's queues (SCSI's
    // scsi_run_queue_async runs every hw queue).
    const auto r = run(R"({"host": {"cpus": 2, "cost_profile": "e3-host"},
      "controllers": [{"name": "hba0", "kind": "hba", "can_queue": 256, "nr_hw_queues": 2}],
      "devices": [{"name": "d0", "model": "sata_ssd", "controller": "hba0", "params": {"write_cache": 1}}],
      "queues": [{"device": "d0", "scheduler": "none"}],
      "jobs": [{"name": "j0", "ioengine": "psync", "rw": "write", "bs": "4k", "end_fsync": 1, "numjobs": 2,
                "runtime": "1ms", "time_based": 1}]})");
    REQUIRE(r.jobs.size() == 2);
    CHECK(r.queues.at(0).flushes >= 2);
}

TEST_CASE("a requeued request is inserted again no earlier than it was allocated (G2I >= 0)",
          "[models][progress][invariants]") {
    // null_blk refusing every 9th command: the refused request goes to the requeue list from
    // a step stamped ahead of the clock, and the requeue work queued earlier by another CPU
    // inserted it before its own G.
    const auto r = run(R"({"host": {"cpus": 3, "cost_profile": "desktop-8t"},
      "devices": [{"name": "d0", "model": "null_blk",
                   "params": {"blocksize": 1024, "hw_queue_depth": 4, "irqmode": 1, "requeue_every": 9}}],
      "jobs": [{"name": "r", "ioengine": "io_uring", "rw": "read", "bs": "16k", "iodepth": 5, "numjobs": 11,
                "runtime": "6ms", "time_based": 1},
               {"name": "w", "ioengine": "libaio", "rw": "rw", "bs": "4m", "iodepth": 5, "iodepth_batch_submit": 5,
                "fsync": 1, "numjobs": 5, "runtime": "16ms", "time_based": 1}]})");
    CHECK(r.queues.at(0).requeues > 0);
    check_stages_non_negative(r.queues.at(0));
}

TEST_CASE("a refused request gives its driver tag back, and a requeued flush bypasses the scheduler",
          "[models][progress][flush][kyber]") {
    // One driver tag, kyber, fdatasync writers, null_blk refusing every 18th command. A
    // request refused with BLK_STS_RESOURCE kept its driver tag on hctx->dispatch behind the
    // flush, which then waited for that tag for ever (__blk_mq_requeue_request puts it back
    // when the request has a scheduler tag). A refused flush requeued by the driver went
    // into kyber's lists (blk_mq_insert_request puts a REQ_OP_FLUSH at the dispatch head).
    const auto r = run(R"({"host": {"cpus": 3, "cost_profile": "desktop-8t"},
      "devices": [{"name": "d0", "model": "null_blk",
                   "params": {"cache_size": 1024, "fua": 0, "hw_queue_depth": 1, "irqmode": 0, "requeue_every": 18}}],
      "queues": [{"device": "d0", "scheduler": "kyber"}],
      "jobs": [{"name": "j0", "ioengine": "psync", "rw": "write", "bs": "16k", "fdatasync": 2, "numjobs": 6,
                "runtime": "15ms", "time_based": 1}]})");
    REQUIRE(r.jobs.size() == 6);
    for (const auto& j : r.jobs)
        CHECK(j.sync.lat.count() > 0);
    CHECK(r.queues.at(0).resource_requeues > 0);
}

TEST_CASE("requests of another hctx in a round go out in their own hctx's batch",
          "[models][progress][mq-deadline]") {
    // mq-deadline over six hctxs hands out any hctx's requests; null_blk refuses every third
    // command. Once, a round failing on one request left the other hctxs' requests, with the
    // driver tags it had taken for them, on their own dispatch lists untried: in time a
    // hctx's tags were all held there, behind a refused request without one, with nothing at
    // the driver. As in the kernel (blk_mq_dispatch_hctx_list), each hctx's requests are now
    // tried on their own hctx, whatever became of another's.
    const auto r = run(R"({"host": {"cpus": 6, "cost_profile": "desktop-8t"},
      "devices": [{"name": "d0", "model": "null_blk",
                   "params": {"hw_queue_depth": 211, "irqmode": 0, "requeue_every": 3, "submit_queues": 6}}],
      "queues": [{"device": "d0", "scheduler": "mq-deadline", "max_sectors_kb": 4, "nomerges": 1,
                  "iosched": {"write_expire": 0}}],
      "jobs": [{"name": "j1", "ioengine": "io_uring", "rw": "write", "bs": "1m", "iodepth": 14,
                "iodepth_batch_submit": 2, "iodepth_batch_complete_min": 1, "numjobs": 13, "rate_iops": 1000,
                "ramp_time": "1111us", "runtime": "14915us", "time_based": 1}]})");
    REQUIRE(r.jobs.size() == 13);
    CHECK(r.queues.at(0).resource_requeues > 0);
    check_stages_non_negative(r.queues.at(0));
}

TEST_CASE("a request a dispatch round left on hctx->dispatch is not issued by a run stamped before",
          "[models][progress][tags]") {
    // kyber on null_blk refusing every 12th command (requeue_every), on vCPUs the hypervisor
    // preempts for about a millisecond: a round on such a CPU, played out ahead of the clock,
    // took a driver tag far ahead and left its request on hctx->dispatch; another CPU's run,
    // stamped earlier, issued it there and then, before its tag was taken. The tag was then
    // held from after its own put, and the report showed a negative number of driver tags in
    // use (invariant search seed 83421). A run issues such a request no earlier than the
    // round that left it there (Request::t_listed), as it does for its insertion.
    const auto r = run(R"({"host": {"cpus": 6, "cost_profile": "e3-host", "run_to_parity": true, "shared_llc": false,
                                    "submit_bio_plug": true, "vcpu_preemption": [{"mean": "1ms", "per_s": 100}]},
      "devices": [{"name": "d0", "model": "null_blk",
                   "params": {"completion_nsec": 1000, "hw_queue_depth": 178, "irqmode": 2, "requeue_every": 12,
                              "submit_queues": 6}}],
      "queues": [{"device": "d0", "scheduler": "kyber", "max_sectors_kb": 4}],
      "jobs": [{"name": "j0", "ioengine": "psync", "rw": "read", "bsrange": "512-65536", "numjobs": 9,
                "ramp_time": "1675us", "runtime": "5518us", "thinktime": "1000us", "time_based": 1},
               {"name": "j1", "ioengine": "io_uring", "rw": "randwrite", "bs": "1m", "iodepth": 35,
                "iodepth_batch_submit": 4, "numjobs": 5, "ramp_time": "1463us", "runtime": "13659us",
                "thinktime": "1000us", "time_based": 1}],
      "seed": 83421})");
    const result::QueueReport& q = r.queues.at(0);
    REQUIRE(q.d2c.stat.count() > 0);
    CHECK(q.tags_in_use_mean >= 0.0);
    CHECK(q.tags_in_use_mean <= static_cast<double>(q.tag_depth * q.nr_hw_queues));
    check_stages_non_negative(q);
}

TEST_CASE("a hctx's one driver tag is not held on its dispatch list by another hctx's round",
          "[models][progress][tags][mq-deadline]") {
    // mq-deadline (queue-wide) over four hctxs of one driver tag each, null_blk refusing every
    // 12th command, fsyncs from SQ threads, vCPU stalls (invariant search seed 75734). A round
    // on one hctx that failed on another hctx's request left this hctx's request, holding
    // its one driver tag, untried on its dispatch list; a flush queued at the list's head
    // then waited for that tag with nothing at the driver to free it: a stall. Each hctx's
    // requests now go out in their own batch (blk_mq_dispatch_hctx_list), as in the kernel.
    const auto r = run(R"({"host": {"cost_profile": "desktop-8t", "cpus": 8,
                                    "vcpu_preemption": [{"mean": "1ms", "per_s": 100}]},
      "devices": [{"name": "d0", "model": "null_blk",
                   "params": {"cache_size": 1024, "fua": 0, "hw_queue_depth": 1, "irqmode": 0, "requeue_every": 12,
                              "submit_queues": 4}}],
      "queues": [{"device": "d0", "scheduler": "mq-deadline", "nr_requests": 4, "max_sectors_kb": 8,
                  "iosched": {"write_expire": 5000, "writes_starved": 2}}],
      "jobs": [{"name": "j0", "ioengine": "io_uring", "rw": "randwrite", "bs": "1024", "direct": 1, "fsync": 1,
                "iodepth": 17, "numjobs": 5, "prio": 6, "prioclass": 1, "rate": "50m", "runtime": "8523us",
                "sqthread_poll": 1, "time_based": 1}],
      "seed": 75734})");
    REQUIRE(r.jobs.size() == 5);
    for (const auto& j : r.jobs)
        CHECK(j.sync.lat.count() > 0);
    CHECK(r.queues.at(0).resource_requeues > 0);
    check_stages_non_negative(r.queues.at(0));
}
