// mq-deadline in the block layer: scheduler tags, insert and dispatch under dd->lock, the
// lock's contention on a CPU-bound device (seed experiment E3's mechanism), direct dispatch.
#include <catch2/catch.hpp>

#include <string>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <numeric>
#include <functional>
#include <vector>

#include "models/sched/mq_deadline.h"
#include "models/device/null_blk_config.h"
#include "models/blkmq/trace.h"
#include "sim/random.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct ActionSink final : blkmq::TraceSink {
    std::string actions;
    void emit(uint32_t, const blkmq::TraceEvent& e) override { actions += static_cast<char>(e.action); }
};

topology::MachineConfig machine(const std::string& sched, uint32_t numjobs, bool direct = false) {
    using namespace blksim::sim::literals;
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::NONE;
    auto m = testing::nullb_machine(12, nb, sched, 4);
    m.host.costs.elv_insert = 300_ns;
    m.host.costs.elv_dispatch = 400_ns;
    m.host.costs.lock_handoff = 100_ns;
    m.queues[0].tunables<sched::MqDeadlineTunables>().direct_dispatch = direct ? 1 : 0;
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.name = "r";
    j.numjobs = numjobs;
    j.runtime = 5_ms;
    j.time_based = true;
    m.jobs.push_back(j);
    return m;
}

double iops(const topology::MachineConfig& cfg, double* spin_share = nullptr) {
    topology::Machine m(cfg);
    auto r = m.run();
    uint64_t ios = 0;
    for (const auto& j : r.jobs)
        ios += j.dir[0].total_ios;
    if (spin_share) {
        double spin = 0, busy = 0;
        for (const auto& c : r.cpus) {
            spin += static_cast<double>(c.spin.count());
            busy += static_cast<double>(c.busy.count());
        }
        *spin_share = busy > 0 ? spin / busy : 0;
    }
    return static_cast<double>(ios) / 5e-3;
}

}  // namespace

TEST_CASE("mq-deadline: requests are inserted (I) and dispatched under the lock", "[models][mq-deadline-path]") {
    auto cfg = machine("mq-deadline", 1);
    cfg.jobs[0].runtime = 20_us;
    topology::Machine m(cfg);
    ActionSink sink;
    m.set_trace(&sink);
    m.run();  // invariants: the scheduler holds nothing, no scheduler tag left in use
    REQUIRE(sink.actions.size() >= 14);
    CHECK(sink.actions.substr(0, 14) == "QGPUIDCQGPUIDC");
    const auto& q = *m.queues()[0];
    CHECK(q.nr_requests() == 128);  // 2 * min(64, 128)
    CHECK(q.elevator_lock().acquisitions() > 0);
}

TEST_CASE("mq-deadline's single lock costs little at 1 job and collapses 10 jobs", "[models][mq-deadline-path][e3]") {
    const double none1 = iops(machine("none", 1));
    const double dl1 = iops(machine("mq-deadline", 1));
    // One psync job, CPU-bound (irqmode=0): per I/O prep 50 + syscall 100 + bio 100 + rq 100
    // + plug 50 + queue_rq 100 + complete_rq 150 + pread return 80 = 730 ns. mq-deadline adds
    // three dd->lock sections: the bio-merge attempt and the insert (300 each) and the
    // dispatch (400); one CPU never hands the lock off.
    CHECK(none1 == Approx(1e9 / 730).epsilon(0.01));
    CHECK(dl1 == Approx(1e9 / (730 + 1000)).epsilon(0.01));
    double spin10 = 0;
    const double none10 = iops(machine("none", 10));
    const double dl10 = iops(machine("mq-deadline", 10, false), &spin10);
    // Ten jobs on ten CPUs: none scales, mq-deadline is held to 1 / (insert + dispatch +
    // hand-offs) per request whatever the number of CPUs, and the cores spin.
    CHECK(none10 > 8 * none1);
    CHECK(dl10 < 0.5 * none10);
    // The lock bounds it: 1000 ns held per request. A request's sections are given out at
    // two points of its step (the bio-merge attempt at the step's start, the insert and the
    // dispatch at its end), so the lock's timeline keeps gaps too short for another core's
    // section, besides the hand-offs: it gets 60-100 % of that bound (63 % here; these jobs
    // reach the lock in the order they ask for it, so serving callers in arrival order
    // changes nothing).
    CHECK(dl10 <= 1e9 / 1000);
    CHECK(dl10 >= 0.6 * 1e9 / 1000);
    CHECK(spin10 > 0.2);
    // E3's patch: direct dispatch skips the insert/dispatch pair when it cannot change the
    // decision (nothing queued, hctx idle) — most of the gap closes.
    double spin_direct = 0;
    const double direct10 = iops(machine("mq-deadline", 10, true), &spin_direct);
    CHECK(direct10 > 1.5 * dl10);
    CHECK(spin_direct < spin10);
}

TEST_CASE("mq-deadline merges bios into requests it holds (and fuses neighbours)", "[models][mq-deadline-path][merge]") {
    using namespace blksim::sim::literals;
    // Sequential writes, one io_submit per 4 KiB, but only 2 driver tags: requests wait in
    // the scheduler and later bios back-merge into them under dd->lock.
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 200_us;
    nb.hw_queue_depth = 2;
    auto m = testing::nullb_machine(1, nb, "mq-deadline", 6);
    auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::WRITE);
    j.iodepth = 32;
    j.number_ios = 2048;
    m.jobs.push_back(j);
    topology::Machine machine(m);
    ActionSink sink;
    machine.set_trace(&sink);
    auto r = machine.run();  // invariants: every bio ended once, the scheduler empty, tags back
    const auto& st = machine.queues()[0]->stats();
    CHECK(r.jobs[0].dir[1].total_ios == 2048);
    CHECK(st.merges[1] > 1000);
    CHECK(st.ios[1] + st.merges[1] >= 2048);  // each bio either started a request or merged
    CHECK(st.ios[1] < 1024);
    CHECK(st.sectors[1] == 2048 * 8);
    CHECK(sink.actions.find('M') != std::string::npos);
}

TEST_CASE("the report's lock line: dd->lock's wait is the CPUs' spin, its hold the sections' cost", "[models][mq-deadline-path][locks]") {
    for (const uint32_t jobs : {1u, 10u}) {
        const auto cfg = machine("mq-deadline", jobs);  // the machine keeps a reference
        topology::Machine m(cfg);
        const auto r = m.run();
        REQUIRE(r.queues.size() == 1);
        REQUIRE(r.queues[0].locks.size() == 1);
        const result::LockReport& l = r.queues[0].locks[0];
        CHECK(l.name == "nullb0.elevator");
        int64_t spin = 0;
        for (const auto& c : r.cpus)
            spin += c.spin.count();
        INFO(jobs << " jobs");
        // Every section spins on a core and nowhere else.
        CHECK(l.wait.count() == spin);
        // Per request: a merge attempt and an insert (300 ns each), a dispatch (400 ns).
        const uint64_t ios = r.queues[0].q2c.stat.count();
        CHECK(l.acquisitions >= 3 * ios);
        CHECK(l.held.count() >= static_cast<int64_t>(1000 * ios));
        if (jobs == 1) {
            CHECK(l.contended == 0);  // one CPU never waits for itself
            CHECK(l.wait.count() == 0);
        } else {
            CHECK(l.contended > l.acquisitions / 5);  // a third of the sections spin (3181 of 9516)
            CHECK(l.wait > l.held / 2);              // the lock is saturated: spin rivals the hold time
            CHECK(l.wait_max.count() > 0);
        }
    }
    // Without an elevator there is no lock to report.
    const auto none_cfg = machine("none", 10);
    topology::Machine none(none_cfg);
    CHECK(none.run().queues[0].locks.empty());
}

// Two CPUs, each job's step charging a slow ->queue_rq (6.5 us) before its next lock
// section: the sections a step reserves ahead must not make the other core, which reaches
// dd->lock earlier, queue behind them. A FIFO lock between two cores makes a caller wait
// at most one turn of the other and the hand-off (a turn: the insert and the dispatch that
// follows it at once, 700 ns).
TEST_CASE("mq-deadline on 2 CPUs with a 6.5 us queue_rq: dd->lock waits are one turn of the other core, not a queue_rq", "[models][mq-deadline-path][locks]") {
    auto cfg = machine("mq-deadline", 2);
    cfg.host.nr_cpus = 2;
    cfg.host.costs.queue_rq = 6500_ns;
    topology::Machine m(cfg);
    const auto r = m.run();
    const result::LockReport& l = r.queues[0].locks[0];
    REQUIRE(l.contended > 0);
    const auto mean_wait = l.wait / static_cast<int64_t>(l.contended);
    INFO("acquisitions " << l.acquisitions << ", contended " << l.contended << ", mean wait " << mean_wait.count()
                         << " ns, max " << l.wait_max.count() << " ns, held " << l.held.count() << " ns, waited "
                         << l.wait.count() << " ns");
    CHECK(mean_wait <= 300_ns + 400_ns + 100_ns);
    CHECK(l.wait_max <= 300_ns + 400_ns + 100_ns);
    CHECK(l.wait < l.held);
}

// A property through the whole stack (plug, scheduler tags, insert and dispatch rounds,
// driver tags, the device, completions restarting the queue): under random mixes of
// readers and writers, depths, device speeds and tunables, no request waits in mq-deadline
// (I2D) longer than its expire time plus what the requests allowed ahead of it take.
// After a request's deadline passes, the next batch of its direction starts at the oldest
// request, so ahead of it are at most the Q requests queued (older ones of its direction),
// up to writes_starved read batches of fifo_batch per write batch, the batch in progress and
// the D commands in the device; each dispatch slot takes S / D on a device that completes
// every command in S with D in flight. Deadlines are kept in jiffies (HZ = 250): +1 jiffy.
TEST_CASE("mq-deadline through the stack: no request waits beyond its expire time plus a bound", "[models][mq-deadline-path][property]") {
    for (uint64_t seed = 1; seed <= 24; ++seed) {
        sim::Rng rng(seed, "property");
        const auto pick = [&](std::initializer_list<int64_t> v) { return *(v.begin() + rng.below(v.size())); };
        dev::NullBlkConfig nb;
        nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        nb.completion_nsec = sim::Duration::ns(pick({20'000, 100'000, 500'000}));
        nb.hw_queue_depth = static_cast<uint32_t>(pick({1, 2, 4, 8}));
        auto m = testing::nullb_machine(4, nb, "mq-deadline", seed);
        m.queues[0].nr_requests = 1024;  // requests wait in the scheduler, not for its tags
        auto& t = m.queues[0].tunables<sched::MqDeadlineTunables>();
        t.read_expire = sim::Duration::ns(pick({4'000'000, 20'000'000, 50'000'000}));
        t.write_expire = sim::Duration::ns(pick({8'000'000, 40'000'000, 100'000'000}));
        t.fifo_batch = static_cast<int32_t>(pick({1, 4, 16}));
        t.writes_starved = static_cast<int32_t>(pick({1, 2, 4}));
        uint64_t q = 0;
        const auto nr_jobs = static_cast<uint32_t>(pick({1, 2, 3, 4}));
        for (uint32_t k = 0; k < nr_jobs; ++k) {
            auto j = testing::nullb_job(workload::IoEngine::LIBAIO,
                                        pick({0, 1}) ? workload::RwPattern::RANDRW : workload::RwPattern::RW);
            j.name = "j" + std::to_string(k);
            j.rwmixread = static_cast<uint32_t>(pick({10, 50, 90}));
            j.iodepth = static_cast<uint32_t>(pick({4, 16, 64}));
            j.runtime = 300_ms;
            j.time_based = true;
            j.cpus_allowed = {k};
            q += j.iodepth;
            m.jobs.push_back(j);
        }
        topology::Machine machine(m);
        const auto r = machine.run();  // the invariant checks run inside
        const auto& st = machine.queues()[0]->stats();
        const int64_t expire = std::max(t.read_expire.count(), t.write_expire.count()) + 4'000'000;
        const auto ahead = static_cast<int64_t>(q * (1 + static_cast<uint64_t>(t.writes_starved)) +
                                                static_cast<uint64_t>(t.fifo_batch) + nb.hw_queue_depth);
        const int64_t bound = expire + ahead * nb.completion_nsec.count() / nb.hw_queue_depth;
        INFO("seed " << seed << ": S=" << nb.completion_nsec.count() << " D=" << nb.hw_queue_depth << " Q=" << q
                     << " fifo_batch=" << t.fifo_batch << " writes_starved=" << t.writes_starved
                     << " I2D max=" << st.i2d.stat.max() << " bound=" << bound);
        CHECK(st.ios[0] > 0);
        CHECK(st.ios[1] > 0);
        CHECK(st.i2d.stat.max() <= static_cast<double>(bound));
    }
}

// E1's nr_sched_batch: a dispatch round that may pull only one request leaves the rest in
// mq-deadline while its ->queue_rq runs, and the loop goes on when that is done; bios that
// arrive meanwhile can still merge into them. With the default round (nr_requests) all are
// pulled at once and a later bio finds nothing to merge with.
TEST_CASE("nr_sched_batch=1: requests wait in the elevator during the dispatch loop and stay mergeable", "[models][mq-deadline-path][e1]") {
    const auto run = [](int32_t batch) {
        dev::NullBlkConfig nb;
        nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        nb.completion_nsec = 10_us;
        auto m = testing::nullb_machine(2, nb, "mq-deadline", 1);
        m.host.costs.queue_rq = 100_us;  // a slow driver: the loop over 16 requests takes 1.6 ms
        if (batch > 0)
            m.queues[0].tunables<sched::MqDeadlineTunables>().nr_sched_batch = batch;
        // Job a: 16 writes of 4 KiB, 1 MiB apart, all submitted at once (one plug, one insert).
        auto a_log = std::make_shared<workload::ReplayLog>();
        a_log->timing = workload::ReplayTiming::NONE;
        for (uint64_t i = 0; i < 16; ++i)
            a_log->entries.push_back({0, i << 20, 4096, 1});
        auto a = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::WRITE);
        a.name = "a";
        a.iodepth = 16;
        a.iodepth_batch_submit = 16;
        a.replay = a_log;
        a.cpus_allowed = {0};
        m.jobs.push_back(a);
        // Job b, on the other CPU, 0.5 ms later: a write just behind a's last one (15 MiB).
        auto b_log = std::make_shared<workload::ReplayLog>();
        b_log->entries.push_back({500'000, (15ull << 20) + 4096, 4096, 1});
        auto b = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::WRITE);
        b.name = "b";
        b.replay = b_log;
        b.cpus_allowed = {1};
        m.jobs.push_back(b);
        topology::Machine machine(m);
        machine.run();
        return machine.queues()[0]->stats();
    };
    const auto whole = run(0);
    const auto one = run(1);
    CHECK(whole.merges[1] == 0);
    CHECK(whole.ios[1] == 17);
    CHECK(one.merges[1] == 1);  // b's bio joined a's request for 15 MiB, still in the elevator
    CHECK(one.ios[1] == 16);
}

// Kernels before 6.11 have no plug around a psync direct bio (cpu::HostConfig::
// submit_bio_plug): blk_mq_submit_bio() inserts it into the elevator and runs the hctx on
// kblockd (blk_mq_sched_insert_request(rq, false, true, true)). So no P/U in the trace, and
// the D comes from the worker after it was woken and switched in, not inline after the I.
TEST_CASE("submit_bio_plug=false: a psync request goes in with no plug and kblockd issues it", "[models][mq-deadline-path][e1]") {
    struct Sink final : blkmq::TraceSink {
        std::string actions;
        std::vector<sim::Time> insert, issue;
        void emit(uint32_t, const blkmq::TraceEvent& e) override {
            actions += static_cast<char>(e.action);
            if (e.action == blkmq::TraceAction::INSERT)
                insert.push_back(e.time);
            if (e.action == blkmq::TraceAction::ISSUE)
                issue.push_back(e.time);
        }
    };
    const auto run = [](bool plug) {
        auto m = testing::timer_nullb(2, 20_us, "mq-deadline");
        m.host.submit_bio_plug = plug;
        auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
        j.number_ios = 20;
        j.cpus_allowed = {1};
        m.jobs.push_back(j);
        topology::Machine machine(m);
        auto sink = std::make_unique<Sink>();
        machine.set_trace(sink.get());
        machine.run();
        REQUIRE(sink->issue.size() == 20);
        REQUIRE(sink->insert.size() == 20);
        return sink;
    };
    const auto plugged = run(true);
    const auto unplugged = run(false);
    CHECK(plugged->actions.find('P') != std::string::npos);
    CHECK(plugged->actions.find('U') != std::string::npos);
    CHECK(unplugged->actions.find('P') == std::string::npos);
    CHECK(unplugged->actions.find('U') == std::string::npos);
    const sim::Duration wake = testing::unit_costs().context_switch;
    for (size_t i = 0; i < 20; ++i) {
        INFO("request " << i);
        CHECK(plugged->issue[i] - plugged->insert[i] < wake);     // run inline by the submitter
        CHECK(unplugged->issue[i] - unplugged->insert[i] >= wake); // the worker was switched in first
    }
}

// What makes the async run matter for E1: a bio that arrives while its neighbour waits for
// the kblockd worker merges into it; with the plug's inline run the neighbour is already gone.
// Timeline (unit costs, a 20 us context switch): a's thread starts at 0 on CPU 0 (no wake-up),
// its bio is queued at 150 ns and its request inserted at the step's end, 400 ns; the worker
// is woken and switched in, so it dispatches at 400 ns + 20 us. b's thread sleeps until 100 ns
// (its replay entry), is switched in on CPU 1 and submits at its instant 100 ns + 20 us +
// 150 ns: 150 ns before the dispatch, so it merges. b's own wake-up costs a context switch
// too: a b woken more than 250 ns after a's thread started finds a gone, however slow the
// switch (a b sleeping until 5 us reached the queue at 25.15 us, after the dispatch).
TEST_CASE("submit_bio_plug=false: a bio merges into a request still waiting for kblockd", "[models][mq-deadline-path][e1]") {
    const auto run = [](bool plug) {
        auto m = testing::timer_nullb(2, 100_us, "mq-deadline");
        m.host.submit_bio_plug = plug;
        m.host.costs.context_switch = 20_us;  // the worker's wake-up: a wide window
        for (uint32_t k = 0; k < 2; ++k) {
            // a at 0 on CPU 0, b 100 ns later on CPU 1, just behind a's 4 KiB.
            auto log = std::make_shared<workload::ReplayLog>();
            log->entries.push_back({int64_t{k} * 100, uint64_t{k} * 4096, 4096, 1});
            auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::WRITE);
            j.name = k == 0 ? "a" : "b";
            j.replay = log;
            j.cpus_allowed = {k};
            m.jobs.push_back(j);
        }
        topology::Machine machine(m);
        auto r = machine.run();
        CHECK(r.jobs[0].dir[1].total_ios + r.jobs[1].dir[1].total_ios == 2);
        return machine.queues()[0]->stats();
    };
    const auto plugged = run(true);
    const auto unplugged = run(false);
    CHECK(plugged.merges[1] == 0);
    CHECK(plugged.ios[1] == 2);
    CHECK(unplugged.merges[1] == 1);
    CHECK(unplugged.ios[1] == 1);
}

// cpu::HostConfig::os_noise: identical psync jobs stay in exact lockstep without it (every
// job completes the same number of I/Os); with it they drift, deterministically per seed.
TEST_CASE("os_noise: breaks the lockstep of identical jobs, same seed same result", "[models][e1]") {
    const auto run = [](sim::Duration noise, uint64_t seed) {
        auto m = testing::timer_nullb(4, 10_us, "none", seed);
        m.host.os_noise = noise;
        m.host.os_jitter = false;  // the noise alone
        auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::READ);
        j.numjobs = 4;
        j.runtime = 2_ms;
        j.time_based = true;
        m.jobs.push_back(j);
        topology::Machine machine(m);
        auto r = machine.run();
        std::vector<uint64_t> ios;
        for (const auto& jr : r.jobs)
            ios.push_back(jr.dir[0].total_ios);
        return ios;
    };
    const auto quiet = run({}, 1);
    CHECK(std::adjacent_find(quiet.begin(), quiet.end(), std::not_equal_to<>()) == quiet.end());
    const auto noisy = run(2_us, 1);
    CHECK(std::adjacent_find(noisy.begin(), noisy.end(), std::not_equal_to<>()) != noisy.end());
    CHECK(run(2_us, 1) == noisy);
    CHECK(run(2_us, 2) != noisy);
    // Each I/O loses 2 us on average: fewer I/Os than without.
    CHECK(std::accumulate(noisy.begin(), noisy.end(), uint64_t{0}) < std::accumulate(quiet.begin(), quiet.end(), uint64_t{0}));
}

// hctx->run_work is one work item: while a worker runs it (here busy in a 10 us ->queue_rq),
// the run another CPU queues waits for it and goes on on the same worker, so two requests
// submitted from two CPUs are issued one after the other, both ->queue_rq calls on
// the first submitter's CPU. (The trace's D carries the submitting CPU, so the CPU time is
// what shows where they ran.)
TEST_CASE("submit_bio_plug=false: one kblockd work item per hctx, never two dispatchers at once", "[models][mq-deadline-path][e1]") {
    struct Sink final : blkmq::TraceSink {
        std::vector<sim::Time> issue;
        void emit(uint32_t, const blkmq::TraceEvent& e) override {
            if (e.action == blkmq::TraceAction::ISSUE)
                issue.push_back(e.time);
        }
    };
    auto m = testing::timer_nullb(2, 100_us, "mq-deadline");
    m.host.submit_bio_plug = false;
    m.host.costs.queue_rq = 10_us;
    for (uint32_t k = 0; k < 2; ++k) {
        auto log = std::make_shared<workload::ReplayLog>();
        // a at 0, b 5 us later, while a's worker is in its ->queue_rq; 1 GiB apart.
        log->entries.push_back({int64_t{k} * 5'000, uint64_t{k} << 30, 4096, 1});
        auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::WRITE);
        j.name = k == 0 ? "a" : "b";
        j.replay = log;
        j.cpus_allowed = {k};
        m.jobs.push_back(j);
    }
    topology::Machine machine(m);
    Sink sink;
    machine.set_trace(&sink);
    const auto r = machine.run();
    REQUIRE(sink.issue.size() == 2);
    std::sort(sink.issue.begin(), sink.issue.end());
    CHECK(sink.issue[1] - sink.issue[0] >= 10_us);  // after the first ->queue_rq, not beside it
    CHECK(r.cpus[0].busy >= 20_us);                 // both ->queue_rq calls on CPU 0's worker
    CHECK(r.cpus[1].busy < 10_us);                  // none on CPU 1
}

// With an elevator a submitter sleeps for a scheduler tag when nr_requests are in use, and
// the dispatch waits for a driver tag when the device's are: each counted where it happens,
// neither in the other's count.
TEST_CASE("mq-deadline: scheduler-tag sleeps and driver-tag waits are counted apart", "[models][mq-deadline-path][tags]") {
    const auto run = [](uint32_t nr_requests, uint32_t hw_queue_depth) {
        dev::NullBlkConfig nb;
        nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        nb.completion_nsec = 50_us;
        nb.hw_queue_depth = hw_queue_depth;
        auto m = testing::nullb_machine(2, nb, "mq-deadline");
        m.queues[0].nr_requests = nr_requests;
        for (uint32_t k = 0; k < 2; ++k) {
            auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::RANDREAD);
            j.name = "j" + std::to_string(k);
            j.iodepth = 32;  // 64 in flight
            j.runtime = 5_ms;
            j.time_based = true;
            j.cpus_allowed = {k};
            m.jobs.push_back(j);
        }
        topology::Machine machine(m);
        return machine.run().queues.at(0);
    };
    // 8 scheduler tags for 64 I/Os, 64 driver tags: submitters sleep in the scheduler's tags.
    const auto few_sched = run(8, 64);
    CHECK(few_sched.has_elevator);
    CHECK(few_sched.sched_tag_sleeps > 0);
    CHECK(few_sched.driver_tag_waits == 0);
    CHECK(few_sched.tag_sleeps == 0);
    // 256 scheduler tags, 4 driver tags: every I/O gets a request, the dispatch waits.
    const auto few_driver = run(256, 4);
    CHECK(few_driver.sched_tag_sleeps == 0);
    CHECK(few_driver.driver_tag_waits > 0);
    CHECK(few_driver.tag_sleeps == 0);
}

// A hang must say where its requests are: the progress watch's message carries each busy
// queue's debugfs state, blk-mq's and the elevator's.
TEST_CASE("mq-deadline: a stalled run's message shows the queue's debugfs state", "[models][mq-deadline-path][invariants]") {
    dev::NullBlkConfig nb;
    nb.requeue_every = 1;  // ->queue_rq refuses every request: nothing ever completes
    auto m = testing::nullb_machine(1, nb, "mq-deadline");
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.number_ios = 8;
    m.jobs.push_back(j);
    std::string why;
    try {
        topology::Machine(m).run();
    } catch (const std::logic_error& e) {
        why = e.what();
    }
    INFO(why);
    CHECK(why.find("rule: the run makes progress") != std::string::npos);
    CHECK(why.find("queue state at ") != std::string::npos);
    CHECK(why.find("\n  nullb0: scheduler=mq-deadline allocated=1 freed=0") != std::string::npos);
    CHECK(why.find("\n  hctx0/sched_tags: nr_tags=") != std::string::npos);
    // The refused request waits on the requeue list for the requeue work, not in the
    // elevator nor on hctx->dispatch.
    CHECK(why.find("\n  requeue_list: 1 request(s), requeue work queued") != std::string::npos);
    CHECK(why.find("\n  hctx0/dispatch: 0 request(s)") != std::string::npos);
    CHECK(why.find("\n  sched/read1_fifo_list: 0 request(s)") != std::string::npos);
    CHECK(why.find("\n  sched/queued: 0 1 0") != std::string::npos);
}
