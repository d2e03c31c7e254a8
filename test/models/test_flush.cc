// FLUSH / FUA end to end (blk-flush.c in models/blkmq/blk_flush.cc): fio's fsync / sync
// options through the job thread, the flush machine, the schedulers, the devices' caches,
// and what the report and the trace show of it.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "models/report/blkparse_writer.h"
#include "models/report/blktrace_format.h"
#include "models/report/blktrace_writer.h"
#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "test/models/scenario_run.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

// One device, one job; `job` and `params` are spliced into the JSON.
std::string flush_scenario(const std::string& model, const std::string& params, const std::string& job,
                     const std::string& scheduler = "none") {
    return R"({
  "host": { "cpus": 2, "cost_profile": "desktop-8t", "os_jitter": false },
  "devices": [ { "name": "sda", "model": ")" + model + R"(", )" +
           (model == "hdd" ? R"("profile": "hdd-7200-sata", )" : "") + R"("params": { )" + params + R"( } } ],
  "queues": [ { "device": "sda", "scheduler": ")" + scheduler + R"(" } ],
  "jobs": [ { "name": "w", )" + (job.find("ioengine") == std::string::npos ? R"("ioengine": "psync", )" : "") +
           R"("direct": 1, "rw": "randwrite", "bs": "4k", "size": "4g", )" + job + R"( } ]
})";
}

result::RunResult run(const std::string& text) { return testing::run_scenario_text(text, "flush.json"); }

double field(const result::RunResult& r, const std::string& key) { return testing::device_field(r, key); }

}  // namespace

TEST_CASE("fsync=1 on an HDD with its write cache on: writes are acknowledged from the cache, each fsync waits "
          "for the media", "[flush][hdd]") {
    const auto r = run(flush_scenario("hdd", R"("write_cache": 1)", R"("fsync": 1, "number_ios": 40)"));
    const result::JobResult& j = r.jobs.at(0);
    REQUIRE(j.dir[1].total_ios == 40);
    // fio's fsync after every write but the last: 39 (fio issues none after the job's last write).
    CHECK(j.sync.total_ios == 39);
    CHECK(j.sync.lat.count() == 39);
    CHECK(field(r, "write_back_acks") == 40);
    CHECK(field(r, "write_through") == 0);
    // Each flush waited for its write to reach the media (the head starts destaging as soon
    // as it is idle, so some flushes find it half done): a random 4 KiB write costs a seek and
    // a rotation, milliseconds; the cached acknowledgements cost tens of microseconds.
    CHECK(j.dir[1].clat.max() < 200'000.0);
    CHECK(j.sync.lat.min() > j.dir[1].clat.max());
    CHECK(j.sync.lat.mean() > 2'000'000.0);
    CHECK(field(r, "destages") >= 39);
    CHECK(r.queues.at(0).flushes == 39);
    CHECK(field(r, "flushes") == 39);
}

TEST_CASE("No write cache: REQ_PREFLUSH is stripped, an empty flush ends at once, the device sees no flush",
          "[flush][hdd]") {
    const auto r = run(flush_scenario("hdd", R"("write_cache": 0)", R"("fsync": 1, "number_ios": 20)"));
    const result::JobResult& j = r.jobs.at(0);
    CHECK(j.sync.total_ios == 19);
    CHECK(r.queues.at(0).flushes == 0);
    CHECK(field(r, "flushes") == 0);
    CHECK(field(r, "write_through") == 20);
    CHECK(j.dir[1].clat.min() > 1'000'000.0);    // written through: media time
    CHECK(j.sync.lat.max() < 50'000.0);          // the syscall and nothing else
    // Disk stats: the 20 writes only (the empty flushes never became requests).
    CHECK(r.disks.at(0).ios[1] == 20);
}

TEST_CASE("Concurrent fsyncs share flushes: one in flight per hctx, the others wait for the next", "[flush][hdd]") {
    const auto r = run(flush_scenario("hdd", R"("write_cache": 1)", R"("fsync": 1, "numjobs": 8, "number_ios": 30)"));
    uint64_t syncs = 0;
    for (const auto& j : r.jobs)
        syncs += j.sync.total_ios;
    REQUIRE(syncs == 8 * 29);
    INFO("device flushes " << r.queues.at(0).flushes << " for " << syncs << " fsyncs");
    CHECK(r.queues.at(0).flushes < syncs * 3 / 4);
    CHECK(r.queues.at(0).flushes > 0);
}

TEST_CASE("sync=1: O_SYNC direct writes are FUA; the HDD writes them through, or the block layer adds a "
          "post-flush when the drive has no FUA", "[flush][hdd]") {
    SECTION("FUA honoured") {
        const auto r = run(flush_scenario("hdd", R"("write_cache": 1)", R"("sync": 1, "number_ios": 20)"));
        const result::JobResult& j = r.jobs.at(0);
        CHECK(field(r, "fua_writes") == 20);
        CHECK(field(r, "write_back_acks") == 0);
        CHECK(field(r, "write_through") == 20);
        CHECK(j.dir[1].clat.min() > 1'000'000.0);  // media time, not the cache's
        CHECK(r.queues.at(0).flushes == 0);
        CHECK(j.sync.lat.count() == 0);
    }
    SECTION("no FUA: DATA then POSTFLUSH") {
        const auto r = run(flush_scenario("hdd", R"("write_cache": 1, "fua": 0)", R"("sync": "dsync", "number_ios": 20)"));
        const result::JobResult& j = r.jobs.at(0);
        CHECK(field(r, "write_back_acks") == 20);
        CHECK(r.queues.at(0).flushes == 20);
        CHECK(j.dir[1].clat.min() > 1'000'000.0);  // the post-flush waited for the media
    }
    SECTION("no write cache: a plain write") {
        const auto r = run(flush_scenario("hdd", R"("write_cache": 0)", R"("sync": 1, "number_ios": 20)"));
        CHECK(field(r, "fua_writes") == -1);  // none reached the drive (the field is then left out)
        CHECK(r.queues.at(0).flushes == 0);
    }
}

TEST_CASE("Flushes through every scheduler and engine, on every device with a write cache", "[flush]") {
    for (const std::string sched : {"none", "mq-deadline", "kyber", "bfq"}) {
        for (const std::string engine : {"psync", "libaio", "io_uring"}) {
            INFO(sched << " " << engine);
            const std::string job = R"("ioengine": ")" + engine + R"(", "iodepth": 8, "fsync": 4, "number_ios": 200, )"
                                    R"("end_fsync": 1)";
            const auto hdd = run(flush_scenario("hdd", R"("write_cache": 1, "fua": 0)", job, sched));
            CHECK(hdd.jobs.at(0).sync.total_ios == 49);
            CHECK(hdd.queues.at(0).flushes > 0);
            const auto ssd = run(flush_scenario("sata_ssd", "", job + R"(, "sync": 1)", sched));
            CHECK(ssd.jobs.at(0).sync.total_ios == 49);
            CHECK(ssd.queues.at(0).flushes > 0);
            const auto nvme = run(flush_scenario("nvme", R"("volatile_write_cache": 1, "fua": 0)", job + R"(, "sync": 1)", sched));
            CHECK(nvme.queues.at(0).flushes > 49);  // the fsyncs' and the FUA-less writes' post-flushes
            const auto nullb = run(flush_scenario("null_blk", R"("cache_size": 64, "irqmode": 0)", job, sched));
            CHECK(nullb.queues.at(0).flushes > 0);
            const auto nocache = run(flush_scenario("null_blk", "", job, sched));
            CHECK(nocache.queues.at(0).flushes == 0);
            CHECK(nocache.jobs.at(0).sync.total_ios == 49);
        }
    }
}

TEST_CASE("An fsync whose flush finds no tag sleeps for one and is woken by the next freed tag", "[flush]") {
    // nr_requests=1: the one scheduler tag is held by the write in flight when the fsync's
    // empty REQ_PREFLUSH bio asks for a request, so the thread sleeps in blk_mq_get_tag
    // inside fsync(). Only a freed tag can wake it; a thread put to sleep as if the flush were
    // already submitted would never run again (the run stalls).
    for (const std::string sched : {"kyber", "mq-deadline", "bfq"}) {
        INFO(sched);
        const std::string text = R"({"host": {"cpus": 1, "cost_profile": "desktop-8t"},
          "devices": [{"name": "d0", "model": "sata_ssd"}],
          "queues": [{"device": "d0", "scheduler": ")" + sched + R"(", "nr_requests": 1}],
          "jobs": [{"name": "j0", "ioengine": "io_uring", "rw": "randwrite", "bs": "4k", "iodepth": 2,
                    "number_ios": 50, "fsync": 1}]})";
        const auto r = run(text);
        CHECK(r.jobs.at(0).dir[1].total_ios == 50);
        CHECK(r.jobs.at(0).sync.total_ios == 49);
        CHECK(r.queues.at(0).flushes > 0);
    }
    // Without an elevator the flush waits for a driver tag: 64 jobs at QD64 on 32 NCQ tags.
    // Each job gets a few writes and fsyncs in (the drive's flushes are slow): over 50 ms at
    // least two, where one still in flight at the end would not count.
    const auto many = run(R"({"host": {"cpus": 2, "cost_profile": "desktop-8t"},
      "devices": [{"name": "d0", "model": "sata_ssd"}],
      "jobs": [{"name": "w", "ioengine": "libaio", "rw": "randwrite", "bs": "4k", "iodepth": 64,
                "numjobs": 64, "fsync": 1, "runtime": "50ms", "time_based": 1}]})");
    REQUIRE(many.jobs.size() == 64);
    for (const auto& j : many.jobs)
        CHECK(j.sync.total_ios > 0);
}

TEST_CASE("end_fsync: one flush at the end, neither timed nor counted", "[flush]") {
    const auto r = run(flush_scenario("hdd", R"("write_cache": 1)", R"("number_ios": 10, "end_fsync": 1)"));
    CHECK(r.queues.at(0).flushes == 1);
    CHECK(r.jobs.at(0).sync.total_ios == 0);
    CHECK(r.jobs.at(0).sync.lat.count() == 0);
    // The job's runtime covers it: the 10 cached writes take well under a millisecond.
    CHECK(r.jobs.at(0).runtime > sim::Duration::ns(1'000'000));
}

TEST_CASE("fdatasync: timed in the sync latency, not counted in issued rwts (fio's DDIR_DATASYNC)", "[flush]") {
    const auto r = run(flush_scenario("hdd", R"("write_cache": 1)", R"("fdatasync": 2, "number_ios": 20)"));
    CHECK(r.jobs.at(0).sync.total_ios == 0);
    CHECK(r.jobs.at(0).sync.lat.count() == 9);
    CHECK(r.queues.at(0).flushes == 9);
}

TEST_CASE("Trace: rwbs of flushes and FUA as blkparse prints them, the blktrace category bits", "[flush][trace]") {
    // The blkparse text of a run on an HDD with its write cache on, `job` the job's options.
    const auto trace_of = [](const std::string& job) {
        const scenario::Scenario sc = scenario::load_scenario_text(flush_scenario("hdd", R"("write_cache": 1)", job), "f.json");
        topology::Machine m(sc.machine);
        std::ostringstream text;
        {
            report::BlkparseWriter w(text, report::sim_trace_devices({"sda"}), "fio");
            m.set_trace(&w);
            m.run();
        }
        return text.str();
    };
    const std::string t = trace_of(R"("fsync": 1, "number_ios": 2)");
    INFO(t);
    CHECK_THAT(t, Catch::Contains("  Q FWS [fio]\n"));   // fsync's empty REQ_PREFLUSH write
    CHECK_THAT(t, Catch::Contains("  G FWS [fio]\n"));
    CHECK_THAT(t, Catch::Contains("  D  FN [fio]\n"));   // the flush machinery's REQ_OP_FLUSH
    CHECK_THAT(t, Catch::Contains("  C  FN 0 [0]\n"));
    CHECK_THAT(t, Catch::Contains("  C  WS 0 [0]\n"));   // the fsync's request ends after it
    CHECK_THAT(t, Catch::Contains("  D  WS "));          // the writes themselves: plain

    CHECK_THAT(trace_of(R"("sync": 1, "number_ios": 1)"), Catch::Contains("  Q WFS ") && Catch::Contains("  D WFS ") && Catch::Contains("  C WFS "));

    namespace bt = report::blktrace;
    blkmq::TraceEvent e;
    e.action = blkmq::TraceAction::ISSUE;
    e.flush = true;
    e.request = true;
    const uint32_t flush_word = report::BlktraceWriter::action_word(e);
    CHECK((flush_word & bt::tc_act(bt::TC_FLUSH)) != 0);
    CHECK((flush_word & bt::tc_act(bt::TC_WRITE)) == 0);  // REQ_OP_FLUSH is no write: BLK_TC_READ
    CHECK((flush_word & bt::tc_act(bt::TC_READ)) != 0);
    e.flush = false;
    e.fua = true;
    e.write = e.sync = true;
    const uint32_t fua_word = report::BlktraceWriter::action_word(e);
    CHECK((fua_word & bt::tc_act(bt::TC_FUA)) != 0);
    CHECK((fua_word & bt::tc_act(bt::TC_FLUSH)) == 0);
    CHECK(fua_word == (bt::TA_ISSUE | bt::tc_act(bt::TC_ISSUE | bt::TC_WRITE | bt::TC_SYNC | bt::TC_FS | bt::TC_FUA)));
}

TEST_CASE("Runs without sync options are unchanged by the flush machinery (no flush fields in the report)",
          "[flush]") {
    const auto r = run(flush_scenario("hdd", R"("write_cache": 1)", R"("number_ios": 20)"));
    CHECK(r.queues.at(0).flushes == 0);
    CHECK(r.jobs.at(0).sync.lat.count() == 0);
    const std::string extras = report::format_blksim_extras(r);
    CHECK_THAT(extras, !Catch::Contains("flushes=1") && !Catch::Contains("flush_time_mean"));
    const std::string normal = report::format_normal(r, false);
    CHECK_THAT(normal, !Catch::Contains("fsync/fdatasync") && Catch::Contains("issued rwts: total=0,20,0,0 "));
}

TEST_CASE("The sync block in fio's normal and JSON formats (stat.c show_ddir_status / add_ddir_status_json "
          "for DDIR_SYNC)", "[flush][report]") {
    result::RunResult r;
    result::JobResult j;
    j.name = "w";
    j.runtime = sim::Duration::ns(1'000'000'000);
    j.dir[1].io_bytes = 4096 * 3;
    j.dir[1].total_ios = 3;
    for (int i = 0; i < 3; ++i)
        j.dir[1].add_clat(20'000);
    j.sync.total_ios = 2;
    for (const uint64_t ns : {161'000ull, 345'000ull}) {
        j.sync.lat.add(static_cast<double>(ns));
        j.sync.hist.add(ns);
    }
    r.jobs.push_back(j);
    r.sim_time = j.runtime;
    const std::string t = report::format_normal(r, false);
    INFO(t);
    // fio 3.33's lines: the heading, display_lat("sync") in usec, the percentile block.
    CHECK_THAT(t, Catch::Contains("  fsync/fdatasync/sync_file_range:\n"
                                  "    sync (usec): min=161, max=345, avg=253.00, stdev=130.11\n"
                                  "    sync percentiles (usec):\n"
                                  "     |  1.00th=[  161],  5.00th=[  161], 10.00th=[  161], 20.00th=[  161],\n"));
    // It comes after the lat distribution and before the cpu line, as in fio.
    CHECK(t.find("  lat (usec)") < t.find("  fsync/fdatasync"));
    CHECK(t.find("  fsync/fdatasync") < t.find("  cpu          :"));
    CHECK_THAT(t, Catch::Contains("     issued rwts: total=0,3,0,2 short=0,0,0,0 dropped=0,0,0,0\n"));

    const std::string js = report::format_json(r, false);
    const auto at = js.find("\"sync\" : {");
    REQUIRE(at != std::string::npos);
    const std::string sync = js.substr(at, js.find("\"job_runtime\"", at) - at);
    INFO(sync);
    CHECK_THAT(sync, Catch::Contains("\"total_ios\" : 2,") && Catch::Contains("\"lat_ns\" : {") &&
                         Catch::Contains("\"min\" : 161000,") && Catch::Contains("\"max\" : 345000,") &&
                         Catch::Contains("\"N\" : 2,") && Catch::Contains("\"percentile\" : {") &&
                         Catch::Contains("\"99.000000\" : "));
}

TEST_CASE("fio job files: fsync, fdatasync, sync, end_fsync, fsync_on_close decode; bad values name the option",
          "[flush][fio]") {
    const auto job = [](const std::string& opts) {
        return scenario::load_scenario_text(
            R"({ "host": { "cpus": 1, "cost_profile": "desktop-8t" }, "devices": [ { "name": "nullb0", "model": "null_blk" } ],
                 "jobs": [ { "name": "j", "rw": "write", )" + opts + R"( } ] })", "j.json");
    };
    const auto s = job(R"("fsync": "8", "fdatasync": 0, "sync": "dsync", "fsync_on_close": 1)");
    const workload::JobConfig& c = s.machine.jobs.at(0);
    CHECK(c.fsync_blocks == 8);
    CHECK(c.fdatasync_blocks == 0);
    CHECK(c.sync_writes);
    CHECK(c.end_fsync);
    CHECK_FALSE(job(R"("sync": "none")").machine.jobs.at(0).sync_writes);
    CHECK(job(R"("sync": 1, "end_fsync": true)").machine.jobs.at(0).end_fsync);
    const auto error = [&](const std::string& opts) -> std::string {
        try {
            job(opts);
        } catch (const scenario::ScenarioError& e) {
            return e.what();
        }
        return "no error";
    };
    CHECK_THAT(error(R"("fsync": -1)"), Catch::Contains("/jobs/0/fsync"));
    CHECK_THAT(error(R"("fsync": "often")"), Catch::Contains("/jobs/0/fsync"));
    CHECK_THAT(error(R"("sync": "2")"), Catch::Contains("/jobs/0/sync"));
    CHECK_THAT(error(R"("end_fsync": "yes")"), Catch::Contains("/jobs/0/end_fsync"));
}
