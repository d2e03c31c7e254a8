// What the model tests share: round per-step CPU costs, so that expected figures can be
// worked out by hand, and a machine with one null_blk disk "nullb0".
#pragma once

#include <string>
#include <utility>

#include "models/device/null_blk_config.h"
#include "models/topology/machine.h"

namespace blksim::testing {

inline cpu::CpuCosts unit_costs() {
    using namespace blksim::sim::literals;
    cpu::CpuCosts c;
    c.syscall = 100_ns;
    c.io_prep = 50_ns;
    c.bio_submit = 100_ns;
    c.rq_alloc = 100_ns;
    c.plug = 50_ns;
    c.queue_rq = 100_ns;
    c.irq = 300_ns;
    c.softirq = 200_ns;
    c.complete_rq = 150_ns;
    c.io_complete = 80_ns;
    c.reap = 40_ns;
    c.context_switch = 1000_ns;
    return c;
}

// `cpus` CPUs with unit_costs(), one null_blk "nullb0" with `nb`, its queue with scheduler
// `sched`, no jobs yet.
inline topology::MachineConfig nullb_machine(uint32_t cpus, const dev::NullBlkConfig& nb = {},
                                             const std::string& sched = "none", uint64_t seed = 1) {
    topology::MachineConfig m;
    m.seed = seed;
    m.host.nr_cpus = cpus;
    m.host.costs = unit_costs();
    // Figures worked out by hand need a quiet machine: no ticks, other tasks or wake-up
    // latency (test_os_jitter.cc tests those on their own).
    m.host.os_jitter = false;
    dev::DeviceConfig d;
    d.name = "nullb0";
    d.as<dev::NullBlkConfig>() = nb;
    m.devices.push_back(d);
    blkmq::QueueConfig q;
    q.device = "nullb0";
    q.scheduler = sched;
    m.queues.push_back(q);
    return m;
}

// nullb_machine() whose nullb0 completes every request by timer after `completion`
// (null_blk irqmode=2): a fixed, fast device.
inline topology::MachineConfig timer_nullb(uint32_t cpus, sim::Duration completion, const std::string& sched = "none",
                                           uint64_t seed = 1) {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = completion;
    return nullb_machine(cpus, nb, sched, seed);
}

// `j` alone on a `cpus`-CPU timer_nullb(): a fixed, fast device for workload tests.
inline topology::MachineConfig timer_nullb_with(workload::JobConfig j, sim::Duration completion, uint64_t seed,
                                                uint32_t cpus = 2) {
    auto m = timer_nullb(cpus, completion, "none", seed);
    j.name = "j";
    j.device = "nullb0";
    m.jobs.push_back(std::move(j));
    return m;
}

// A time-based libaio job named `name` on `dev`, pinned to `cpu` (cpus_allowed).
inline workload::JobConfig pinned_libaio_job(const std::string& name, const std::string& dev, workload::RwPattern rw,
                                             uint32_t iodepth, uint32_t cpu, sim::Duration runtime) {
    workload::JobConfig j;
    j.name = name;
    j.device = dev;
    j.ioengine = workload::IoEngine::LIBAIO;
    j.rw = rw;
    j.iodepth = iodepth;
    j.runtime = runtime;
    j.time_based = true;
    j.cpus_allowed = {cpu};
    return j;
}

// A job on nullb0 with fio's defaults but for the engine and pattern.
inline workload::JobConfig nullb_job(workload::IoEngine engine, workload::RwPattern rw) {
    workload::JobConfig j;
    j.name = "j";
    j.device = "nullb0";
    j.ioengine = engine;
    j.rw = rw;
    return j;
}

}  // namespace blksim::testing
