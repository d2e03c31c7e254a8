// Kyber (block/kyber-iosched.c, docs/references.md §4): driven directly for the token pools,
// the batching between domains, merges and the timer's arithmetic; then in whole machines
// for the token cap seen by a device, the feedback loop under a mixed NVMe load, the
// scenario tunables and the command line.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/device/null_blk_config.h"
#include "models/sched/kyber.h"
#include "models/topology/machine.h"
#include "sim/event_queue.h"
#include "test/cli/cli_fixture.h"
#include "test/models/machine_fixture.h"
#include "tools/scenario/scenario.h"

using namespace blksim;
using namespace blksim::sim::literals;
using blkmq::Bio;
using blkmq::ReqOp;
using blkmq::Request;
using sched::ElvMerge;
using sched::Kyber;
using sched::KyberTunables;

namespace {

constexpr ReqOp R = ReqOp::READ, W = ReqOp::WRITE;

sim::Time at(sim::Duration d) { return sim::Time::zero() + d; }

// cpus CPUs mapped onto nr_hw hctxs as blk_mq_map_queues does. The requests and the event
// queue are declared before the scheduler, which is destroyed first.
struct Rig {
    std::vector<Request> rqs;
    sim::EventQueue eq;
    std::vector<uint32_t> map;
    Kyber ky;
    std::vector<uint32_t> runs;  // hctxs a freed token asked to run (kyber_domain_wake)
    size_t next = 0;

    static std::vector<uint32_t> make_map(uint32_t cpus, uint32_t nr_hw) {
        std::vector<uint32_t> m(cpus);
        for (uint32_t c = 0; c < cpus; ++c)
            m[c] = c * nr_hw / cpus;
        return m;
    }
    explicit Rig(uint32_t cpus = 1, uint32_t nr_hw = 1, const KyberTunables& t = {}, size_t n = 4096)
        : rqs(n), map(make_map(cpus, nr_hw)), ky(t, eq, map, nr_hw) {
        ky.set_run_hw_queue([](void* self, uint32_t h, sim::Time) { static_cast<Rig*>(self)->runs.push_back(h); },
                            this);
    }
    Request* insert(ReqOp op, uint64_t sector, uint32_t cpu = 0, uint32_t nr = 8) {
        Request& r = rqs.at(next++);
        r.op = op;
        r.sector = sector;
        r.nr_sectors = nr;
        r.mq_ctx_cpu = cpu;
        ky.prepare_request(&r);
        ky.insert_request(&r, false, eq.now());
        return &r;
    }
    Request* dispatch(uint32_t h = 0) { return ky.dispatch_request(h, eq.now()); }
    // Dispatch until nothing comes out; the requests in order.
    std::vector<Request*> drain(uint32_t h = 0) {
        std::vector<Request*> out;
        while (Request* r = dispatch(h))
            out.push_back(r);
        return out;
    }
    // The request ends: allocated at t_get, issued at t_issue, done at t_done.
    void complete(Request* r, sim::Duration t_get, sim::Duration t_issue, sim::Duration t_done) {
        r->t_get = at(t_get);
        r->t_issue = at(t_issue);
        ky.finish_request(r, at(t_done));
    }
    // n requests of `op`, each dispatched and ended with the given latencies at `done`.
    void samples(ReqOp op, int n, sim::Duration total, sim::Duration io, sim::Duration done) {
        for (int i = 0; i < n; ++i) {
            insert(op, static_cast<uint64_t>(i) * 64);
            Request* r = dispatch();
            REQUIRE(r != nullptr);
            complete(r, done - total, done - io, done);
        }
    }
};

}  // namespace

TEST_CASE("kyber: kernel constants and tunables with their sysfs names", "[kyber]") {
    CHECK(sched::kyber_depth[sched::KYBER_READ] == 256);
    CHECK(sched::kyber_depth[sched::KYBER_WRITE] == 128);
    CHECK(sched::kyber_depth[sched::KYBER_DISCARD] == 64);
    CHECK(sched::kyber_depth[sched::KYBER_OTHER] == 16);
    CHECK(sched::kyber_batch_size[sched::KYBER_READ] == 16);
    CHECK(sched::kyber_batch_size[sched::KYBER_WRITE] == 8);
    CHECK(sched::kyber_batch_size[sched::KYBER_DISCARD] == 1);
    CHECK(sched::kyber_batch_size[sched::KYBER_OTHER] == 1);
    const KyberTunables d;
    const auto* r = sched::find_kyber_tunable("read_lat_nsec");
    const auto* w = sched::find_kyber_tunable("write_lat_nsec");
    REQUIRE(r);
    REQUIRE(w);
    CHECK(r->get(d) == 2'000'000);
    CHECK(w->get(d) == 10'000'000);
    KyberTunables t;
    r->set(t, 1234567);
    CHECK(t.read_lat_nsec == sim::Duration::ns(1234567));
    CHECK(sched::find_kyber_tunable("read_expire") == nullptr);
    // async_depth = 75 % of nr_requests, for async requests only.
    CHECK(Kyber::kyber_limit_depth(false, 256) == 192);
    CHECK(Kyber::kyber_limit_depth(true, 256) == 256);
    Rig rig;
    CHECK(rig.ky.limit_depth(false, 256) == 256);  // blksim's writes are O_DIRECT: REQ_SYNC
}

TEST_CASE("kyber: no more than kyber_depth[READ] reads hold tokens; a freed batch reruns the hctx", "[kyber]") {
    Rig rig;
    for (int i = 0; i < 300; ++i)
        rig.insert(R, static_cast<uint64_t>(i) * 64);
    std::vector<Request*> out = rig.drain();
    CHECK(out.size() == 256);
    CHECK(rig.ky.domain_in_use(sched::KYBER_READ) == 256);
    CHECK(rig.ky.has_work(0));
    CHECK(rig.ky.domain_waiting(0, sched::KYBER_READ));
    CHECK(rig.ky.stats(sched::KYBER_READ).throttled > 0);
    // sbitmap wakes waiters every wake_batch = min(256 / 8, 8) = 8 frees.
    for (int i = 0; i < 7; ++i)
        rig.complete(out[i], 0_ms, 0_ms, 1_ms);
    CHECK(rig.runs.empty());
    rig.complete(out[7], 0_ms, 0_ms, 1_ms);
    CHECK(rig.runs == std::vector<uint32_t>{0});
    CHECK_FALSE(rig.ky.domain_waiting(0, sched::KYBER_READ));
    CHECK(rig.drain().size() == 8);
    CHECK(rig.ky.domain_in_use(sched::KYBER_READ) == 256);
    CHECK(rig.ky.stats(sched::KYBER_READ).max_in_use == 256);
    CHECK(rig.ky.queued() == 300 - 264);
}

TEST_CASE("kyber: writes are limited to kyber_depth[WRITE], independently of reads", "[kyber]") {
    Rig rig;
    for (int i = 0; i < 200; ++i)
        rig.insert(W, static_cast<uint64_t>(i) * 64);
    CHECK(rig.drain().size() == 128);
    CHECK(rig.ky.domain_in_use(sched::KYBER_WRITE) == 128);
    // Reads have their own tokens: they still go.
    for (int i = 0; i < 10; ++i)
        rig.insert(R, 100000 + static_cast<uint64_t>(i) * 64);
    const auto reads = rig.drain();
    CHECK(reads.size() == 10);
    for (const Request* r : reads)
        CHECK(r->op == R);
}

TEST_CASE("kyber: the token pools are device-wide, shared by all hctxs", "[kyber]") {
    Rig rig(2, 2);
    for (int i = 0; i < 200; ++i) {
        rig.insert(R, static_cast<uint64_t>(i) * 64, 0);
        rig.insert(R, 1'000'000 + static_cast<uint64_t>(i) * 64, 1);
    }
    CHECK(rig.drain(0).size() == 200);
    CHECK(rig.drain(1).size() == 56);
    CHECK(rig.ky.domain_waiting(1, sched::KYBER_READ));
    CHECK_FALSE(rig.ky.domain_waiting(0, sched::KYBER_READ));
}

TEST_CASE("kyber: batches of 16 reads and 8 writes, round-robin between domains", "[kyber]") {
    Rig rig;
    for (int i = 0; i < 20; ++i) {
        rig.insert(R, static_cast<uint64_t>(i) * 64);
        rig.insert(W, 1'000'000 + static_cast<uint64_t>(i) * 64);
    }
    std::string order;
    for (Request* r : rig.drain())
        order += r->op == R ? 'R' : 'W';
    // 16 reads (READ's batch), 8 writes, the 4 reads left, then the writes: a domain that
    // runs dry mid-batch starts a new round at the next domain.
    CHECK(order == std::string(16, 'R') + std::string(8, 'W') + std::string(4, 'R') + std::string(12, 'W'));
}

TEST_CASE("kyber: a domain's ctx lists are flushed only with a token; merges happen there", "[kyber]") {
    Rig rig(2, 1);
    Request* a = rig.insert(R, 1000, 0);
    rig.insert(R, 5000, 1);
    // A bio is merged only into its own CPU's kcq list.
    Bio b;
    b.op = R;
    b.sector = a->end_sector();
    b.nr_sectors = 8;
    Request* into = nullptr;
    CHECK(rig.ky.bio_merge(1, b, 2560, &into) == ElvMerge::NO_MERGE);
    CHECK(rig.ky.bio_merge(0, b, 2560, &into) == ElvMerge::BACK_MERGE);
    CHECK(into == a);
    b.sector = a->sector - 8;
    CHECK(rig.ky.bio_merge(0, b, 2560, &into) == ElvMerge::FRONT_MERGE);
    // Too big: BIO_MERGE_FAILED, no merge.
    b.sector = a->end_sector();
    CHECK(rig.ky.bio_merge(0, b, 12, &into) == ElvMerge::NO_MERGE);
    // Flushed: both CPUs' reads move to the hctx list, in ctx order, and are out of reach.
    Request* first = rig.dispatch();
    CHECK(first == a);
    Request* c = rig.insert(R, 9000, 0);
    b.sector = 5008;
    CHECK(rig.ky.bio_merge(1, b, 2560, &into) == ElvMerge::NO_MERGE);
    b.sector = c->end_sector();
    CHECK(rig.ky.bio_merge(0, b, 2560, &into) == ElvMerge::BACK_MERGE);
    CHECK(rig.dispatch()->sector == 5000);
    CHECK(rig.dispatch() == c);
    CHECK(rig.dispatch() == nullptr);
    CHECK(rig.ky.queued() == 0);
}

// kcq_map is a bitmap over the hctx's ctxs, one 64-bit word per 64: a flush visits the
// ctxs with requests in ctx order across words, and only those, leaving every bit clear.
TEST_CASE("kyber: a flush takes the busy ctxs of every kcq_map word in ctx order", "[kyber]") {
    Rig rig(130, 1);
    // Out of ctx order, over all three words; some ctxs twice, most not at all.
    const uint32_t cpus[] = {129, 3, 64, 0, 127, 63, 3, 65, 128};
    for (uint32_t i = 0; i < std::size(cpus); ++i)
        rig.insert(R, 1000 * (i + 1), cpus[i]);
    CHECK(rig.ky.audit().empty());
    std::vector<uint32_t> order;
    for (Request* r : rig.drain())
        order.push_back(r->mq_ctx_cpu);
    CHECK(order == std::vector<uint32_t>{0, 3, 3, 63, 64, 65, 127, 128, 129});
    CHECK(rig.ky.queued() == 0);
    CHECK(rig.ky.audit().empty());
    // The bits were cleared: the next flush takes the new request alone.
    Request* again = rig.insert(R, 50000, 129);
    CHECK(rig.ky.audit().empty());
    CHECK(rig.dispatch() == again);
    CHECK(rig.dispatch() == nullptr);
}

// The state dump counts, per hctx and domain, the requests on the hctx's list and those
// still in its ctxs' lists.
TEST_CASE("kyber: debugfs counts the requests in the hctx's list and in its ctxs", "[kyber]") {
    Rig rig(4, 2);  // CPUs 0-1 on hctx 0, 2-3 on hctx 1
    rig.insert(R, 1000, 0);
    rig.insert(R, 2000, 1);
    rig.insert(R, 3000, 1);
    rig.insert(W, 4000, 3);
    std::string dump = rig.ky.debugfs_show(rig.eq.now());
    CHECK_THAT(dump, Catch::Contains("hctx0/read_rqs: 0 request(s), 3 in the ctxs\n"));
    CHECK_THAT(dump, Catch::Contains("hctx1/read_rqs: 0 request(s), 0 in the ctxs\n"));
    CHECK_THAT(dump, Catch::Contains("hctx1/write_rqs: 0 request(s), 1 in the ctxs\n"));
    // A dispatch flushes hctx 0's reads to its list and takes one.
    REQUIRE(rig.dispatch(0) != nullptr);
    dump = rig.ky.debugfs_show(rig.eq.now());
    CHECK_THAT(dump, Catch::Contains("hctx0/read_rqs: 2 request(s), 0 in the ctxs\n"));
}

TEST_CASE("kyber: latency buckets are quarters of the target", "[kyber]") {
    CHECK(Kyber::latency_bucket(2'000'000, 0) == 0);
    CHECK(Kyber::latency_bucket(2'000'000, 500'000) == 0);
    CHECK(Kyber::latency_bucket(2'000'000, 500'001) == 1);
    CHECK(Kyber::latency_bucket(2'000'000, 2'000'000) == 3);
    CHECK(Kyber::latency_bucket(2'000'000, 2'000'001) == 4);
    CHECK(Kyber::latency_bucket(2'000'000, 1'000'000'000) == 7);
}

TEST_CASE("kyber: the timer throttles good domains on congestion and eases bad ones", "[kyber]") {
    Rig rig;
    // Window 1: reads' p90 I/O latency 3 ms > 2 ms (bucket 5): congestion. Writes' p99 total
    // latency 5 ms is half their 10 ms target (bucket 1): write depth 128 * 2/4 = 64. Reads'
    // own p99 (bucket 5) asks for 256 * 6/4, clamped to the maximum 256.
    rig.samples(R, 500, 3_ms, 3_ms, 10_ms);
    rig.samples(W, 500, 5_ms, 5_ms, 10_ms);
    // The timer fires HZ/10 = 25 jiffies after the first completion, at a jiffy (4 ms each).
    rig.eq.run_until(at(107_ms));
    CHECK(rig.ky.timer_runs() == 0);
    rig.eq.run_until(at(109_ms));
    CHECK(rig.ky.timer_runs() == 1);
    CHECK(rig.ky.domain_depth(sched::KYBER_WRITE) == 64);
    CHECK(rig.ky.domain_depth(sched::KYBER_READ) == 256);
    CHECK(rig.ky.stats(sched::KYBER_WRITE).shrinks == 1);

    // Window 2: no congestion (reads fine), writes' own p99 15 ms (bucket 5): writes grow
    // to 64 * 6/4 = 96.
    rig.samples(R, 500, 1_ms, 1_ms, 200_ms);
    rig.samples(W, 500, 15_ms, 1_ms, 200_ms);
    rig.eq.run_until(at(400_ms));
    CHECK(rig.ky.timer_runs() == 2);
    CHECK(rig.ky.domain_depth(sched::KYBER_WRITE) == 96);
    CHECK(rig.ky.stats(sched::KYBER_WRITE).grows == 1);

    // Window 3: all good: nothing moves, and the timer is not re-armed without completions.
    rig.samples(R, 500, 1_ms, 1_ms, 500_ms);
    rig.samples(W, 500, 1_ms, 1_ms, 500_ms);
    rig.eq.run_until(at(2000_ms));
    CHECK(rig.ky.timer_runs() == 3);
    CHECK(rig.ky.domain_depth(sched::KYBER_WRITE) == 96);
    CHECK(rig.ky.domain_depth(sched::KYBER_READ) == 256);
    CHECK(rig.ky.check_idle().empty());
}

TEST_CASE("kyber: percentiles wait for 500 samples or a second; a p99 is kept for the next congestion", "[kyber]") {
    Rig rig;
    // 100 good writes: no percentile yet (fewer than 500 samples, less than 1 s).
    rig.samples(W, 100, 2_ms, 2_ms, 10_ms);
    rig.eq.run_until(at(150_ms));
    CHECK(rig.ky.timer_runs() == 1);
    CHECK(rig.ky.domain_p99(sched::KYBER_WRITE) == -1);
    // A second later, with a few more, the window is long enough: p99 bucket 0 is kept
    // (no congestion: the depth stays).
    rig.samples(W, 10, 2_ms, 2_ms, 1200_ms);
    rig.eq.run_until(at(1400_ms));
    CHECK(rig.ky.timer_runs() == 2);
    CHECK(rig.ky.domain_depth(sched::KYBER_WRITE) == 128);
    // The p90 I/O window was computed; the total-latency one restarted (the kernel shares
    // latency_timeout between the two), so the p99 is not there yet either.
    CHECK(rig.ky.domain_p99(sched::KYBER_WRITE) == -1);
    rig.samples(W, 500, 2_ms, 2_ms, 1500_ms);
    rig.eq.run_until(at(1700_ms));
    CHECK(rig.ky.domain_p99(sched::KYBER_WRITE) == 0);
    // Congestion from reads alone: the remembered write p99 (bucket 0) throttles writes to
    // 128 * 1/4 = 32, and is consumed.
    rig.samples(R, 500, 5_ms, 5_ms, 1800_ms);
    rig.eq.run_until(at(2000_ms));
    CHECK(rig.ky.domain_depth(sched::KYBER_WRITE) == 32);
    CHECK(rig.ky.domain_p99(sched::KYBER_WRITE) == -1);
}

namespace {

// The example scenario: on the NVMe model a 4 KiB random reader at QD 16 and a 128 KiB
// random writer at QD 128 that keeps the link busy, so reads wait behind writes at the
// device. phase2 adds, after them (stonewall), writes alone deep enough that a throttled
// write domain misses its own target.
topology::MachineConfig nvme_mixed(const std::string& sched, bool phase2) {
    std::vector<std::string> sets = {"jobs.0.runtime=1s", "jobs.1.runtime=1s"};  // after 1 s of ramp_time
    if (sched != "kyber")
        sets.push_back("queues=[{\"device\": \"nvme0\", \"scheduler\": \"" + sched + "\"}]");
    scenario::Scenario s =
        scenario::load_scenario(clitest::source_path("scenarios/examples/nvme-kyber-mixed.json"), sets);
    REQUIRE(s.machine.queues[0].scheduler == sched);
    if (phase2) {
        workload::JobConfig w2 = s.machine.jobs[1];
        w2.name = "writer2";
        w2.stonewall = true;
        w2.bs_read = w2.bs_write = 256 * 1024;
        w2.iodepth = 256;
        s.machine.jobs.push_back(w2);
    }
    return s.machine;
}

const sched::Kyber& kyber_of(const topology::Machine& m) {
    const auto* k = dynamic_cast<const sched::Kyber*>(m.queues()[0]->elevator());
    REQUIRE(k != nullptr);
    return *k;
}

}  // namespace

TEST_CASE("kyber in a machine: the device never holds more than kyber_depth requests of a domain", "[kyber]") {
    // null_blk completing every request 1 ms after issue, 1024 tags, 1024 scheduler tags:
    // with QD 512 reads, Little's law caps the rate at 256 tokens / 1 ms.
    for (const ReqOp op : {R, W}) {
        dev::NullBlkConfig nb;
        nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
        nb.completion_nsec = 1_ms;
        nb.hw_queue_depth = 1024;
        auto cfg = testing::nullb_machine(2, nb, "kyber");
        cfg.queues[0].nr_requests = 1024;
        auto j = testing::nullb_job(workload::IoEngine::LIBAIO,
                                    op == R ? workload::RwPattern::RANDREAD : workload::RwPattern::RANDWRITE);
        j.iodepth = 512;
        j.runtime = 100_ms;
        j.time_based = true;
        cfg.jobs.push_back(j);
        topology::Machine m(cfg);
        const result::RunResult res = m.run();  // checks the invariants, kyber's included
        const auto d = op == R ? sched::KYBER_READ : sched::KYBER_WRITE;
        const sched::Kyber& k = kyber_of(m);
        const uint32_t cap = sched::kyber_depth[d];
        CHECK(k.stats(d).max_in_use == cap);
        const uint64_t ios = res.jobs[0].dir[op == R ? 0 : 1].total_ios;
        // At most cap requests per 1 ms of the run, plus the ones in flight at its end.
        const double ms = static_cast<double>(res.jobs[0].runtime.count()) / 1e6;
        INFO(ios << " I/Os in " << ms << " ms");
        CHECK(static_cast<double>(ios) <= cap * (ms + 2));
        CHECK(static_cast<double>(ios) >= cap * ms * 0.9);
        CHECK(k.stats(d).dispatched == k.stats(d).completed);
        CHECK(k.stats(d).inserted == k.stats(d).dispatched + k.stats(d).merged);
    }
}

TEST_CASE("kyber in a machine: read latency over target shrinks the write depth; writes alone grow it back", "[kyber]") {
    const topology::MachineConfig cfg = nvme_mixed("kyber", true);  // the Machine keeps a reference
    topology::Machine m(cfg);
    m.run();
    const sched::Kyber& k = kyber_of(m);
    const auto& w = k.stats(sched::KYBER_WRITE);
    INFO("write depth now " << k.domain_depth(sched::KYBER_WRITE) << ", min " << w.min_depth << ", shrinks "
                            << w.shrinks << ", grows " << w.grows);
    CHECK(w.shrinks > 0);
    CHECK(w.min_depth <= 64);
    CHECK(w.grows > 0);
    CHECK(k.domain_depth(sched::KYBER_WRITE) > w.min_depth);
    CHECK(k.timer_runs() >= 10);
}

TEST_CASE("kyber in a machine: reads behind a write stream wait less than with none", "[kyber]") {
    auto mean_read_clat = [](const std::string& sched) {
        const topology::MachineConfig cfg = nvme_mixed(sched, false);
        topology::Machine m(cfg);
        const result::RunResult r = m.run();
        return r.jobs[0].dir[0].clat.mean();
    };
    const double none = mean_read_clat("none");
    const double kyber = mean_read_clat("kyber");
    INFO("read clat mean: none " << none << " ns, kyber " << kyber << " ns");
    // Measured: 5.26 ms with none; kyber settles with the write depth at 40 (128 x 3/4^4)
    // and reads at 1.66 ms, under their 2 ms target.
    CHECK(none > 5e6);
    CHECK(kyber < 2e6);
}

TEST_CASE("kyber tunables: set by sysfs name from a scenario; bad values name their JSON path", "[kyber]") {
    const std::string base = R"({
  "host": { "cost_profile": "desktop-8t" },
  "devices": [ { "name": "nvme0", "model": "nvme" } ],
  "queues": [ { "device": "nvme0", "scheduler": "kyber", "iosched": IOSCHED } ],
  "jobs": [ { "name": "j" } ]
})";
    auto with = [&](const std::string& iosched) {
        std::string s = base;
        s.replace(s.find("IOSCHED"), 7, iosched);
        return s;
    };
    const auto sc = scenario::load_scenario_text(with(R"({"read_lat_nsec": 1000000, "write_lat_nsec": 20000000})"),
                                                 "k.json", {});
    CHECK(sc.machine.queues[0].scheduler == "kyber");
    CHECK(sc.machine.queues[0].tunables<sched::KyberTunables>().read_lat_nsec == sim::Duration::ns(1'000'000));
    CHECK(sc.machine.queues[0].tunables<sched::KyberTunables>().write_lat_nsec == sim::Duration::ns(20'000'000));

    auto error_of = [&](const std::string& iosched) -> std::string {
        try {
            scenario::load_scenario_text(with(iosched), "k.json", {});
        } catch (const scenario::ScenarioError& e) {
            return e.what();
        }
        FAIL("loaded");
        return {};
    };
    CHECK_THAT(error_of(R"({"read_lat_nsec": -1})"),
               Catch::Contains("/queues/0/iosched/read_lat_nsec") && Catch::Contains("out of range"));
    CHECK_THAT(error_of(R"({"write_lat_nsec": "10ms"})"),
               Catch::Contains("/queues/0/iosched/write_lat_nsec") && Catch::Contains("expected an integer"));
    CHECK_THAT(error_of(R"({"read_expire": 100})"),
               Catch::Contains("/queues/0/iosched/read_expire") &&
                   Catch::Contains("unknown kyber tunable 'read_expire' (allowed: read_lat_nsec, write_lat_nsec, hz)"));
}

TEST_CASE("kyber from the command line: list, fio --scheduler kyber with tunables, exit 2 on a bad one", "[kyber][cli]") {
    using clitest::run_blksim;
    const auto list = run_blksim("list schedulers");
    CHECK(list.status == 0);
    CHECK_THAT(list.out, Catch::Contains("kyber") && Catch::Contains("read_lat_nsec") &&
                             Catch::Contains("2000000") && Catch::Contains("write_lat_nsec") &&
                             Catch::Contains("10000000"));

    // The tunables by --set, once --scheduler has made the queue entry.
    const std::string fio = "fio -q --output-format json ";
    // (--set before --device: a --set right before '--' swallows the fio arguments.)
    const std::string job = " --device nvme --scheduler kyber -- --name=r --ioengine=libaio --iodepth=4 --rw=randread "
                            "--bs=4k --runtime=20ms --time_based";
    const auto ok = run_blksim(fio + "--set 'queues.0.iosched={\"read_lat_nsec\": 1000000}'" + job, false);
    CHECK(ok.status == 0);
    CHECK_THAT(ok.out, Catch::Contains("\"scheduler\" : \"kyber\"") || Catch::Contains("\"scheduler\": \"kyber\""));

    const auto bad = run_blksim(fio + "--set 'queues.0.iosched={\"write_lat_nsec\": -5}'" + job);
    INFO(bad.out);
    CHECK(bad.status == 2);
    CHECK_THAT(bad.out, Catch::Contains("/queues/0/iosched/write_lat_nsec") && Catch::Contains("out of range"));

    const auto run_ex = run_blksim("run -q " + clitest::source_path("scenarios/examples/nvme-kyber-mixed.json") +
                                   " --set queues.0.iosched.read_lat_nsec=abc");
    CHECK(run_ex.status == 2);
    CHECK_THAT(run_ex.out, Catch::Contains("/queues/0/iosched/read_lat_nsec"));
}
