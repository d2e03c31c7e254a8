// Shared tag sets (§2.2–2.4): the fair-share cap, lazy idle detection, and E2's variant.
#include <catch2/catch.hpp>

#include "models/blkmq/request_queue.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

TEST_CASE("fair share depth is max(ceil(depth/users), 4)", "[models][tags]") {
    using blkmq::RequestQueue;
    CHECK(RequestQueue::fair_share_depth(32, 1) == 32);
    CHECK(RequestQueue::fair_share_depth(32, 2) == 16);
    CHECK(RequestQueue::fair_share_depth(32, 3) == 11);
    CHECK(RequestQueue::fair_share_depth(64, 12) == 6);
    CHECK(RequestQueue::fair_share_depth(16, 8) == 4);
    CHECK(RequestQueue::fair_share_depth(10, 3) == 4);
}

namespace {

// Two null_blk disks sharing one 32-tag set (shared_tags=1). "busy" keeps `depth` I/Os of
// 1 ms in flight for `runtime`; "idle" sends one I/O at the start and nothing after, yet
// stays an active user of the set until its queue's timeout work finds it idle.
topology::MachineConfig two_disks(blkmq::TagFairness f, uint32_t depth, sim::Duration runtime) {
    topology::MachineConfig m;
    m.seed = 5;
    m.host.nr_cpus = 2;
    m.host.costs = testing::unit_costs();
    m.tag_fairness = f;
    for (const char* name : {"nullb0", "nullb1"}) {
        dev::DeviceConfig d;
        d.name = name;
        d.null_blk.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        d.null_blk.completion_nsec = 1_ms;
        d.null_blk.hw_queue_depth = 32;
        d.null_blk.shared_tags = true;
        m.devices.push_back(d);
        blkmq::QueueConfig q;
        q.device = name;
        m.queues.push_back(q);
    }
    workload::JobConfig busy;
    busy.name = "busy";
    busy.device = "nullb0";
    busy.ioengine = workload::IoEngine::LIBAIO;
    busy.rw = workload::RwPattern::RANDREAD;
    busy.iodepth = depth;
    busy.runtime = runtime;
    busy.time_based = true;
    busy.cpus_allowed = {0};
    m.jobs.push_back(busy);
    workload::JobConfig idle;
    idle.name = "idle";
    idle.device = "nullb1";
    idle.rw = workload::RwPattern::RANDREAD;
    idle.number_ios = 1;
    idle.cpus_allowed = {1};
    m.jobs.push_back(idle);
    return m;
}

double busy_iops(const topology::MachineConfig& cfg) {
    topology::Machine m(cfg);
    auto r = m.run();
    return static_cast<double>(r.jobs[0].dir[0].total_ios) / r.jobs[0].runtime.seconds();
}

}  // namespace

TEST_CASE("an idle user of a shared tag set halves the busy one's depth (mainline)", "[models][tags][e2]") {
    // 20 wanted, 32 tags, but 2 active users: capped at 16 in flight → 16 k IOPS of 1 ms I/Os.
    CHECK(busy_iops(two_disks(blkmq::TagFairness::ALWAYS, 20, 2_s)) == Approx(16000).epsilon(0.01));
    // No cap: all 20 in flight.
    CHECK(busy_iops(two_disks(blkmq::TagFairness::OFF, 20, 2_s)) == Approx(20000).epsilon(0.01));
}

TEST_CASE("with Yu Kuai's variant the cap applies only after a tag shortage", "[models][tags][e2]") {
    // 20 + 1 < 32: nobody ever fails to get a tag, so no cap.
    CHECK(busy_iops(two_disks(blkmq::TagFairness::ON_SHORTAGE, 20, 2_s)) == Approx(20000).epsilon(0.01));
    // Wanting 40 > 32, the busy disk itself goes short, and from then on it is capped
    // like mainline: 16 in flight.
    CHECK(busy_iops(two_disks(blkmq::TagFairness::ON_SHORTAGE, 40, 2_s)) == Approx(16000).epsilon(0.02));
}

TEST_CASE("a user stops counting only when its queue's timeout work finds it idle", "[models][tags]") {
    // The idle disk's one request arms its 5 s null_blk timer, rounded up to a whole second:
    // at 6 s the timeout work finds nothing in flight and marks it idle. Until then the busy
    // disk runs 16 deep, after it 20 deep: 6 s × 16 k + 2 s × 20 k over 8 s.
    const double expect = (6 * 16000.0 + 2 * 20000.0) / 8;
    CHECK(busy_iops(two_disks(blkmq::TagFairness::ALWAYS, 20, 8_s)) == Approx(expect).epsilon(0.01));
}

TEST_CASE("with an elevator the shortage that arms Yu Kuai's cap is a driver-tag failure at dispatch", "[models][tags][e2]") {
    // mq-deadline on both disks: requests hold scheduler tags, the driver tag comes at
    // dispatch. Wanting 40 > 32 driver tags, the busy disk fails at dispatch, becomes
    // "pending", and is capped to its 16 like mainline.
    auto cfg = two_disks(blkmq::TagFairness::ON_SHORTAGE, 40, 2_s);
    for (auto& q : cfg.queues)
        q.scheduler = "mq-deadline";
    CHECK(busy_iops(cfg) == Approx(16000).epsilon(0.02));
    cfg.tag_fairness = blkmq::TagFairness::OFF;
    CHECK(busy_iops(cfg) == Approx(32000).epsilon(0.02));
}
