// The invariant checker: each rule is broken on purpose — by a driver that completes a
// command twice or loses one, a tag freed twice, a request slipped into the elevator behind
// the core's back — and the run must stop with a message naming the request or counter and
// the rule. And the periodic audit must change nothing a run reports.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/device/null_blk_config.h"
#include "models/blkmq/request_queue.h"
#include "models/sched/scheduler_kinds.h"
#include "models/blkmq/tag_set.h"
#include "models/cpu/cpu.h"
#include "models/device/device.h"
#include "models/sched/elevator.h"
#include "models/topology/machine.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// A driver with a bug chosen by the test: completes each command twice, or never.
class BuggyDevice final : public dev::Device {
public:
    enum class Bug { NONE, COMPLETE_TWICE, LOSE, ISSUE_TWICE };
    explicit BuggyDevice(Bug b) : bug_(b) {}
    void attach(blkmq::DriverQueue* q) override { q_ = q; }
    dev::BlkStatus queue_rq(blkmq::Request* rq, bool, sim::Time now, uint32_t cpu) override {
        q_->start_request(rq, now);
        if (bug_ == Bug::ISSUE_TWICE)
            q_->start_request(rq, now);
        if (bug_ == Bug::LOSE)
            return dev::BlkStatus::OK;
        q_->complete_request(rq, now, cpu, blkmq::DriverQueue::CompletionPath::INLINE);
        if (bug_ == Bug::COMPLETE_TWICE)
            q_->complete_request(rq, now, cpu, blkmq::DriverQueue::CompletionPath::INLINE);
        return dev::BlkStatus::OK;
    }
    uint32_t nr_hw_queues() const override { return 1; }
    uint32_t queue_depth() const override { return 8; }
    uint64_t capacity_sectors() const override { return 1 << 20; }
    uint32_t logical_block_size() const override { return 512; }
    bool completes_inline() const override { return true; }

private:
    Bug bug_;
    blkmq::DriverQueue* q_ = nullptr;
};

struct Ends final : blkmq::EndIo {
    int n = 0;
    void end_io(blkmq::Bio*, sim::Time) override { ++n; }
};

// One queue on a buggy device, driven by hand: one CPU, unit costs.
struct Rig {
    sim::EventQueue eq;
    std::vector<std::unique_ptr<cpu::Cpu>> cpus;
    cpu::CpuCosts costs = testing::unit_costs();
    blkmq::TagSet tags{1, 8, blkmq::TagFairness::ALWAYS};
    BuggyDevice dev;
    blkmq::QueueConfig qc;
    std::unique_ptr<blkmq::RequestQueue> q;
    Ends ends;
    blkmq::Bio bio;

    Rig(BuggyDevice::Bug bug, const std::string& sched = "none") : dev(bug) {
        cpus.push_back(std::make_unique<cpu::Cpu>(eq, 0));
        qc.device = "bug0";
        qc.scheduler = sched;
        q = std::make_unique<blkmq::RequestQueue>("bug0", eq, qc, *sched::find_scheduler_kind(sched), dev, tags,
                                                 cpus, costs);
        dev.attach(q.get());
        bio.sector = 64;
        bio.nr_sectors = 8;
        bio.end_io = &ends;
    }
    blkmq::Request* request() {
        blkmq::Request* rq = q->alloc_request(0, eq.now());
        REQUIRE(rq != nullptr);
        q->bio_to_request(rq, &bio, 1000, eq.now());
        return rq;
    }
    void submit(blkmq::Request* rq) {
        blkmq::RequestList plug;
        plug.push_back(rq);
        q->flush_plug(plug, eq.now(), 0);
    }
};

std::string failure(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::logic_error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("invariants: a request is issued and completed exactly once", "[models][invariants]") {
    SECTION("a correct driver passes and balances") {
        Rig r(BuggyDevice::Bug::NONE);
        r.submit(r.request());
        CHECK(r.ends.n == 1);
        CHECK(r.q->audit().empty());
        CHECK(r.q->allocated() == r.q->freed());
    }
    SECTION("completed twice") {
        Rig r(BuggyDevice::Bug::COMPLETE_TWICE);
        const std::string why = failure([&] { r.submit(r.request()); });
        CHECK_THAT(why, Catch::Contains("invariant violated: queue bug0: request tag 0 (sector 64 + 8, read, pid 1000"));
        CHECK_THAT(why, Catch::Contains("was completed while not in flight"));
        CHECK_THAT(why, Catch::Contains("rule: every request completes exactly once"));
        CHECK(r.ends.n == 1);  // the second completion never reached the submitter
    }
    SECTION("issued twice") {
        Rig r(BuggyDevice::Bug::ISSUE_TWICE);
        const std::string why = failure([&] { r.submit(r.request()); });
        CHECK_THAT(why, Catch::Contains("request tag 0 (sector 64 + 8, read, pid 1000, state in flight) was issued to the driver again"));
    }
    SECTION("a lost command leaves the request at the driver: the audit still balances, the end does not") {
        Rig r(BuggyDevice::Bug::LOSE);
        r.submit(r.request());
        CHECK(r.ends.n == 0);
        CHECK(r.q->audit().empty());  // one request alive, holding its tag, at the driver
        CHECK(r.q->in_flight() == 1);
    }
}

TEST_CASE("invariants: a tag freed twice stops the run", "[models][invariants]") {
    blkmq::BlkMqTags t(4);
    const uint32_t tag = t.get(sim::Time::zero());
    t.put(tag, sim::Time::zero());
    const std::string why = failure([&] { t.put(tag, sim::Time::zero()); });
    CHECK_THAT(why, Catch::Contains("tag 0 of a tag space of depth 4 was freed while not in use"));
    CHECK_THAT(why, Catch::Contains("rule: every tag is freed exactly once"));
    CHECK_THAT(failure([&] { t.put(7, sim::Time::zero()); }), Catch::Contains("tag 7 of a tag space of depth 4"));
}

TEST_CASE("invariants: the core's count of what the elevator holds is checked against the policy's", "[models][invariants]") {
    Rig r(BuggyDevice::Bug::LOSE, "mq-deadline");
    // Through the core: inserted, dispatched, at the driver; the audit balances.
    r.submit(r.request());
    CHECK(r.q->audit().empty());
    // A request put into the policy behind the core's back: the counts disagree.
    blkmq::Request* rq = r.request();
    r.q->elevator()->insert_request(rq, false, r.eq.now());
    const std::string why = r.q->audit();
    CHECK_THAT(why, Catch::Contains("the mq-deadline scheduler counts 1 requests, the core inserted 0"));
    CHECK_THAT(why, Catch::Contains("rule: inserted - dispatched - merged = held"));
    // Take it back out before the rig is torn down: a request still linked into the policy's
    // lists when they are destroyed trips Boost.Intrusive's safe-link check (assertions on).
    CHECK(r.q->elevator()->dispatch_request(0, r.eq.now()) == rq);
    CHECK(r.q->elevator_audit()->queued() == 0);
}

TEST_CASE("invariants: a driver that refuses every command forever is stopped, not simulated forever", "[models][invariants]") {
    // null_blk's fault injection refusing every ->queue_rq: the request bounces between
    // hctx->dispatch and a 3 ms rerun for ever, events keep coming, nothing completes.
    // The progress watch runs with the counter audit off too.
    for (const int64_t interval : {int64_t{10'000'000}, int64_t{0}}) {
        dev::NullBlkConfig nb;
        nb.requeue_every = 1;
        auto m = testing::nullb_machine(1, nb);
        m.audit_interval = sim::Duration::ns(interval);
        auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
        j.number_ios = 8;
        m.jobs.push_back(j);
        topology::Machine machine(m);
        const std::string why = failure([&] { machine.run(); });
        INFO("audit interval " << interval);
        CHECK_THAT(why, Catch::Contains("invariant violated at 12"));
        CHECK_THAT(why, Catch::Contains("no I/O completed for 120 s of simulated time while 1 I/Os are in the kernel"));
        CHECK_THAT(why, Catch::Contains("rule: the run makes progress"));
    }
}

TEST_CASE("invariants: a queue torn down with requests inside the scheduler unlinks them first", "[models][invariants]") {
    // A run stopped by a broken invariant may leave requests in the policy's intrusive
    // containers. The queue must destroy the elevator (the containers) before the scheduler
    // tags' request storage; the other way round, boost::intrusive's safe-mode hooks abort in
    // a build with assertions (the sanitizer build). A driver that loses every command holds
    // all 8 driver tags, so the requests after them stay in the elevator.
    for (const std::string sched : {"mq-deadline", "kyber", "bfq"}) {
        INFO(sched);
        Rig r(BuggyDevice::Bug::LOSE, sched);
        std::vector<blkmq::Bio> bios(12);
        for (std::size_t i = 0; i < bios.size(); ++i) {
            bios[i].sector = 64 + 64 * i;
            bios[i].nr_sectors = 8;
            bios[i].end_io = &r.ends;
            blkmq::Request* rq = r.q->alloc_request(0, r.eq.now());
            REQUIRE(rq != nullptr);
            r.q->bio_to_request(rq, &bios[i], 1000, r.eq.now());
            r.submit(rq);
        }
        REQUIRE(r.q->elevator() != nullptr);
        CHECK(r.q->elevator_audit()->queued() > 0);
        r.q.reset();
    }
}

TEST_CASE("invariants: the periodic audit changes nothing the run reports", "[models][invariants]") {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 20_us;
    auto run = [&](int64_t interval) {
        auto m = testing::nullb_machine(2, nb, "mq-deadline", 3);
        m.audit_interval = sim::Duration::ns(interval);
        auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::RANDRW);
        j.iodepth = 8;
        j.numjobs = 2;
        j.runtime = 50_ms;
        j.time_based = true;
        j.ramp_time = 5_ms;
        m.jobs.push_back(j);
        topology::Machine machine(m);
        auto r = machine.run();
        return std::make_pair(r, machine.events_processed());
    };
    const auto [a, ea] = run(0);
    const auto [b, eb] = run(100'000);  // every 100 us: ~500 audits
    CHECK(ea == eb);
    REQUIRE(a.jobs.size() == b.jobs.size());
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
        for (unsigned d = 0; d < 2; ++d) {
            CHECK(a.jobs[i].dir[d].io_bytes == b.jobs[i].dir[d].io_bytes);
            CHECK(a.jobs[i].dir[d].total_ios == b.jobs[i].dir[d].total_ios);
            CHECK(a.jobs[i].dir[d].clat.mean() == b.jobs[i].dir[d].clat.mean());
        }
    }
    CHECK(a.jobs[0].dir[0].total_ios > 1000);
}
