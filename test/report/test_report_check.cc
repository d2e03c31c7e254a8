// The last check before a report is printed (result::impossible_in): each impossible figure
// is caught and named, and a possible report passes. The models' own invariants keep these
// from arising, so the report is built by hand here.
#include <catch2/catch.hpp>

#include <string>

#include "models/result/report_check.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// A possible report of a 1 s run: one core, one job, one disk and its queue.
result::RunResult possible() {
    result::RunResult r;
    r.sim_time = 1_s;
    r.cpus.push_back({0, 800_ms, 200_ms, 10_ms});
    result::JobResult j;
    j.name = "job";
    j.cpu_busy = 600_ms;
    j.cpu_sys = 400_ms;
    r.jobs.push_back(std::move(j));
    result::DiskUtil d;
    d.name = "nullb0";
    d.util = 100.0;
    r.disks.push_back(d);
    result::QueueReport q;
    q.name = "nullb0";
    q.q2c.add(0);
    q.q2c.add(1500);
    q.nr_hw_queues = 2;
    q.tag_depth = 32;
    q.tags_in_use_mean = 40.0;  // over both hctxs' tags
    r.queues.push_back(std::move(q));
    return r;
}

}  // namespace

TEST_CASE("report check: a possible report passes, at its bounds too", "[report][invariants]") {
    CHECK(result::impossible_in(possible()).empty());
    result::RunResult r = possible();
    r.cpus[0].busy = 1_s;  // busy all of the run
    r.jobs[0].cpu_busy = 1_s;
    r.jobs[0].cpu_sys = 1_s;
    r.queues[0].tags_in_use_mean = 64.0;  // every tag held all of the run
    CHECK(result::impossible_in(r).empty());
}

TEST_CASE("report check: each impossible figure is named with its rule", "[report][invariants]") {
    struct Case {
        const char* what;
        void (*make)(result::RunResult&);
        const char* named;  // the figure and its owner
        const char* rule;
    };
    const Case cases[] = {
        {"a core busy longer than the run", [](result::RunResult& r) { r.cpus[0].busy = 1_s + 1_ns; },
         "cpu 0 was busy 1000000001 ns", "a core does one thing at a time"},
        {"interrupt time beyond the core's busy time", [](result::RunResult& r) { r.cpus[0].irq = 801_ms; },
         "cpu 0 was busy 800000000 ns (irq 801000000 ns", "a core does one thing at a time"},
        {"spin time beyond the core's busy time", [](result::RunResult& r) { r.cpus[0].spin = 900_ms; },
         "spin 900000000 ns", "a core does one thing at a time"},
        {"a job thread over 100 % of a core", [](result::RunResult& r) { r.jobs[0].cpu_busy = 1_s + 1_us; },
         "job thread 0 ('job') used 1000001000 ns of CPU", "a thread runs on one core at a time"},
        {"a job's system time beyond its CPU time", [](result::RunResult& r) { r.jobs[0].cpu_sys = 601_ms; },
         "(601000000 ns system)", "a thread runs on one core at a time"},
        {"a disk over 100 % utilised", [](result::RunResult& r) { r.disks[0].util = 100.5; },
         "disk nullb0 was 100.50 % utilised", "a device is busy at most all of the run"},
        {"more driver tags in use than exist", [](result::RunResult& r) { r.queues[0].tags_in_use_mean = 64.01; },
         "queue nullb0: 64.0100 driver tags in use on average of 64", "a tag is held by one request at a time"},
        {"a negative stage", [](result::RunResult& r) { r.queues[0].i2d.add(-5); },
         "queue nullb0: a request's I2D lasted -5 ns", "every stage ends at or after its start"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        result::RunResult r = possible();
        c.make(r);
        const std::string why = result::impossible_in(r);
        CHECK_THAT(why, Catch::Contains(c.named));
        CHECK_THAT(why, Catch::Contains(c.rule));
    }
}
