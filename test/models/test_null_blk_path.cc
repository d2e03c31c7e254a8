// The none path end to end: job thread → blk-mq → null_blk → completion, checked against
// figures computed by hand from the cost profile.
#include <catch2/catch.hpp>

#include "models/device/null_blk_config.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

using testing::unit_costs;

topology::MachineConfig one_nullb(uint32_t cpus, dev::NullBlkConfig nb) { return testing::nullb_machine(cpus, nb); }

workload::JobConfig job(workload::IoEngine e, uint32_t depth, uint32_t numjobs) {
    auto j = testing::nullb_job(e, workload::RwPattern::RANDREAD);
    j.iodepth = depth;
    j.numjobs = numjobs;
    j.runtime = 10_ms;
    j.time_based = true;
    return j;
}

}  // namespace

TEST_CASE("psync QD1 latency is the path costs plus completion_nsec", "[models][null_blk]") {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 10_us;
    auto m = one_nullb(1, nb);
    m.jobs.push_back(job(workload::IoEngine::PSYNC, 1, 1));
    topology::Machine machine(m);
    auto r = machine.run();
    const auto& d = r.jobs.at(0).dir[0];
    REQUIRE(d.total_ios > 100);
    const auto c = unit_costs();
    // issue_time is stamped after io_prep; then syscall + bio + rq + plug up to D, which
    // arms the hrtimer at the start of ->queue_rq (so queue_rq's own cost overlaps
    // completion_nsec), the timer IRQ + complete_rq, the wake-up and pread's return.
    const int64_t clat = (c.syscall + c.bio_submit + c.rq_alloc + c.plug).count() +
                         10'000 + (c.irq + c.complete_rq).count() +
                         (c.context_switch + c.io_complete).count();
    CHECK(d.clat.min() == Approx(static_cast<double>(clat)));
    CHECK(d.clat.max() == Approx(static_cast<double>(clat)));
    CHECK(d.lat.mean() == Approx(static_cast<double>(clat + c.io_prep.count())));
    CHECK(d.slat.count() == 0);  // sync engines report no slat, like fio
    // One I/O after another: IOPS = 1 / (lat per I/O).
    const double iops = static_cast<double>(d.total_ios) / r.jobs[0].runtime.seconds();
    CHECK(iops == Approx(1e9 / static_cast<double>(clat + c.io_prep.count())).epsilon(0.01));
}

TEST_CASE("with completion_nsec=0 and irqmode=0 IOPS is bounded by the CPU cost profile", "[models][null_blk]") {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::NONE;
    auto c = unit_costs();
    for (uint32_t cpus : {1u, 2u, 4u}) {
        auto m = one_nullb(cpus, nb);
        m.jobs.push_back(job(workload::IoEngine::PSYNC, 1, cpus));
        topology::Machine machine(m);
        auto r = machine.run();
        uint64_t ios = 0;
        for (auto& j : r.jobs)
            ios += j.dir[0].total_ios;
        // Per I/O a psync thread spends: prep, syscall, bio, rq, plug, queue_rq, the
        // inline completion and pread's return — and never sleeps.
        const double per_io = static_cast<double>((c.io_prep + c.syscall + c.bio_submit + c.rq_alloc +
                                                   c.plug + c.queue_rq + c.complete_rq + c.io_complete)
                                                      .count());
        const double expect = cpus * 10e-3 / (per_io * 1e-9);
        CHECK(static_cast<double>(ios) == Approx(expect).epsilon(0.01));
        for (auto& cpu : machine.cpus())
            CHECK(cpu->busy().count() >= 9'900'000);  // CPU-bound: every core ~100 % busy
    }
}

TEST_CASE("tag exhaustion makes submitters sleep and wake", "[models][null_blk][tags]") {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 100_us;
    nb.hw_queue_depth = 8;
    auto m = one_nullb(2, nb);
    m.jobs.push_back(job(workload::IoEngine::LIBAIO, 32, 2));  // 64 wanted, 8 tags
    topology::Machine machine(m);
    auto r = machine.run();
    auto& q = *machine.queues().at(0);
    auto& tags = q.hctx(0).tags;
    CHECK(tags.nr_sleeps() > 0);
    // The device is never idle and never holds more than 8: 8 per 100 us (+ costs).
    uint64_t ios = r.jobs[0].dir[0].total_ios + r.jobs[1].dir[0].total_ios;
    CHECK(ios <= 8 * 100 + 8);
    CHECK(ios >= 8 * 90);
    CHECK(tags.in_use() == 0);  // all back at the end
    CHECK(q.allocated() == q.freed());
}
