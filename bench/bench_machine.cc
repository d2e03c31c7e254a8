// Whole-machine benchmarks: simulated I/Os per wall-second with the full path (job
// threads, CPU model, blk-mq none path, null_blk). The scenario figures in README come
// from `blksim run` on scenarios/bench/*.json; these track the same path in isolation.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "models/device/null_blk_config.h"
#include "models/topology/machine.h"

using namespace blksim;
using namespace blksim::sim::literals;

static topology::MachineConfig nullblk_machine(uint32_t numjobs, uint32_t iodepth, sim::Duration runtime) {
    topology::MachineConfig m;
    m.seed = 1;
    m.host.nr_cpus = 8;
    auto& c = m.host.costs;
    c.syscall = 100_ns; c.io_prep = 60_ns; c.bio_submit = 150_ns; c.rq_alloc = 80_ns;
    c.plug = 40_ns; c.queue_rq = 120_ns; c.irq = 300_ns; c.softirq = 200_ns;
    c.complete_rq = 150_ns; c.io_complete = 80_ns; c.reap = 50_ns; c.context_switch = 1500_ns;
    dev::DeviceConfig d;
    d.name = "nullb0";
    d.as<dev::NullBlkConfig>().irqmode = dev::NullBlkConfig::IrqMode::NONE;
    d.as<dev::NullBlkConfig>().completion_nsec = 0_ns;
    m.devices.push_back(d);
    blkmq::QueueConfig q;
    q.device = "nullb0";
    m.queues.push_back(q);
    workload::JobConfig j;
    j.name = "w";
    j.device = "nullb0";
    j.ioengine = workload::IoEngine::IO_URING;
    j.rw = workload::RwPattern::RANDWRITE;
    j.iodepth = iodepth;
    j.numjobs = numjobs;
    j.runtime = runtime;
    j.time_based = true;
    m.jobs.push_back(j);
    return m;
}

// nullblk-32x32: 32 jobs × QD 32, io_uring 4 KiB random writes, none, irqmode=0.
static void BM_nullblk_32x32(benchmark::State& state) {
    const auto cfg = nullblk_machine(32, 32, sim::Duration::ns(state.range(0) * 1'000'000));
    uint64_t ios = 0;
    for (auto _ : state) {
        topology::Machine m(cfg);
        m.run();
        ios += m.ios_completed();
    }
    state.SetItemsProcessed(static_cast<int64_t>(ios));
}
BENCHMARK(BM_nullblk_32x32)->Arg(10)->Arg(100)->Unit(benchmark::kMillisecond);

// Cost per I/O as outstanding I/Os grow: jobs × QD from 8 × 1 to 64 × 1024 (64 k in flight).
// null_blk irqmode=2 with 100 us and enough tags, so the I/Os really are outstanding.
static void BM_nullblk_depth(benchmark::State& state) {
    // Long enough for about a million I/Os whatever the depth, so that building the machine
    // (tag spaces of 10240 requests per hctx) does not dominate.
    const auto jobs = static_cast<uint32_t>(state.range(0)), depth = static_cast<uint32_t>(state.range(1));
    const auto runtime = sim::Duration::ns(std::max<int64_t>(150'000'000, 100'000'000'000 / (jobs * depth)));
    auto cfg = nullblk_machine(jobs, depth, runtime);
    cfg.devices[0].as<dev::NullBlkConfig>().irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    cfg.devices[0].as<dev::NullBlkConfig>().completion_nsec = 100_us;
    cfg.devices[0].as<dev::NullBlkConfig>().hw_queue_depth = 10240;
    cfg.devices[0].as<dev::NullBlkConfig>().submit_queues = 8;
    uint64_t ios = 0;
    for (auto _ : state) {
        topology::Machine m(cfg);
        m.run();
        ios += m.ios_completed();
    }
    state.SetItemsProcessed(static_cast<int64_t>(ios));
}
BENCHMARK(BM_nullblk_depth)
    ->Args({8, 1})->Args({8, 32})->Args({8, 1024})->Args({8, 8192})->Args({64, 1024})
    ->Unit(benchmark::kMillisecond);
