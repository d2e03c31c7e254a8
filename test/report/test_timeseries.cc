// --timeseries: the queue / tag occupancy CSV (models/report/timeseries.h), against cases
// worked out by hand: a QD32 libaio job on a null_blk that takes 10 ms per request keeps its
// 32 requests at the driver at every sample; behind mq-deadline with 8 driver tags, 8 are at
// the driver, nr_requests = 2 x 8 = 16 scheduler tags are taken and the job sleeps for the
// 17th. The sampler only reads: the run's figures are the same with it on.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/device/raid_config.h"
#include "models/device/null_blk_config.h"
#include "models/report/fio_output.h"
#include "models/report/timeseries.h"
#include "test/models/machine_fixture.h"
#include "tools/scenario/scenario.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct Csv {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::size_t col(const std::string& name) const {
        for (std::size_t i = 0; i < header.size(); ++i)
            if (header[i] == name)
                return i;
        FAIL("no column " << name);
        return 0;
    }
    // Column `name` of row r as a number (an empty cell is -1).
    double at(std::size_t r, const std::string& name) const {
        const std::string& v = rows.at(r).at(col(name));
        return v.empty() ? -1.0 : std::stod(v);
    }
};

Csv parse(const std::string& text) {
    Csv c;
    std::istringstream in(text);
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = line.find(',', start);
            f.push_back(line.substr(start, comma - start));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        if (first)
            c.header = std::move(f);
        else
            c.rows.push_back(std::move(f));
        first = false;
    }
    for (const auto& r : c.rows)
        REQUIRE(r.size() == c.header.size());
    return c;
}

// One libaio randread job at QD32 for 100 ms on a null_blk completing each request 10 ms
// after its issue (irqmode=2), `sched` in front of it.
topology::MachineConfig slow_nullb(const std::string& sched, uint32_t hw_queue_depth) {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 10_ms;
    nb.hw_queue_depth = hw_queue_depth;
    auto m = testing::nullb_machine(2, nb, sched);
    auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::RANDREAD);
    j.iodepth = 32;
    j.runtime = 100_ms;
    j.time_based = true;
    m.jobs.push_back(j);
    return m;
}

struct SeriesRun {
    Csv csv;
    std::string text;
    result::RunResult result;
    uint64_t events = 0;
};

SeriesRun run_with_series(const topology::MachineConfig& cfg, sim::Duration interval) {
    std::ostringstream out;
    SeriesRun r;
    topology::Machine machine(cfg);
    report::attach_timeseries(machine, out, interval);
    r.result = machine.run();
    r.events = machine.events_processed();
    r.text = out.str();
    r.csv = parse(r.text);
    return r;
}

}  // namespace

TEST_CASE("timeseries: a QD32 job on a 10 ms null_blk has its 32 requests at the driver at every sample",
          "[timeseries]") {
    const auto cfg = slow_nullb("none", 64);
    const SeriesRun r = run_with_series(cfg, 5_ms);
    const Csv& c = r.csv;
    REQUIRE(c.header.size() == 13);  // time + 12 queue columns; null_blk adds none
    CHECK(c.header[0] == "time_ns");
    CHECK(c.header[1] == "nullb0:in_flight");
    // Samples at 5, 10, ..., 100 ms, then one at the run's end (after the 100 ms sample: the
    // requests issued at ~90 ms complete at ~100 ms).
    REQUIRE(c.rows.size() == 21);
    const uint64_t total = r.result.jobs.at(0).dir[0].total_ios;
    REQUIRE(total == 320);  // 10 rounds of 32 in 100 ms
    double reads = 0;
    for (std::size_t i = 0; i < c.rows.size(); ++i) {
        reads += c.at(i, "nullb0:reads");
        if (i == 20)
            break;
        INFO("sample " << i);
        CHECK(c.at(i, "time_ns") == static_cast<double>((i + 1) * 5'000'000));
        // Each request is issued a few microseconds after the one it replaces completes, and
        // takes 10 ms: at an instant that is not within microseconds of a completion round,
        // all 32 are at the driver, each with its driver tag, nothing queued anywhere else.
        CHECK(c.at(i, "nullb0:in_flight") == 32);
        CHECK(c.at(i, "nullb0:driver_tags") == 32);
        CHECK(c.at(i, "nullb0:sched_tags") == 0);
        CHECK(c.at(i, "nullb0:sched_queued") == 0);
        CHECK(c.at(i, "nullb0:dispatch") == 0);
        CHECK(c.at(i, "nullb0:sw_queue") == 0);
        CHECK(c.at(i, "nullb0:tag_waiters") == 0);
        // A round completes just after each 10 ms multiple: in the intervals ending at 15,
        // 25, ... ms, with a Q2C of 10 ms plus the submission path.
        if (i % 2 == 0 && i > 0) {
            CHECK(c.at(i, "nullb0:reads") == 32);
            CHECK(c.at(i, "nullb0:read_bytes") == 32 * 4096);
            CHECK(c.at(i, "nullb0:q2c_mean_ns") > 10'000'000);
            CHECK(c.at(i, "nullb0:q2c_mean_ns") < 10'010'000);
        } else {
            CHECK(c.at(i, "nullb0:reads") == 0);
            CHECK(c.at(i, "nullb0:q2c_mean_ns") == -1);  // empty: nothing completed
        }
        CHECK(c.at(i, "nullb0:writes") == 0);
    }
    // The last row is the run's end: everything has completed, and the rows add up to the run.
    CHECK(c.at(20, "time_ns") == static_cast<double>(r.result.sim_time.count()));
    CHECK(c.at(20, "nullb0:in_flight") == 0);
    CHECK(c.at(20, "nullb0:reads") == 32);
    CHECK(reads == static_cast<double>(total));
}

TEST_CASE("timeseries: behind mq-deadline with 8 driver tags 16 scheduler tags are taken and the job sleeps",
          "[timeseries][mq_deadline]") {
    const SeriesRun r = run_with_series(slow_nullb("mq-deadline", 8), 5_ms);
    const Csv& c = r.csv;
    // After the 100 ms of runtime the job still waits for its 16 requests, 8 at a time: two
    // more rounds of 10 ms. Samples every 5 ms up to the end, then the end itself.
    CHECK(r.result.sim_time.count() > 120'000'000);
    CHECK(r.result.sim_time.count() < 121'000'000);
    REQUIRE(c.rows.size() == 25);
    for (std::size_t i = 0; i < 19; ++i) {  // the samples at 5 .. 95 ms
        INFO("sample " << i);
        CHECK(c.at(i, "nullb0:in_flight") == 8);
        CHECK(c.at(i, "nullb0:driver_tags") == 8);
        // nr_requests = 2 * min(depth, 128) = 16 (blk_mq_init_sched): the job has 16 requests,
        // 8 at the driver and 8 waiting for a driver tag (in the elevator or, the one that
        // was dispatched without finding a tag, on hctx->dispatch); it sleeps for the 17th.
        CHECK(c.at(i, "nullb0:sched_tags") == 16);
        CHECK(c.at(i, "nullb0:sched_queued") + c.at(i, "nullb0:dispatch") == 8);
        CHECK(c.at(i, "nullb0:tag_waiters") == 1);
    }
}

TEST_CASE("timeseries: the sampler changes nothing in the run and the file is the same every time",
          "[timeseries][determinism]") {
    const auto cfg = slow_nullb("mq-deadline", 8);
    topology::Machine plain(cfg);
    const result::RunResult without = plain.run();
    const SeriesRun with = run_with_series(cfg, 1_ms);
    CHECK(report::format_json(with.result, false, true) == report::format_json(without, false, true));
    CHECK(report::format_normal(with.result, false) == report::format_normal(without, false));
    // The sampling events are not the model's: the count is the same.
    CHECK(with.events == plain.events_processed());
    CHECK(with.csv.rows.size() == static_cast<std::size_t>(with.result.sim_time.count() / 1'000'000) + 1);
    CHECK(run_with_series(cfg, 1_ms).text == with.text);
}

TEST_CASE("timeseries: the closing row only when the run did not end on a sample", "[timeseries]") {
    std::ostringstream out;
    report::TimeSeriesWriter w(out, 10_ms, {});
    const sim::Time t0 = sim::Time::zero();
    w.start(t0);
    w.sample(t0 + 10_ms);
    w.sample(t0 + 20_ms);
    w.finish(t0 + 20_ms);  // ended on the sample: nothing more
    CHECK(out.str() == "time_ns\n10000000\n20000000\n");
    w.finish(t0 + 25_ms);  // 5 ms later: one more row
    CHECK(w.rows() == 3);
    CHECK(out.str() == "time_ns\n10000000\n20000000\n25000000\n");
    // Intervals below 1 us are raised to it.
    CHECK(report::TimeSeriesWriter(out, 1_ns, {}).interval() == 1_us);
}

TEST_CASE("timeseries: the sampler does not keep a run alive that the progress watch must stop", "[timeseries][invariants]") {
    // null_blk refusing every ->queue_rq: the request bounces between hctx->dispatch and a
    // 3 ms rerun for ever and nothing completes. The sampling event is an observer like the
    // audit: the run still ends with the watch's message, the rows written up to then.
    dev::NullBlkConfig nb;
    nb.requeue_every = 1;
    auto m = testing::nullb_machine(1, nb);
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.number_ios = 8;
    m.jobs.push_back(j);
    std::ostringstream out;
    std::string why;
    {
        topology::Machine machine(m);
        report::attach_timeseries(machine, out, 1_s);
        try {
            machine.run();
        } catch (const std::logic_error& e) {
            why = e.what();
        }
    }
    CHECK(why.find("rule: the run makes progress") != std::string::npos);
    const Csv c = parse(out.str());
    REQUIRE(c.rows.size() >= 120);  // one a second up to the watch's 120 s
    CHECK(c.at(60, "nullb0:reads") == 0);
    CHECK(c.at(60, "nullb0:in_flight") + c.at(60, "nullb0:dispatch") == 1);
}

TEST_CASE("timeseries: an HDD's NCQ queue is the requests at the driver and a RAID controller's disks stay within their depth",
          "[timeseries][hdd][raid]") {
    SECTION("hdd") {
        const auto s = scenario::load_scenario(std::string(BLKSIM_SOURCE_DIR) + "/scenarios/bench/hdd-randread-qd32.json",
                                               {"jobs.0.runtime=2s"});
        const SeriesRun r = run_with_series(s.machine, 100_ms);
        const Csv& c = r.csv;
        REQUIRE(c.header.back() == "sda:dev.dirty_kb");
        REQUIRE(c.rows.size() >= 20);
        for (std::size_t i = 0; i < c.rows.size(); ++i) {
            INFO("sample " << i);
            // Reads only: every command the driver issued is in the drive until it completes.
            CHECK(c.at(i, "sda:dev.queued") == c.at(i, "sda:in_flight"));
            CHECK(c.at(i, "sda:dev.dirty_kb") == 0);
            // While the job runs it keeps 32 commands queued (fio reaps one, submits one).
            if (c.at(i, "time_ns") < 2e9)
                CHECK(c.at(i, "sda:in_flight") == 32);
        }
    }
    SECTION("raid") {
        const auto s = scenario::load_scenario(
            std::string(BLKSIM_SOURCE_DIR) + "/scenarios/examples/raid5-4hdd-randwrite.json", {"jobs.0.runtime=1s"});
        const SeriesRun r = run_with_series(s.machine, 50_ms);
        const Csv& c = r.csv;
        const uint32_t depth = s.machine.devices.at(0).as<dev::RaidConfig>().member_queue_depth;
        std::vector<std::string> members;
        for (const std::string& h : c.header)
            if (h.size() > 7 && h.substr(h.size() - 7) == ".queued")
                members.push_back(h);
        REQUIRE(members.size() == 4);
        double busiest = 0;
        for (std::size_t i = 0; i < c.rows.size(); ++i) {
            for (const std::string& m : members) {
                CHECK(c.at(i, m) <= depth);
                busiest = std::max(busiest, c.at(i, m));
            }
            CHECK(c.at(i, "sda:dev.dirty_lines") >= 0);
        }
        // Random writes behind write back: the destage keeps the disks busy.
        CHECK(busiest > 0);
    }
}

TEST_CASE("timeseries: host-wide tags are one space for all hctxs and are counted once", "[timeseries][tags]") {
    // null_blk shared_tag_bitmap=1: 2 hctxs (CPUs 0-1, 2-3) on one driver tag space of 16,
    // and behind mq-deadline one scheduler tag space of nr_requests = 2 x 16 = 32 for the
    // queue. Two QD32 jobs, on CPU 0 and CPU 2, want 64: the spaces are full, and each job
    // sleeps for a tag. Counted per hctx the same spaces would read 64 and 4 sleepers.
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 10_ms;
    nb.submit_queues = 2;
    nb.hw_queue_depth = 16;
    nb.shared_tag_bitmap = true;
    auto m = testing::nullb_machine(4, nb, "mq-deadline");
    for (const uint32_t cpu : {0u, 2u}) {
        auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::RANDREAD);
        j.name = "cpu" + std::to_string(cpu);
        j.iodepth = 32;
        j.runtime = 100_ms;
        j.time_based = true;
        j.cpus_allowed = {cpu};
        m.jobs.push_back(j);
    }
    const SeriesRun r = run_with_series(m, 5_ms);
    REQUIRE(r.csv.rows.size() > 19);
    for (std::size_t i = 0; i < 19; ++i) {
        INFO("sample " << i);
        CHECK(r.csv.at(i, "nullb0:in_flight") == 16);
        CHECK(r.csv.at(i, "nullb0:driver_tags") == 16);
        CHECK(r.csv.at(i, "nullb0:sched_tags") == 32);
        CHECK(r.csv.at(i, "nullb0:sched_queued") + r.csv.at(i, "nullb0:dispatch") == 16);
        CHECK(r.csv.at(i, "nullb0:tag_waiters") == 2);
    }
}
