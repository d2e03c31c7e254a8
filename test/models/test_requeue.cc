// ->queue_rq answering BLK_STS_RESOURCE: the request goes back to hctx->dispatch, the hctx
// is rerun (after 3 ms, or at the next completion), and nothing is lost or duplicated.
#include <catch2/catch.hpp>

#include <map>

#include "models/blkmq/trace.h"
#include "models/topology/machine.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct CountingSink final : blkmq::TraceSink {
    std::map<uint64_t, int> issued, completed;
    void emit(uint32_t, const blkmq::TraceEvent& e) override {
        if (e.action == blkmq::TraceAction::ISSUE)
            ++issued[e.sector];
        if (e.action == blkmq::TraceAction::COMPLETE)
            ++completed[e.sector];
    }
};

}  // namespace

TEST_CASE("a resource-busy device requeues without losing or duplicating a request", "[models][dispatch]") {
    topology::MachineConfig m;
    m.seed = 9;
    m.host.nr_cpus = 4;
    auto& c = m.host.costs;
    c.syscall = 100_ns; c.io_prep = 50_ns; c.bio_submit = 100_ns; c.rq_alloc = 100_ns;
    c.plug = 50_ns; c.queue_rq = 100_ns; c.irq = 300_ns; c.softirq = 200_ns;
    c.complete_rq = 150_ns; c.io_complete = 80_ns; c.reap = 40_ns; c.context_switch = 1000_ns;
    dev::DeviceConfig d;
    d.name = "nullb0";
    d.null_blk.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    d.null_blk.completion_nsec = 50_us;
    d.null_blk.requeue_every = 7;
    m.devices.push_back(d);
    blkmq::QueueConfig q;
    q.device = "nullb0";
    m.queues.push_back(q);
    workload::JobConfig j;
    j.name = "r";
    j.device = "nullb0";
    j.ioengine = workload::IoEngine::IO_URING;
    j.rw = workload::RwPattern::RANDREAD;
    j.iodepth = 16;
    j.numjobs = 4;
    j.number_ios = 2000;
    m.jobs.push_back(j);

    topology::Machine machine(m);
    CountingSink sink;
    machine.set_trace(&sink);
    auto r = machine.run();  // the invariant checks run inside
    const auto& st = machine.queues()[0]->stats();
    CHECK(st.resource_requeues > 8000 / 7 - 10);
    CHECK(st.inserts > 0);  // once busy, new requests go through the software queue
    uint64_t ios = 0;
    for (const auto& jr : r.jobs)
        ios += jr.dir[0].total_ios;
    CHECK(ios == 8000);
    CHECK(st.ios[0] == 8000);
    // Every request reached the driver once (D after the refusal, not before) and completed once.
    for (const auto& [sector, n] : sink.completed)
        CHECK(n == sink.issued[sector]);
    CHECK(sink.completed.size() == sink.issued.size());
}
