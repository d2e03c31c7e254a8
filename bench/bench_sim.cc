// Microbenchmarks of the discrete-event kernel (sim/): the pending-event set under the
// classic hold model, the same-instant FIFO lane, timer churn, the random streams and the
// latency histogram. Every benchmark reports items/s (one item = one event, one timer
// operation, one draw, one sample).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/stats.h"
#include "sim/time.h"
#include "sim/timer.h"

using namespace blksim::sim;

namespace {

// Pre-drawn exponential increments (mean 1 us, at least 1 ns), so the hold-model loop
// measures the queue rather than the RNG and log().
class DeltaTable {
public:
    explicit DeltaTable(double mean_ns, const char* name) : d_(kSize) {
        Rng r(1, name);
        for (auto& d : d_) {
            const double u = 1.0 - r.uniform();  // (0, 1]
            d = 1 + static_cast<int64_t>(-std::log(u) * mean_ns);
        }
    }
    int64_t next() { return d_[i_++ & (kSize - 1)]; }

private:
    static constexpr std::size_t kSize = 1 << 16;
    std::vector<int64_t> d_;
    std::size_t i_ = 0;
};

// Hold model: N events pending; each dispatched event schedules one replacement at
// now + Exp(1 us), so the population stays exactly N.
struct HoldModel {
    EventQueue q;
    DeltaTable deltas{1000.0, "bench.hold"};
    static void fire(void* self, uint64_t arg) {
        auto* h = static_cast<HoldModel*>(self);
        h->q.schedule(h->q.now() + Duration::ns(h->deltas.next()), &HoldModel::fire, self, arg);
    }
};

void BM_EventQueueHold(benchmark::State& state) {
    const auto n = static_cast<int64_t>(state.range(0));
    auto h = std::make_unique<HoldModel>();
    for (int64_t i = 0; i < n; ++i)
        h->q.schedule(Time::zero() + Duration::ns(h->deltas.next()), &HoldModel::fire, h.get(),
                      static_cast<uint64_t>(i));
    // Warm up so the time distribution of pending events reaches steady state.
    for (int64_t i = 0; i < 2 * n; ++i)
        h->q.run_one();
    for (auto _ : state)
        h->q.run_one();
    state.SetItemsProcessed(state.iterations());
    state.counters["pending"] = static_cast<double>(h->q.pending());
}
BENCHMARK(BM_EventQueueHold)->Arg(16)->Arg(128)->Arg(1 << 10)->Arg(1 << 13)->Arg(1 << 16)->Arg(1 << 18)->Arg(1 << 20);

// Same-instant lane: K events due now, each re-scheduling itself for now (a burst of
// zero-delay completions/dispatches). Pure FIFO ring traffic, the clock never moves.
struct SameInstant {
    EventQueue q;
    static void fire(void* self, uint64_t arg) {
        auto* s = static_cast<SameInstant*>(self);
        s->q.schedule(s->q.now(), &SameInstant::fire, self, arg);
    }
};

void BM_EventQueueSameInstant(benchmark::State& state) {
    const auto k = static_cast<int64_t>(state.range(0));
    auto s = std::make_unique<SameInstant>();
    for (int64_t i = 0; i < k; ++i)
        s->q.schedule(s->q.now(), &SameInstant::fire, s.get(), static_cast<uint64_t>(i));
    for (auto _ : state)
        s->q.run_one();
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueSameInstant)->Arg(1)->Arg(64)->Arg(4096);

// Same-instant events mixed with a hold-model background: while heap events are due at
// the current instant, each dispatch also adds a zero-delay event (one in two).
struct Mixed {
    EventQueue q;
    DeltaTable deltas{1000.0, "bench.mixed"};
    uint64_t flip = 0;
    static void fire(void* self, uint64_t arg) {
        auto* m = static_cast<Mixed*>(self);
        const int64_t d = (++m->flip & 1) ? 0 : m->deltas.next();
        m->q.schedule(m->q.now() + Duration::ns(d), &Mixed::fire, self, arg);
    }
};

void BM_EventQueueMixedLanes(benchmark::State& state) {
    const auto n = static_cast<int64_t>(state.range(0));
    auto m = std::make_unique<Mixed>();
    for (int64_t i = 0; i < n; ++i)
        m->q.schedule(Time::zero() + Duration::ns(m->deltas.next()), &Mixed::fire, m.get(), 0);
    for (auto _ : state)
        m->q.run_one();
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueMixedLanes)->Arg(1 << 10)->Arg(1 << 16);

// Timer arm + cancel, then the stale event is dispatched and ignored: the full cost of a
// timer that is armed and cancelled before it expires (e.g. a device timeout).
void noop(void*, uint64_t) {}

void BM_TimerArmCancel(benchmark::State& state) {
    EventQueue q;
    Timer t(q, &noop, nullptr);
    for (auto _ : state) {
        t.arm(q.now() + Duration::ns(100));
        t.cancel();
        q.run_one();
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TimerArmCancel);

// K timers re-armed round-robin (bfq idle timers, kyber windows): each iteration re-arms
// one timer and dispatches one event (stale or live), so K events stay pending.
void BM_TimerRearmChurn(benchmark::State& state) {
    const auto k = static_cast<std::size_t>(state.range(0));
    EventQueue q;
    DeltaTable deltas(10'000.0, "bench.timer");
    std::vector<std::unique_ptr<Timer>> timers;
    timers.reserve(k);
    for (std::size_t i = 0; i < k; ++i) {
        timers.push_back(std::make_unique<Timer>(q, &noop, nullptr));
        timers.back()->arm(q.now() + Duration::ns(deltas.next()));
    }
    std::size_t i = 0;
    for (auto _ : state) {
        timers[i]->arm(q.now() + Duration::ns(deltas.next()));
        if (++i == k)
            i = 0;
        q.run_one();
    }
    state.SetItemsProcessed(state.iterations());
    state.counters["pending"] = static_cast<double>(q.pending());
}
BENCHMARK(BM_TimerRearmChurn)->Arg(64)->Arg(4096);

void BM_RngNext(benchmark::State& state) {
    Rng r(1, "bench.next");
    for (auto _ : state)
        benchmark::DoNotOptimize(r.next());
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RngNext);

void BM_RngUniform(benchmark::State& state) {
    Rng r(1, "bench.uniform");
    for (auto _ : state)
        benchmark::DoNotOptimize(r.uniform());
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RngUniform);

// below(n): n = 1000 and 2^30 (a block count) almost never take the slow path; 3 * 2^62
// computes the 64-bit `-n % n` on almost every call and rejects 1/4 of the draws.
void BM_RngBelow(benchmark::State& state, uint64_t n) {
    Rng r(1, "bench.below");
    for (auto _ : state)
        benchmark::DoNotOptimize(r.below(n));
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(BM_RngBelow, 1000, uint64_t{1000});
BENCHMARK_CAPTURE(BM_RngBelow, 2pow30, uint64_t{1} << 30);
BENCHMARK_CAPTURE(BM_RngBelow, 3x2pow62, uint64_t{3} << 62);

void BM_RngConstruct(benchmark::State& state) {
    for (auto _ : state) {
        Rng r(42, "job17.offsets");
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RngConstruct);

// LatencyHistogram::add over log-uniform latencies from 100 ns to 100 ms (all groups hit).
void BM_LatencyHistogramAdd(benchmark::State& state) {
    constexpr std::size_t kSize = 1 << 16;
    std::vector<uint64_t> lat(kSize);
    Rng r(1, "bench.hist");
    for (auto& v : lat)
        v = static_cast<uint64_t>(100.0 * std::pow(1e6, r.uniform()));
    auto h = std::make_unique<LatencyHistogram>();
    std::size_t i = 0;
    for (auto _ : state) {
        h->add(lat[i++ & (kSize - 1)]);
    }
    benchmark::DoNotOptimize(h->total());
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LatencyHistogramAdd);

void BM_RunningStatAdd(benchmark::State& state) {
    RunningStat s;
    double v = 1000.0;
    for (auto _ : state) {
        s.add(v);
        v += 1.0;
    }
    benchmark::DoNotOptimize(s.mean());
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RunningStatAdd);

}  // namespace

BENCHMARK_MAIN();
