// Shared tag sets (docs/references.md §2.2–2.4): the fair-share cap, lazy idle detection, and
// E2's variant.
#include <catch2/catch.hpp>

#include "models/device/null_blk_config.h"
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
        d.as<dev::NullBlkConfig>().irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        d.as<dev::NullBlkConfig>().completion_nsec = 1_ms;
        d.as<dev::NullBlkConfig>().hw_queue_depth = 32;
        d.as<dev::NullBlkConfig>().shared_tags = true;
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

// --- host-wide tags (BLK_MQ_F_TAG_HCTX_SHARED) --------------------------------------------

namespace {

// `disks` null_blk disks with 2 submit queues of `depth` tags (irqmode=2, 1 ms), 4 CPUs
// (CPUs 0-1 map to hctx 0, 2-3 to hctx 1); on each disk two libaio jobs, on CPU 0 and CPU 2,
// each keeping 32 I/Os in flight for 100 ms.
topology::MachineConfig host_tags_machine(uint32_t disks, bool shared_tags, bool bitmap, uint32_t depth,
                                          bool first_disk_one_cpu = false) {
    topology::MachineConfig m;
    m.seed = 3;
    m.host.nr_cpus = 4;
    m.host.costs = testing::unit_costs();
    for (uint32_t i = 0; i < disks; ++i) {
        dev::DeviceConfig d;
        d.name = "nullb" + std::to_string(i);
        d.as<dev::NullBlkConfig>().irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        d.as<dev::NullBlkConfig>().completion_nsec = 1_ms;
        d.as<dev::NullBlkConfig>().submit_queues = 2;
        d.as<dev::NullBlkConfig>().hw_queue_depth = depth;
        d.as<dev::NullBlkConfig>().shared_tags = shared_tags;
        d.as<dev::NullBlkConfig>().shared_tag_bitmap = bitmap;
        m.devices.push_back(d);
        blkmq::QueueConfig q;
        q.device = d.name;
        m.queues.push_back(q);
        for (const uint32_t cpu : {0u, 2u}) {
            if (first_disk_one_cpu && i == 0 && cpu == 2)
                continue;
            m.jobs.push_back(testing::pinned_libaio_job(d.name + "-cpu" + std::to_string(cpu), d.name,
                                                        workload::RwPattern::RANDREAD, 32, cpu, 100_ms));
        }
    }
    return m;
}

// I/Os per second completed on disk `name` (its jobs).
double disk_iops(const result::RunResult& r, const std::string& name) {
    uint64_t n = 0;
    for (const auto& j : r.jobs)
        if (j.name.rfind(name + "-", 0) == 0)
            n += j.dir[0].total_ios;
    return static_cast<double>(n) / 0.1;
}

}  // namespace

TEST_CASE("host-wide tags: one space of hw_queue_depth tags for every hardware queue", "[models][tags]") {
    // Per-hctx tags: 2 x 16 I/Os of 1 ms in flight = 32 k IOPS; host-wide: 16 in all = 16 k.
    for (const bool bitmap : {false, true}) {
        const auto cfg = host_tags_machine(1, false, bitmap, 16);
        topology::Machine m(cfg);
        const auto r = m.run();
        INFO("shared_tag_bitmap=" << bitmap);
        CHECK(disk_iops(r, "nullb0") == Approx(bitmap ? 16'000 : 32'000).epsilon(0.02));
        CHECK((&m.queues()[0]->hctx(0).tags == &m.queues()[0]->hctx(1).tags) == bitmap);
    }
}

TEST_CASE("host-wide tags: the fair share's user is the request queue, not the hctx", "[models][tags]") {
    // Two disks on one set of depth 32; nullb0 is driven from one CPU (one hctx), nullb1 from
    // two. Per-hctx tags: tags[0] has two users (16 each), tags[1] one (32): nullb0 holds 16,
    // nullb1 16 + 32. Host-wide: one space of 32 whose users are the two queues, 16 each in
    // all, however many hctxs a queue drives (counted per hctx it would be 3 users: 11 for
    // nullb0, 21 for nullb1).
    for (const bool bitmap : {false, true}) {
        const auto cfg = host_tags_machine(2, true, bitmap, 32, true);
        topology::Machine m(cfg);
        const auto r = m.run();
        INFO("shared_tag_bitmap=" << bitmap);
        CHECK(disk_iops(r, "nullb0") == Approx(16'000).epsilon(0.02));
        CHECK(disk_iops(r, "nullb1") == Approx(bitmap ? 16'000 : 32'000 + 16'000).epsilon(0.02));
    }
}

TEST_CASE("wake_batch is recomputed for the fair share when users come and go", "[models][tags]") {
    blkmq::BlkMqTags t(64);
    CHECK(t.wake_batch() == 8);  // clamp(64 / 8, 1, 8)
    t.update_wake_batch(4);      // ceil(64 / 4) = 16 -> 2
    CHECK(t.wake_batch() == 2);
    t.update_wake_batch(16);     // 4 / 8 -> at least 1
    CHECK(t.wake_batch() == 1);
    t.update_wake_batch(1);
    CHECK(t.wake_batch() == 8);
    t.update_wake_batch(0);      // no users: unchanged
    CHECK(t.wake_batch() == 8);
}
