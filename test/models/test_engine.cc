// The I/O engines' decisions (models/workload/engines/) and the plug's flush rule
// (models/blkmq/plug.h), on their own.
#include <catch2/catch.hpp>

#include <vector>

#include "models/blkmq/plug.h"
#include "models/workload/engine.h"

using namespace blksim;

TEST_CASE("libaio and io_uring reap only when full or draining, and wait for iodepth_batch_complete_min",
          "[workload][engine]") {
    workload::JobConfig cfg;
    cfg.iodepth = 8;
    cfg.iodepth_batch_submit = 4;
    cfg.iodepth_batch_complete_min = 2;
    cfg.iodepth_batch_complete_max = 0;
    cpu::HostConfig host;
    host.costs.reap = sim::Duration::ns(70);
    host.costs.syscall = sim::Duration::ns(300);
    for (const auto kind : {workload::IoEngine::LIBAIO, workload::IoEngine::IO_URING}) {
        cfg.ioengine = kind;
        const auto e = workload::make_engine(cfg, host);
        CHECK(e->depth() == 8);
        CHECK(e->batch() == 4);
        CHECK(e->plugs());
        CHECK(e->slat());
        CHECK(e->reap_cost() == sim::Duration::ns(70));
        // Room in the queue and not winding down: go on submitting.
        CHECK(e->getevents(3, 5, false, false).max == 0);
        CHECK(e->getevents(3, 5, false, false).wait == 0);
        // Full with completions posted: reap complete_max (0 resolves to complete_min).
        CHECK(e->getevents(3, 5, true, false).max == 2);
        // Draining: everything posted; with none posted, wait for one.
        CHECK(e->getevents(3, 5, false, true).max == 3);
        CHECK(e->getevents(0, 5, false, true).wait == 1);
        // Full, none posted: io_getevents blocks for complete_min, at most what is in flight.
        CHECK(e->getevents(0, 5, true, false).wait == 2);
        CHECK(e->getevents(0, 1, true, false).wait == 1);
        CHECK(e->getevents(0, 0, true, false).wait == 0);
        // Woken from io_getevents the syscall returns; from a tag wait inside io_submit not.
        CHECK(e->wake_cost(false) == sim::Duration::ns(300));
        CHECK(e->wake_cost(true) == sim::Duration());
        // io_submit's return stamps issue_time, not for an fsync.
        std::vector<workload::IoU> ious(3);
        ious[2].ddir = workload::DDIR_SYNC;
        const std::vector<uint32_t> submitted = {0, 2};
        CHECK_FALSE(e->committed(submitted, ious, sim::Time() + sim::Duration::ns(500), true));
        CHECK(ious[0].issue_time == sim::Time() + sim::Duration::ns(500));
        CHECK(ious[1].issue_time == sim::Time());
        CHECK(ious[2].issue_time == sim::Time());
    }
}

TEST_CASE("psync has one io_u, reaps it when pread returns and sleeps in pread", "[workload][engine]") {
    workload::JobConfig cfg;
    cfg.ioengine = workload::IoEngine::PSYNC;
    cfg.iodepth = 8;
    cfg.iodepth_batch_submit = 4;
    cpu::HostConfig host;
    host.costs.syscall = sim::Duration::ns(300);
    host.submit_bio_plug = false;
    const auto e = workload::make_engine(cfg, host);
    CHECK(e->depth() == 1);
    CHECK(e->batch() == 1);
    CHECK_FALSE(e->plugs());  // a kernel before 6.11 holds no plug in pread
    CHECK_FALSE(e->slat());
    CHECK(e->getevents(1, 0, true, false).max == 1);
    CHECK(e->getevents(0, 1, true, false).max == 0);
    CHECK(e->getevents(0, 1, true, false).wait == 0);
    CHECK(e->wake_cost(false) == sim::Duration());
    std::vector<workload::IoU> ious(1);
    e->queued(ious[0], sim::Time() + sim::Duration::ns(40));
    CHECK(ious[0].issue_time == sim::Time() + sim::Duration::ns(40));
    CHECK(e->committed({}, ious, sim::Time(), true));
    CHECK_FALSE(e->committed({}, ious, sim::Time(), false));
    host.submit_bio_plug = true;
    CHECK(workload::make_engine(cfg, host)->plugs());
}

TEST_CASE("a plug asks to be flushed when it holds BLK_MAX_REQUEST_COUNT requests or a large last one",
          "[blkmq][plug]") {
    blkmq::Plug plug(1000);
    CHECK_FALSE(plug.needs_flush());  // empty
    std::vector<blkmq::Request> rqs(blkmq::BLK_MAX_REQUEST_COUNT + 1);
    for (auto& rq : rqs)
        rq.nr_sectors = 8;  // 4 KiB
    for (uint32_t i = 0; i + 1 < blkmq::BLK_MAX_REQUEST_COUNT; ++i)
        plug.mq_list().push_back(&rqs[i]);
    CHECK_FALSE(plug.needs_flush());
    plug.mq_list().push_back(&rqs[blkmq::BLK_MAX_REQUEST_COUNT - 1]);
    CHECK(plug.rq_count() == blkmq::BLK_MAX_REQUEST_COUNT);
    CHECK(plug.needs_flush());

    blkmq::Plug big(1000);
    rqs[0].nr_sectors = blkmq::BLK_PLUG_FLUSH_SIZE / 512 - 8;
    big.mq_list().push_back(&rqs[0]);
    CHECK_FALSE(big.needs_flush());
    rqs[1].nr_sectors = blkmq::BLK_PLUG_FLUSH_SIZE / 512;
    big.mq_list().push_back(&rqs[1]);
    CHECK(big.needs_flush());
}
