// fio's cmdprio_bssplit end to end (fio 3.33 engines/cmdprio.c): each entry's share of the
// I/Os of its block size gets the entry's priority and no other size is touched; the
// per-priority clat statistics come out in fio's order (the job's priority first, then the
// entries' by block size), which a real fio 3.33 run shows:
//
//   fio --ioengine=libaio --rw=randread --bssplit=4k/50:64k/50 --norandommap
//       --cmdprio_bssplit=64k/50/1/0:4k/20/3/0 ...
//   clat prio 0/0 (64.50% of IOs), clat prio 3/0 (10.76% of IOs), clat prio 1/0 (24.74% of IOs)
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <utility>

#include "models/report/fio_format.h"
#include "tools/scenario/scenario.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

result::RunResult run(workload::JobConfig j) {
    j.runtime = 40_ms;
    j.time_based = true;
    j.logs.lat = "p";  // one sample per I/O with its size and ioprio (kept in memory, not written)
    const auto m = testing::timer_nullb_with(j, 5_us, 9);
    topology::Machine machine(m);
    return machine.run();
}

workload::JobConfig mixed_sizes() {
    auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::RANDREAD);
    j.iodepth = 16;
    j.bs_range[0] = {65536, {{4096, 50}, {65536, 50}}};
    return j;
}

// (bs, ioprio value) -> I/Os, from the lat log.
std::map<std::pair<uint32_t, uint16_t>, uint64_t> count(const result::RunResult& r, uint64_t& n) {
    std::map<std::pair<uint32_t, uint16_t>, uint64_t> c;
    n = 0;
    for (const result::FioLog& log : r.logs) {
        if (log.path.find("_lat.") == std::string::npos)
            continue;
        for (const result::LogSample& s : log.samples) {
            ++c[{s.bs, s.ioprio}];
            ++n;
        }
    }
    return c;
}

void check_share(uint64_t k, uint64_t n, double p) {
    const double sd = std::sqrt(p * (1 - p) / static_cast<double>(n));
    INFO("share " << static_cast<double>(k) / static_cast<double>(n) << " expected " << p << " of " << n);
    CHECK(std::abs(static_cast<double>(k) / static_cast<double>(n) - p) <= 4.5 * sd);
}

constexpr uint16_t ioprio(unsigned cls, unsigned level) { return static_cast<uint16_t>(cls << 13 | level); }

}  // namespace

TEST_CASE("cmdprio_bssplit gives the priority to its share of the named size only", "[models][ioprio]") {
    auto j = mixed_sizes();
    j.cmdprio[0].bssplit = {{65536, 50, 1, 0}};  // 64k/50 with cmdprio_class=1, cmdprio=0
    const auto r = run(j);
    uint64_t n = 0;
    const auto c = count(r, n);
    REQUIRE(n > 10000);
    const uint64_t big = c.at({65536, 0}) + c.at({65536, ioprio(1, 0)});
    check_share(c.at({65536, ioprio(1, 0)}), big, 0.5);
    CHECK(c.count({4096, ioprio(1, 0)}) == 0);  // the other size keeps the job's priority
    CHECK(c.at({4096, 0}) + big == n);
}

TEST_CASE("cmdprio_bssplit 4-field entries: each its own priority, entries of one size split the draw",
          "[models][ioprio]") {
    auto j = mixed_sizes();
    // 64k/50/1/0:64k/30/1/2:4k/20/3/0, sorted by size as fio sorts it.
    j.cmdprio[0].bssplit = {{4096, 20, 3, 0}, {65536, 50, 1, 0}, {65536, 30, 1, 2}};
    const auto r = run(j);
    uint64_t n = 0;
    const auto c = count(r, n);
    REQUIRE(n > 10000);
    const uint64_t small = c.at({4096, 0}) + c.at({4096, ioprio(3, 0)});
    const uint64_t big = n - small;
    check_share(c.at({4096, ioprio(3, 0)}), small, 0.2);
    check_share(c.at({65536, ioprio(1, 0)}), big, 0.5);
    check_share(c.at({65536, ioprio(1, 2)}), big, 0.3);
    check_share(c.at({65536, 0}), big, 0.2);
    // fio's order: the default priority, then by size: 3/0 (4k), then 1/0 and 1/2 (64k).
    const auto shown = report::fio::prios_to_show(r.jobs[0].dir[0]);
    REQUIRE(shown.size() == 4);
    CHECK(report::fio::prio_name(*shown[0]) == "prio 0/0");
    CHECK(report::fio::prio_name(*shown[1]) == "prio 3/0");
    CHECK(report::fio::prio_name(*shown[2]) == "prio 1/0");
    CHECK(report::fio::prio_name(*shown[3]) == "prio 1/2");
}

TEST_CASE("cmdprio per direction: a share for writes only leaves reads alone", "[models][ioprio]") {
    auto j = testing::nullb_job(workload::IoEngine::IO_URING, workload::RwPattern::RANDRW);
    j.iodepth = 16;
    j.cmdprio[1].percentage = 40;  // cmdprio_percentage=0,40
    j.cmdprio[1].ioprio_class = 2;
    j.cmdprio[1].level = 5;
    const auto r = run(j);
    const auto& d = r.jobs[0].dir;
    CHECK(report::fio::prios_to_show(d[0]).empty());  // reads: one priority, no prio lines
    const auto w = report::fio::prios_to_show(d[1]);
    REQUIRE(w.size() == 2);
    CHECK(report::fio::prio_name(*w[0]) == "prio 0/0");
    CHECK(report::fio::prio_name(*w[1]) == "prio 2/5");
    check_share(w[1]->clat.count(), d[1].total_ios, 0.4);
}

TEST_CASE("example sata-ssd-mixed-sizes-rate: RT 4k reads overtake BE ones, the capped backup keeps its rate",
          "[models][ioprio][rate]") {
    const scenario::Scenario s = scenario::load_scenario(
        std::string(BLKSIM_SOURCE_DIR) + "/scenarios/examples/sata-ssd-mixed-sizes-rate.json",
        {"jobs.0.runtime=300ms", "jobs.1.runtime=300ms"});
    topology::Machine machine(s.machine);
    const result::RunResult r = machine.run();
    const auto reads = report::fio::prios_to_show(r.jobs[0].dir[0]);
    REQUIRE(reads.size() == 2);
    CHECK(report::fio::prio_name(*reads[1]) == "prio 1/0");  // the 4k reads
    check_share(reads[1]->clat.count(), r.jobs[0].dir[0].total_ios, 0.7);
    CHECK(reads[1]->clat.mean() < 0.5 * reads[0]->clat.mean());
    // rate=100m over 300 ms: 30 MiB, within one 1 MiB block.
    CHECK(static_cast<double>(r.jobs[1].dir[0].io_bytes) == Approx(0.3 * (100 << 20)).margin(1 << 20));
}
