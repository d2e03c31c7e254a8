// The floor under the device-scaling table (docs/performance.md, scripts/device-scaling.sh):
// what a simulator pays per I/O for memory alone when each I/O touches `lines` cache lines of
// its own device's state and the devices take their turns. No simulation here: each device is
// a 32 KiB block of its own (blksim keeps 36-56 KB per device), `lines` fixed lines of it are
// its hot state, and one I/O increments a counter in each. With one device the block stays in
// L1 and L2; with 1,024 the blocks (32 MiB) no longer fit the last level beside each other.
//
//   BM_DeviceLines/D/K       the K lines are independent (the CPU fetches them in parallel):
//                            a lower bound on what K lines of state cost
//   BM_DeviceLinesChain/D/K  each line names the next (a request leads to its queue, the queue
//                            to its tags): the fetches are serialised, as a model's pointers are
//
// The per-I/O time at D devices less that at one device is the memory cost of scale that no
// amount of saved instructions removes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "sim/random.h"

namespace {

constexpr uint32_t kBlockLines = 512;  // 32 KiB of 64-byte lines per device
constexpr uint32_t kLineWords = 8;

// A device's hot lines are base, base + step, base + 2 step, ... modulo the block (an odd
// step makes them distinct), so finding them reads no memory of its own.
struct Hot {
    uint32_t base, step;
    uint32_t word(uint32_t i) const { return ((base + i * step) & (kBlockLines - 1)) * kLineWords; }
};

struct Devices {
    std::vector<std::unique_ptr<uint64_t[]>> block;  // one allocation per device, as a model's
    std::vector<Hot> hot;
    std::vector<uint32_t> order;  // the devices' turns: a fixed shuffle

    Devices(uint32_t devices, uint32_t lines) : block(devices), hot(devices), order(devices) {
        blksim::sim::Rng rng(1, "bench.memory_floor");
        for (uint32_t d = 0; d < devices; ++d) {
            block[d] = std::make_unique<uint64_t[]>(kBlockLines * kLineWords);
            hot[d] = {static_cast<uint32_t>(rng.below(kBlockLines)),
                      2 * static_cast<uint32_t>(rng.below(kBlockLines / 2)) + 1};
            // The chain: each hot line holds the word of the next one, the last one none.
            for (uint32_t i = 0; i < lines; ++i)
                block[d][hot[d].word(i)] = i + 1 < lines ? hot[d].word(i + 1) : UINT32_MAX;
        }
        std::iota(order.begin(), order.end(), 0u);
        for (uint32_t i = devices; i > 1; --i)
            std::swap(order[i - 1], order[rng.below(i)]);
    }
};

void BM_DeviceLines(benchmark::State& state) {
    const auto devices = static_cast<uint32_t>(state.range(0));
    const auto lines = static_cast<uint32_t>(state.range(1));
    Devices m(devices, lines);
    uint32_t turn = 0;
    for (auto _ : state) {
        const uint32_t d = m.order[turn];
        turn = turn + 1 == devices ? 0 : turn + 1;
        uint64_t* b = m.block[d].get();
        const Hot h = m.hot[d];
        for (uint32_t i = 0; i < lines; ++i)
            ++b[h.word(i) + 1];  // beside the chain word, so the chain is not disturbed
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}

void BM_DeviceLinesChain(benchmark::State& state) {
    const auto devices = static_cast<uint32_t>(state.range(0));
    Devices m(devices, static_cast<uint32_t>(state.range(1)));
    uint32_t turn = 0;
    for (auto _ : state) {
        const uint32_t d = m.order[turn];
        turn = turn + 1 == devices ? 0 : turn + 1;
        uint64_t* b = m.block[d].get();
        for (uint64_t w = m.hot[d].word(0); w != UINT32_MAX; w = b[w])
            ++b[w + 1];
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations());
}

void device_args(benchmark::internal::Benchmark* b) {
    for (const int64_t lines : {16, 32, 64})
        for (const int64_t devices : {1, 8, 64, 256, 1024})
            b->Args({devices, lines});
}

}  // namespace

BENCHMARK(BM_DeviceLines)->Apply(device_args);
BENCHMARK(BM_DeviceLinesChain)->Apply(device_args);
