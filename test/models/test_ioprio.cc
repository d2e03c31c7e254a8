// I/O priority end to end: fio's cmdprio_percentage puts a share of a job's I/Os in the RT
// class; mq-deadline serves RT before BE (strict priority), none does not care.
#include <catch2/catch.hpp>

#include "models/device/null_blk_config.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct PrioOutcome {
    double rt_share = 0, rt_clat = 0, be_clat = 0;
};

PrioOutcome run(const std::string& sched) {
    // Requests queue up in the scheduler: 2 jobs x QD32 against 4 driver tags of 100 us,
    // with nr_requests raised to 128 so that all 64 fit in the scheduler (the default,
    // 2 x 4, would leave most of them asleep waiting for a scheduler tag, in FIFO order).
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 100_us;
    nb.hw_queue_depth = 4;
    auto m = testing::nullb_machine(2, nb, sched, 8);
    m.queues[0].nr_requests = 128;
    auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::RANDREAD);
    j.iodepth = 32;
    j.numjobs = 2;
    j.cmdprio[0].percentage = 10;
    j.cmdprio[0].ioprio_class = 1;
    j.runtime = 200_ms;
    j.time_based = true;
    m.jobs.push_back(j);
    topology::Machine machine(m);
    auto r = machine.run();
    result::DirResult d = r.jobs[0].dir[0];
    d.merge(r.jobs[1].dir[0]);
    PrioOutcome o;
    double n = 0;
    for (const auto& p : d.prios) {
        n += static_cast<double>(p.clat.count());
        if (p.ioprio_class == 1)
            o.rt_clat = p.clat.mean(), o.rt_share = static_cast<double>(p.clat.count());
        else
            o.be_clat = p.clat.mean();
    }
    REQUIRE(d.prios.size() == 2);
    o.rt_share /= n;
    return o;
}

}  // namespace

TEST_CASE("cmdprio_percentage=10 with mq-deadline: RT I/Os overtake BE ones", "[models][ioprio]") {
    const auto dl = run("mq-deadline");
    CHECK(dl.rt_share == Approx(0.10).margin(0.01));
    // 64 I/Os share 4 slots of 100 us: BE waits ~1.6 ms; RT goes to the head of the queue.
    CHECK(dl.be_clat > 1.2e6);
    CHECK(dl.rt_clat < 0.3 * dl.be_clat);
    const auto none = run("none");
    CHECK(none.rt_share == Approx(0.10).margin(0.01));
    CHECK(none.rt_clat == Approx(none.be_clat).epsilon(0.15));  // no scheduler: no preference
}
