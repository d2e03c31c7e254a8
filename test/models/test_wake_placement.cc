// Where a woken job thread runs (cpu::select_idle_sibling, JobThread::wakeup_event): on its
// previous CPU unless another task has that one, then on the next idle CPU it may use,
// within the shared cache; never off its cpus_allowed.
#include <catch2/catch.hpp>

#include <memory>
#include <numeric>
#include <vector>

#include "models/cpu/cpu.h"
#include "test/models/machine_fixture.h"
#include "test/models/scenario_run.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// A task whose every step takes the core for 10 us.
struct Busy final : cpu::Task {
    cpu::Cpu* core = nullptr;
    void run_step(sim::Time now) override { core->book(now, 10_us); }
};

struct Cores {
    sim::EventQueue q;
    std::vector<std::unique_ptr<cpu::Cpu>> cpus;
    std::vector<Busy> tasks;
    explicit Cores(uint32_t n) : tasks(n) {
        for (uint32_t c = 0; c < n; ++c)
            cpus.push_back(std::make_unique<cpu::Cpu>(q, c));
    }
    // Another task runs on `c` now.
    void occupy(uint32_t c) {
        tasks[c].core = cpus[c].get();
        cpus[c]->wake(&tasks[c], q.now());
    }
};

}  // namespace

TEST_CASE("a woken thread stays on its CPU unless another task has it, then takes the next idle one",
          "[models][cpu][placement]") {
    Cores k(4);
    Busy me;
    const std::vector<uint32_t> all{0, 1, 2, 3};
    const sim::Time now = k.q.now();
    CHECK(cpu::select_idle_sibling(k.cpus, 2, &me, all, now) == 2);

    k.occupy(2);
    CHECK(cpu::select_idle_sibling(k.cpus, 2, &me, all, now) == 3);
    k.occupy(3);  // the search wraps round from the CPU after the previous one
    CHECK(cpu::select_idle_sibling(k.cpus, 2, &me, all, now) == 0);

    SECTION("only where it is allowed") {
        const std::vector<uint32_t> some{1, 2, 3};
        CHECK(cpu::select_idle_sibling(k.cpus, 2, &me, some, now) == 1);
        k.occupy(1);
        CHECK(cpu::select_idle_sibling(k.cpus, 2, &me, some, now) == 2);  // all busy: it stays
    }
    SECTION("not across CPUs that share no cache (no sd_llc domain to search)") {
        k.cpus[2]->set_sd_llc(false);
        CHECK(cpu::select_idle_sibling(k.cpus, 2, &me, all, now) == 2);
    }
}

TEST_CASE("interrupt work and the waking thread's own last step leave a CPU idle to the scheduler",
          "[models][cpu][placement]") {
    Cores k(2);
    Busy me;
    const std::vector<uint32_t> all{0, 1};
    k.cpus[0]->irq(k.q.now(), 20_us);  // a completion's hard irq: rq->curr is still the idle task
    CHECK(cpu::select_idle_sibling(k.cpus, 0, &me, all, k.q.now()) == 0);

    // The thread's step on CPU 1 is booked to 10 us; it went to sleep in it (release).
    me.core = k.cpus[1].get();
    k.cpus[1]->wake(&me, k.q.now());
    k.cpus[1]->release(k.q.now());
    CHECK(cpu::select_idle_sibling(k.cpus, 1, &me, all, k.q.now()) == 1);
    // To another thread that CPU is busy until that step has ended; CPU 0 is not.
    Busy other;
    CHECK(cpu::select_idle_sibling(k.cpus, 1, &other, all, k.q.now()) == 0);
}

namespace {

// Five psync readers on four CPUs (a 50 us timer null_blk): each CPU's busy time, ns.
std::vector<int64_t> five_on_four(std::vector<uint32_t> cpus_allowed, bool split) {
    auto m = testing::timer_nullb(4, 50_us, "none", 7);
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.numjobs = 5;
    j.runtime = 50_ms;
    j.time_based = true;
    j.cpus_allowed = std::move(cpus_allowed);
    j.cpus_split = split;
    m.jobs.push_back(j);
    topology::Machine machine(m);
    const auto r = machine.run();
    std::vector<int64_t> busy;
    for (const auto& c : r.cpus)
        busy.push_back(c.busy.count());
    return busy;
}

}  // namespace

TEST_CASE("a fifth thread on four CPUs spreads over the idle ones, unless pinned", "[models][cpu][placement]") {
    // Threads are placed round-robin, so threads 0 and 4 start on CPU 0. Each sleeps for every
    // read; woken while the other runs there, it moves to an idle CPU, and the work spreads.
    const std::vector<int64_t> busy = five_on_four({}, false);
    const double others = std::accumulate(busy.begin() + 1, busy.end(), 0.0) / 3;
    CHECK(static_cast<double>(busy[0]) < 1.25 * others);

    // cpus_allowed_policy=split pins each thread to one CPU: CPU 0 carries two threads' work.
    const std::vector<int64_t> pinned = five_on_four({0, 1, 2, 3}, true);
    const double pinned_others = std::accumulate(pinned.begin() + 1, pinned.end(), 0.0) / 3;
    CHECK(static_cast<double>(pinned[0]) > 1.6 * pinned_others);
}

TEST_CASE("a tag sleeper woken onto another hardware queue makes up the wake-up it took",
          "[models][cpu][placement][tags]") {
    // One scheduler tag per hctx (nr_requests=1), an hctx per CPU, eight threads on four
    // CPUs. A sleeper woken for hctx A's tag that is placed on another CPU retries on that
    // CPU's hctx B: unless it wakes the next sleeper of A (blk_mq_get_tag()'s
    // sbitmap_queue_wake_up(bt_prev, 1)), A's tag stays free with a sleeper beside it, and
    // once nothing else frees a tag of A that sleeper never runs again (the run stalls).
    const auto r = testing::run_scenario_text(R"({"host": {"cpus": 4, "cost_profile": "e2-testbox"},
      "devices": [{"name": "d0", "model": "nvme", "params": {"nr_io_queues": 4}}],
      "queues": [{"device": "d0", "scheduler": "mq-deadline", "nr_requests": 1}],
      "jobs": [{"name": "j", "device": "d0", "ioengine": "libaio", "iodepth": 4, "rw": "randread",
                "bs": "4k", "numjobs": 8, "runtime": "20ms", "time_based": 1}]})",
                                              "fake-wake");
    REQUIRE(r.jobs.size() == 8);
    for (const auto& j : r.jobs)
        CHECK(j.dir[0].total_ios > 50);
}
