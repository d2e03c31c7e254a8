// Aged RPO (models/device/hdd.h, age_weight): a command's positioning time less a weight
// times its wait. The drive is driven directly, as in test_hdd.cc.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "models/device/hdd.h"

#include "test/device/device_rig.h"

using namespace blksim;

namespace {

using Rig = testing::DeviceRig<dev::Hdd>;

struct Outcome {
    double iops = 0, p999_ms = 0, max_ms = 0;
    uint64_t aged = 0;
};

// Random 4 KiB reads at QD32 (the queue RPO works on), the same addresses for every config.
Outcome random_reads_qd32(const dev::HddConfig& cfg) {
    Rig r(cfg, "hdd-aging-test");
    const uint64_t blocks = r.device.capacity_sectors() / 8;
    r.next = [&r, blocks](blkmq::Request& rq) {
        rq.sector = r.rng.below(blocks) * 8;
        rq.nr_sectors = 8;
        rq.op = blkmq::ReqOp::READ;
        rq.ioprio_class = 2;
    };
    r.log = true;
    r.run(32, 20000);
    std::vector<double> l = r.lat_log;
    std::sort(l.begin(), l.end());
    return {r.iops(), l[l.size() * 999 / 1000] / 1e6, l.back() / 1e6, r.device.stats().aged};
}

}  // namespace

TEST_CASE("HDD: aged RPO trades throughput for tail latency gradually, from SPTF to FIFO", "[hdd][device][hdd-aging]") {
    dev::HddConfig fifo;
    fifo.sched = dev::HddConfig::Sched::FIFO;
    const Outcome f = random_reads_qd32(fifo);
    // Weights doubling from 0.004 to 0.512, between 0 (pure shortest positioning time first)
    // and one where a microsecond of waiting outweighs any difference in position (FIFO).
    const double weights[] = {0, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1000};
    std::vector<Outcome> o;
    for (const double w : weights) {
        dev::HddConfig c;
        c.age_weight = w;
        o.push_back(random_reads_qd32(c));
        UNSCOPED_INFO("W " << w << ": " << o.back().iops << " IOPS, p99.9 " << o.back().p999_ms << " ms, max "
                           << o.back().max_ms << " ms, aged " << o.back().aged);
    }
    UNSCOPED_INFO("fifo: " << f.iops << " IOPS, p99.9 " << f.p999_ms << " ms, max " << f.max_ms << " ms");
    // Without a weight the hard bound is all that holds the tail: commands reach it.
    CHECK(o[0].aged > 0);
    CHECK(o[0].max_ms > 800);
    const double fall = o.front().iops - o.back().iops;
    for (size_t i = 1; i < o.size(); ++i) {
        CAPTURE(weights[i]);
        // Throughput falls with the weight, step by step: no step takes much of the whole
        // fall from SPTF to FIFO (a cliff would be one step taking most of it).
        CHECK(o[i].iops <= o[i - 1].iops * 1.01);
        CHECK(o[i - 1].iops - o[i].iops < 0.4 * fall);
        // The tail comes in from the hard bound's: the maximum and the 99.9th percentile are
        // below SPTF's. (Not monotone all the way: near FIFO every command waits its turn
        // behind the whole queue, and the slower service lengthens that wait again.)
        // A small weight cannot outweigh a bad position before the bound (0.004 × 890 ms is
        // 3.6 ms of credit, against positioning times up to a full stroke and a revolution):
        // it only must not make the tail worse. From 0.032 (28 ms at the bound) on it must.
        CHECK(o[i].max_ms <= o[0].max_ms * 1.02);
        if (weights[i] >= 0.032) {
            CHECK(o[i].max_ms < o[0].max_ms * 0.9);
            CHECK(o[i].p999_ms < o[0].p999_ms);
        }
    }
    // Once waiting outweighs position, the credit leaves no command to the bound and the drive
    // serves in arrival order: FIFO's throughput and tail.
    CHECK(o.back().aged == 0);
    CHECK(o.back().iops == Approx(f.iops).epsilon(0.03));
    CHECK(o.back().max_ms == Approx(f.max_ms).epsilon(0.1));
    CHECK(o.front().iops > 1.8 * o.back().iops);
}
