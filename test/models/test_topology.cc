// The machine's topology (Boost.Graph): controllers, host-wide tags behind an HBA, the SCSI
// dispatch budget and reserved tags.
#include <catch2/catch.hpp>

#include <sstream>

#include "models/device/null_blk_config.h"
#include "models/device/device_kinds.h"
#include "models/topology/topology.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;
using topology::Topology;

namespace {

dev::ControllerConfig hba(const std::string& name, uint32_t can_queue, uint32_t reserved = 0) {
    dev::ControllerConfig c;
    c.name = name;
    c.kind = dev::ControllerConfig::Kind::HBA;
    c.can_queue = can_queue;
    c.reserved_tags = reserved;
    return c;
}

dev::ControllerConfig expander(const std::string& name, const std::string& parent) {
    dev::ControllerConfig c;
    c.name = name;
    c.kind = dev::ControllerConfig::Kind::EXPANDER;
    c.parent = parent;
    return c;
}

// Disks "sda".."sd<n>" behind `controller` ("" = on the host): null_blk standing in for
// scsi_debug, 1 ms per I/O (irqmode=2), queue depth (= budget behind an HBA) `depth`.
topology::MachineConfig disks(uint32_t n, const std::string& controller, uint32_t depth) {
    topology::MachineConfig m;
    m.seed = 3;
    m.host.nr_cpus = 2;
    m.host.costs = testing::unit_costs();
    for (uint32_t i = 0; i < n; ++i) {
        dev::DeviceConfig d;
        d.name = std::string("sd") + static_cast<char>('a' + i);
        d.controller = controller;
        d.as<dev::NullBlkConfig>().irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        d.as<dev::NullBlkConfig>().completion_nsec = 1_ms;
        d.as<dev::NullBlkConfig>().hw_queue_depth = depth;
        m.devices.push_back(d);
        blkmq::QueueConfig q;
        q.device = d.name;
        m.queues.push_back(q);
    }
    return m;
}

workload::JobConfig randread(const std::string& dev, uint32_t iodepth, uint32_t cpu) {
    return testing::pinned_libaio_job(dev, dev, workload::RwPattern::RANDREAD, iodepth, cpu, 1_s);
}

double iops(const result::JobResult& r) {
    return static_cast<double>(r.dir[0].total_ios) / r.runtime.seconds();
}

std::string topology_error(const topology::MachineConfig& m) {
    try {
        Topology t(m);
    } catch (const Topology::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("the topology graph links host, controllers, devices, queues and tag sets", "[models][topology]") {
    auto m = disks(2, "exp0", 32);
    m.controllers = {hba("hba0", 64), expander("exp0", "hba0")};
    m.devices.push_back(testing::nullb_machine(1).devices[0]);
    m.queues.push_back(testing::nullb_machine(1).queues[0]);
    const Topology t(m);
    // host, 2 controllers, 3 devices, 3 queues, 2 tag sets (hba0's and nullb0's own).
    CHECK(boost::num_vertices(t.graph()) == 1 + 2 + 3 + 3 + 2);
    CHECK(t.host_adapter(0) == 0u);  // behind the expander, the tags are hba0's
    CHECK(t.host_adapter(1) == 0u);
    CHECK_FALSE(t.host_adapter(2).has_value());
    std::ostringstream dot;
    t.write_graphviz(dot);
    CHECK_THAT(dot.str(), Catch::Contains("hba0 host tags") && Catch::Contains("nullb0 tags") &&
                              Catch::StartsWith("digraph G {"));
}

TEST_CASE("dangling links, cycles and impossible placements are refused before building", "[models][topology]") {
    auto m = disks(1, "hba9", 32);
    m.controllers = {hba("hba0", 64)};
    CHECK_THAT(topology_error(m), Catch::Contains("device 'sda' names unknown controller 'hba9' (controllers: 'hba0')"));

    m = disks(1, "exp0", 32);
    m.controllers = {hba("hba0", 64), expander("exp0", "exp1"), expander("exp1", "exp0")};
    CHECK_THAT(topology_error(m), Catch::Contains("controllers form a cycle: exp0 -> exp1 -> exp0"));
    m.controllers = {expander("exp0", "exp0")};
    CHECK_THAT(topology_error(m), Catch::Contains("controllers form a cycle: exp0 -> exp0"));

    m.controllers = {expander("exp0", "")};
    CHECK_THAT(topology_error(m), Catch::Contains("expander 'exp0' needs a parent"));

    m = disks(1, "hba0", 32);
    m.controllers = {hba("hba0", 64)};
    m.devices[0].model = dev::find_device_kind("nvme")->defaults();
    CHECK_THAT(topology_error(m), Catch::Contains("is NVMe, which is its own controller"));

    m = disks(1, "", 32);
    m.queues[0].device = "sdz";
    CHECK_THAT(topology_error(m), Catch::Contains("queue names unknown device 'sdz'"));
    // The machine refuses the same things itself.
    CHECK_THROWS_AS(topology::Machine(m), std::invalid_argument);
}

TEST_CASE("disks behind one HBA share its tags, with the fair share between active disks", "[models][topology][tags]") {
    // 2 disks each wanting 24 in flight, host tags can_queue=32: each gets its fair share
    // max(ceil(32/2), 4) = 16 → 16 k IOPS of 1 ms I/Os per disk. Budget (64) does not bind.
    auto m = disks(2, "hba0", 64);
    m.controllers = {hba("hba0", 32)};
    m.jobs = {randread("sda", 24, 0), randread("sdb", 24, 1)};
    topology::Machine mach(m);
    const auto r = mach.run();
    CHECK(iops(r.jobs[0]) == Approx(16000).epsilon(0.01));
    CHECK(iops(r.jobs[1]) == Approx(16000).epsilon(0.01));
    CHECK(&mach.queues()[0]->tag_set() == &mach.queues()[1]->tag_set());
    CHECK(mach.queues()[0]->nr_requests() == 32);  // none: nr_requests = the set's depth

    // On the host directly each disk has its own 64 tags: all 24 in flight.
    auto own = disks(2, "", 64);
    own.jobs = m.jobs;
    topology::Machine mach2(own);
    const auto r2 = mach2.run();
    CHECK(iops(r2.jobs[0]) == Approx(24000).epsilon(0.01));
}

TEST_CASE("a disk's queue depth is its dispatch budget behind an HBA", "[models][topology][budget]") {
    // sdev->queue_depth = 8 while the host has 256 tags: 8 commands at the driver at most,
    // so 8 k IOPS of 1 ms I/Os although fio keeps 32 in flight; the rest wait in blk-mq.
    for (const char* sched : {"none", "mq-deadline"}) {
        auto m = disks(1, "hba0", 8);
        m.controllers = {hba("hba0", 256)};
        m.queues[0].scheduler = sched;
        m.jobs = {randread("sda", 32, 0)};
        topology::Machine mach(m);
        const auto r = mach.run();
        INFO(sched);
        CHECK(mach.queues()[0]->budget_depth() == 8);
        CHECK(iops(r.jobs[0]) == Approx(8000).epsilon(0.01));
        CHECK(mach.queues()[0]->stats().budget_exhausted > 0);
        REQUIRE(r.queues.size() == 1);  // and the report says so
        CHECK(r.queues[0].budget == 8);
        CHECK(r.queues[0].budget_exhausted == mach.queues()[0]->stats().budget_exhausted);
        // Nothing lost or duplicated: every submitted I/O completed (the run's invariants).
        CHECK(r.jobs[0].dir[0].total_ios == mach.ios_completed());
    }
    // The same disk on the host has no budget: its 8 tags are the limit, same rate.
    auto own = disks(1, "", 8);
    own.jobs = {randread("sda", 32, 0)};
    topology::Machine mach(own);
    const auto r = mach.run();
    CHECK(mach.queues()[0]->budget_depth() == 0);
    CHECK(iops(r.jobs[0]) == Approx(8000).epsilon(0.01));
}

TEST_CASE("reserved tags are kept out of normal I/O", "[models][topology][tags]") {
    // can_queue 16 with 4 reserved: 12 tags for I/O → 12 k IOPS of 1 ms I/Os at iodepth 16.
    auto m = disks(1, "hba0", 64);
    m.controllers = {hba("hba0", 16, 4)};
    m.jobs = {randread("sda", 16, 0)};
    topology::Machine mach(m);
    const auto r = mach.run();
    CHECK(mach.queues()[0]->tag_set().reserved_tags() == 4);
    CHECK(iops(r.jobs[0]) == Approx(12000).epsilon(0.01));
}

TEST_CASE("without an elevator a bio merges into its CPU's request waiting in the software queue", "[models][merge]") {
    // One disk behind an HBA with budget 1: while one write is at the driver the next waits
    // on hctx->dispatch and later ones in the software queue, where each following
    // sequential 4 KiB write (one io_submit each, so no plug merge) joins the newest.
    auto m = disks(1, "hba0", 1);
    m.controllers = {hba("hba0", 64)};
    workload::JobConfig j = randread("sda", 16, 0);
    j.rw = workload::RwPattern::WRITE;
    j.iodepth_batch_submit = 1;
    j.runtime = 100_ms;
    m.jobs = {j};
    auto merged = m;
    m.queues[0].nomerges = 2;

    topology::Machine a(merged), b(m);
    const auto ra = a.run();
    const auto rb = b.run();
    const auto& sa = a.queues()[0]->stats();
    const auto& sb = b.queues()[0]->stats();
    CHECK(sb.merges[1] == 0);
    CHECK(sb.ios[1] == rb.jobs[0].dir[1].total_ios);  // one request per bio
    CHECK(sa.merges[1] > 0);
    // Every bio either started a request or was merged into one.
    CHECK(sa.ios[1] + sa.merges[1] == ra.jobs[0].dir[1].total_ios);
    // Bigger requests at 1 ms each: more bytes moved.
    CHECK(ra.jobs[0].dir[1].total_ios > 2 * rb.jobs[0].dir[1].total_ios);
}
