// The hardware queues of a RAID controller's virtual drive as megaraid_sas registers them:
// since 5.11 (host_tagset_enable=1) one hctx per MSI-X reply queue, about one per CPU, over
// one host-wide tag space, each reply queue interrupting a CPU of its hctx; before (or with
// host_tagset_enable=0) one hctx whose single vector interrupts irq_cpu.
#include <catch2/catch.hpp>

#include "models/device/raid_config.h"
#include "models/device/device_kinds.h"
#include "models/topology/machine.h"

#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// A 4-CPU host with a RAID0 of two HDDs behind a card with `nr_hw_queues` and `depth` tags;
// one libaio writer per CPU at iodepth 8: every write is acknowledged from the card's cache.
topology::MachineConfig raid_machine(uint32_t nr_hw_queues, uint32_t depth = 256) {
    topology::MachineConfig m;
    m.seed = 1;
    m.host.nr_cpus = 4;
    m.host.costs = testing::unit_costs();
    m.host.os_jitter = false;  // interrupt work only where the replies are
    dev::DeviceConfig d;
    d.name = "sda";
    d.as<dev::RaidConfig>().nr_hw_queues = nr_hw_queues;
    d.as<dev::RaidConfig>().queue_depth = depth;
    d.as<dev::RaidConfig>().irq_cpu = 3;
    for (uint32_t i = 0; i < 2; ++i) {
        dev::RaidMember mb;
        mb.name = "m" + std::to_string(i);
        mb.model = dev::find_device_kind("hdd")->defaults();
        d.as<dev::RaidConfig>().members.push_back(mb);
    }
    m.devices.push_back(d);
    blkmq::QueueConfig q;
    q.device = "sda";
    m.queues.push_back(q);
    for (uint32_t cpu = 0; cpu < 4; ++cpu)
        m.jobs.push_back(
            testing::pinned_libaio_job("w" + std::to_string(cpu), "sda", workload::RwPattern::RANDWRITE, 8, cpu, 20_ms));
    return m;
}

}  // namespace

TEST_CASE("megaraid_sas: one hctx per CPU over host-wide tags, replies on the hctx's CPU", "[models][raid][tags]") {
    SECTION("one per CPU (the default since 5.11)") {
        const auto cfg = raid_machine(0);  // the machine keeps a reference
        topology::Machine m(cfg);
        blkmq::RequestQueue& q = *m.queues()[0];
        REQUIRE(q.nr_hw_queues() == 4);
        for (uint32_t h = 1; h < 4; ++h)
            CHECK(&q.hctx(h).tags == &q.hctx(0).tags);  // BLK_MQ_F_TAG_HCTX_SHARED
        const auto r = m.run();
        // Each writer's completions interrupt its own CPU: irq work everywhere.
        for (const auto& c : r.cpus) {
            INFO("cpu " << c.id);
            CHECK(c.irq > 0_ns);
        }
    }
    SECTION("more queues than CPUs are capped at the CPUs") {
        const auto cfg = raid_machine(64);  // the machine keeps a reference
        topology::Machine m(cfg);
        CHECK(m.queues()[0]->nr_hw_queues() == 4);
    }
    SECTION("two: CPUs 0-1 on hctx 0, 2-3 on hctx 1, interrupting CPUs 0 and 2") {
        const auto cfg = raid_machine(2);  // the machine keeps a reference
        topology::Machine m(cfg);
        REQUIRE(m.queues()[0]->nr_hw_queues() == 2);
        const auto r = m.run();
        CHECK(r.cpus[0].irq > 0_ns);
        CHECK(r.cpus[1].irq == 0_ns);
        CHECK(r.cpus[2].irq > 0_ns);
        CHECK(r.cpus[3].irq == 0_ns);
    }
    SECTION("one (host_tagset_enable=0, or before 5.11): every reply on irq_cpu") {
        const auto cfg = raid_machine(1);  // the machine keeps a reference
        topology::Machine m(cfg);
        REQUIRE(m.queues()[0]->nr_hw_queues() == 1);
        const auto r = m.run();
        for (const auto& c : r.cpus) {
            INFO("cpu " << c.id);
            CHECK((c.irq > 0_ns) == (c.id == 3));
        }
    }
}

TEST_CASE("megaraid_sas's hctxs share one space of queue_depth tags", "[models][raid][tags]") {
    // 4 writers x iodepth 8 = 32 I/Os want tags. Host-wide, the four hctxs hold at most the
    // VD's 8 between them; per-hctx tags of 8 each would let all 32 through.
    const auto cfg = raid_machine(0, 8);  // the machine keeps a reference
    topology::Machine m(cfg);
    const auto r = m.run();
    const auto& qr = r.queues.at(0);
    CHECK(qr.tag_depth == 8);
    CHECK(qr.tags_in_use_mean <= 8.0);
    CHECK(qr.tags_in_use_mean > 6.0);
    CHECK(qr.tag_sleeps > 0);
}
