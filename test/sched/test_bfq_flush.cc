// BFQ with the flush machinery (block/blk-flush.c) in a whole machine: a write of a flush
// sequence leaves bfq's accounting when its data step completes, and a flush the driver
// hands back goes past bfq again. Both used to leave bfq counting a request in the driver:
// the first stalled a strict_guarantees queue, the second failed the end-of-run check.
#include <catch2/catch.hpp>

#include <string>

#include "models/sched/bfq.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

using namespace blksim;

namespace {

// null_blk with a volatile write cache; `params` and `iosched` are added to its objects.
std::string nullblk_bfq(const std::string& params, const std::string& iosched, const std::string& jobs) {
    return R"({
  "host": { "cpus": 2, "cost_profile": "e2-testbox" },
  "devices": [ { "name": "d0", "model": "null_blk",
                 "params": { "irqmode": 2, "cache_size": 1)" + params + R"( } } ],
  "queues": [ { "device": "d0", "scheduler": "bfq", "iosched": {)" + iosched + R"(} } ],
  "jobs": [ )" + jobs + R"( ]
})";
}

const sched::Bfq& bfq_of(const topology::Machine& m) {
    const auto* bfq = dynamic_cast<const sched::Bfq*>(m.queues()[0]->elevator());
    REQUIRE(bfq != nullptr);
    return *bfq;
}

}  // namespace

TEST_CASE("bfq with flushes: an O_SYNC write's pieces on a cache without FUA all get through under "
          "strict_guarantees", "[bfq][machine][flush]") {
    // Each 1 MiB O_SYNC write is split into several FUA requests, each a flush sequence
    // (DATA + POSTFLUSH, the device having no FUA). strict_guarantees lets one request into
    // the device at a time; the post-flush of the first piece waits while the others' data
    // is in flight (blk_kick_flush C2). The first piece must stop counting for bfq when its
    // data completes (blk_mq_finish_request), or bfq never dispatches the second one.
    const std::string text = nullblk_bfq(R"(, "fua": 0)", R"("strict_guarantees": 1)",
                                         R"({ "name": "w", "rw": "write", "bs": "1m", "sync": 1,
                                              "runtime": "20ms", "time_based": 1 })");
    const scenario::Scenario s = scenario::load_scenario_text(text, "osync.json", {});
    topology::Machine m(s.machine);
    const result::RunResult r = m.run();  // no stall, and bfq's end-of-run check passes
    const sched::Bfq& bfq = bfq_of(m);
    const auto& q = m.queues()[0]->stats();
    INFO(r.jobs[0].dir[1].total_ios << " writes, " << bfq.stats().dispatched << " requests through bfq, "
                                    << q.flushes << " flushes");
    CHECK(r.jobs[0].dir[1].total_ios >= 2);
    CHECK(bfq.stats().dispatched > r.jobs[0].dir[1].total_ios);  // the writes were split
    CHECK(q.flushes >= r.jobs[0].dir[1].total_ios);              // a post-flush per write at least
    CHECK(bfq.stats().dispatched == bfq.stats().completed + bfq.stats().requeued);
    CHECK(bfq.tot_rq_in_driver() == 0);
}

TEST_CASE("bfq with flushes: a flush the driver requeues goes back past bfq, which never counts it",
          "[bfq][machine][flush]") {
    // An fsync after every 1 MiB write: the device sees the write's pieces and a flush, and
    // refuses every fifth command, by turns busy (BLK_STS_RESOURCE) and handed back
    // (blk_mq_requeue_request), flushes included. A requeued flush_rq is a REQ_OP_FLUSH:
    // blk_mq_insert_request() puts it at the head of hctx->dispatch, past bfq.
    const std::string text = nullblk_bfq(R"(, "requeue_every": 5)", "",
                                         R"({ "name": "w", "rw": "randwrite", "bs": "1m", "fsync": 1,
                                              "ioengine": "libaio", "iodepth": 4, "direct": 1,
                                              "runtime": "10ms", "time_based": 1 })");
    const scenario::Scenario s = scenario::load_scenario_text(text, "requeue-flush.json", {});
    topology::Machine m(s.machine);
    const result::RunResult r = m.run();
    const sched::Bfq& bfq = bfq_of(m);
    const auto& q = m.queues()[0]->stats();
    INFO(r.jobs[0].dir[1].total_ios << " writes, " << q.flushes << " flushes, " << q.requeues << " requeues, "
                                    << bfq.stats().requeued << " of them through bfq");
    CHECK(q.flushes > 10);
    // Requeues that bfq did not see were flushes.
    CHECK(q.requeues > bfq.stats().requeued);
    CHECK(bfq.stats().requeued > 0);
    CHECK(bfq.stats().dispatched == bfq.stats().completed + bfq.stats().requeued);
    CHECK(bfq.tot_rq_in_driver() == 0);
}
