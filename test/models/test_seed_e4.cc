// Seed experiment E4 (docs/references.md §8d): I/O priority with ATA NCQ
// priority on an HDD, scenario none, libaio QD24, 128 KiB random reads, 10 % of them RT.
// Shortened to 30 s simulated; IOPS and each clat average within 15 % of the published
// figures, and the mechanism: without ncq_prio_enable the classes get the same latency.
#include <catch2/catch.hpp>

#include <string>

#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

struct E4 {
    double iops = 0;
    double clat_ms = 0, clat_max_ms = 0;
    double prio0_ms = 0, prio1_ms = 0;  // fio's "prio 0/0" (BE here) and "prio 1/0" (RT)
};

E4 run(const std::vector<std::string>& sets) {
    std::vector<std::string> all = {"jobs.0.runtime=30s"};
    all.insert(all.end(), sets.begin(), sets.end());
    const auto s = scenario::load_scenario(std::string(BLKSIM_SOURCE_DIR) + "/scenarios/seeds/e4-ncq-prio.json", all);
    topology::Machine m(s.machine);
    const auto r = m.run();
    REQUIRE(r.jobs.size() == 1);
    const auto& d = r.jobs[0].dir[0];
    E4 e;
    e.iops = static_cast<double>(d.total_ios) / r.jobs[0].runtime.seconds();
    e.clat_ms = d.clat.mean() / 1e6;
    e.clat_max_ms = d.clat.max() / 1e6;
    for (const auto& p : d.prios)
        (p.ioprio_class == 1 ? e.prio1_ms : e.prio0_ms) = p.clat.mean() / 1e6;
    return e;
}

}  // namespace

TEST_CASE("E4: ATA NCQ priority on an HDD, published figures within 15 %", "[seeds][e4]") {
    const E4 e = run({});
    INFO("IOPS " << e.iops << ", clat " << e.clat_ms << " ms (max " << e.clat_max_ms << "), prio 0/0 " << e.prio0_ms
                 << " ms, prio 1/0 " << e.prio1_ms << " ms");
    CHECK(e.iops == Approx(152).epsilon(0.15));
    CHECK(e.clat_ms == Approx(156.95).epsilon(0.15));
    CHECK(e.prio0_ms == Approx(171.68).epsilon(0.15));
    CHECK(e.prio1_ms == Approx(24.64).epsilon(0.15));
    // The drive's aging bound is what limits the tail (published max 918 ms).
    CHECK(e.clat_max_ms < 1000);
    CHECK(e.clat_max_ms > 600);
}

TEST_CASE("E4: without ncq_prio_enable the RT class gets no better service", "[seeds][e4]") {
    const E4 off = run({"devices.0.params.ncq_prio_enable=0"});
    INFO("prio 0/0 " << off.prio0_ms << " ms, prio 1/0 " << off.prio1_ms << " ms, IOPS " << off.iops);
    CHECK(off.prio1_ms == Approx(off.prio0_ms).epsilon(0.2));
    CHECK(off.prio1_ms > 100);
    CHECK(off.iops > 152);  // strict priority costs throughput: RT commands skip reordering
}
