// ->queue_rq answering BLK_STS_RESOURCE: the request goes back to hctx->dispatch, the hctx
// is rerun (after 3 ms, or at the next completion), and nothing is lost or duplicated.
#include <catch2/catch.hpp>

#include <map>

#include "models/device/null_blk_config.h"
#include "models/sched/mq_deadline.h"
#include "models/blkmq/trace.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct CountingSink final : blkmq::TraceSink {
    std::map<uint64_t, int> issued, completed, requeued;
    void emit(uint32_t, const blkmq::TraceEvent& e) override {
        if (e.action == blkmq::TraceAction::ISSUE)
            ++issued[e.sector];
        if (e.action == blkmq::TraceAction::COMPLETE)
            ++completed[e.sector];
        if (e.action == blkmq::TraceAction::REQUEUE)
            ++requeued[e.sector];
    }
};

}  // namespace

TEST_CASE("a resource-busy device requeues without losing or duplicating a request", "[models][dispatch]") {
    // null_blk alternates: every 7th ->queue_rq is refused, odd ones with BLK_STS_RESOURCE
    // (back to hctx->dispatch), even ones by blk_mq_requeue_request (R, the requeue work
    // puts it back at the head of the elevator or software queue).
    const std::string sched = GENERATE(as<std::string>{}, "none", "mq-deadline", "kyber");
    INFO(sched);
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 50_us;
    nb.requeue_every = 7;
    auto m = testing::nullb_machine(4, nb, sched, 9);
    auto j = testing::nullb_job(workload::IoEngine::IO_URING, workload::RwPattern::RANDREAD);
    j.name = "r";
    j.iodepth = 16;
    j.numjobs = 4;
    j.number_ios = 2000;
    m.jobs.push_back(j);

    topology::Machine machine(m);
    CountingSink sink;
    machine.set_trace(&sink);
    auto r = machine.run();  // the invariant checks run inside
    const auto& st = machine.queues()[0]->stats();
    const uint64_t refusals = st.resource_requeues + st.requeues;
    CHECK(refusals > 8000 / 7 - 10);  // every 7th of >= 8000 ->queue_rq calls
    CHECK(st.resource_requeues >= refusals / 2);
    CHECK(st.requeues + 1 >= refusals / 2);
    CHECK(st.inserts > 0);  // once busy, new requests go through the software queue
    uint64_t ios = 0;
    for (const auto& jr : r.jobs)
        ios += jr.dir[0].total_ios;
    CHECK(ios == 8000);
    CHECK(st.ios[0] == 8000);
    // Every request completed once and was started (D) once: null_blk refuses both ways
    // before blk_mq_start_request; each refusal is one R.
    uint64_t r_events = 0;
    for (const auto& [sector, n] : sink.completed) {
        CHECK(sink.issued[sector] == n);
        r_events += static_cast<uint64_t>(sink.requeued[sector]);
    }
    CHECK(r_events == st.requeues + st.resource_requeues);
    CHECK(sink.completed.size() == sink.issued.size());
}

TEST_CASE("a direct dispatch the device refuses gives its driver tag back", "[models][dispatch]") {
    // mq-deadline's direct dispatch (E3's patch) takes a driver tag and calls ->queue_rq from
    // the plug flush. Refused with BLK_STS_RESOURCE, the request goes to hctx->dispatch; it
    // must not keep the tag there (__blk_mq_requeue_request puts the driver tag of a request
    // that has a scheduler tag): with one driver tag, the request ahead of it on the
    // dispatch list could then never get one, with nothing at the driver to complete and
    // restart the hctx, and the run stalled (the invariant search's seed 15439).
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 0_us;
    nb.hw_queue_depth = 1;
    nb.submit_queues = 2;
    nb.requeue_every = 4;
    auto m = testing::nullb_machine(3, nb, "mq-deadline", 15439);
    auto& dd = m.queues[0].tunables<sched::MqDeadlineTunables>();
    dd.direct_dispatch = 1;
    dd.direct_dispatch_if_empty = dd.direct_dispatch_if_no_higher_prio = dd.direct_dispatch_if_hctx_idle = 0;
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RW);
    j.name = "rw";
    j.numjobs = 3;
    j.bs_read = j.bs_write = 131072;
    j.number_ios = 300;
    m.jobs.push_back(j);
    m.queues[0].max_sectors_kb = 64;  // each I/O two requests: the plug holds both

    topology::Machine machine(m);
    auto r = machine.run();  // a stall fails the run's invariant check
    const auto& st = machine.queues()[0]->stats();
    CHECK(st.resource_requeues > 0);
    uint64_t ios = 0;
    for (const auto& jr : r.jobs)
        ios += jr.dir[0].total_ios + jr.dir[1].total_ios;
    CHECK(ios == 900);
}
