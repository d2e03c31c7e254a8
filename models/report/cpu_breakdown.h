// Where each core's time went, by kind of work (cpu::Work): a job thread's steps, the kernel
// work charged by the block layer's steps, the spin on locks. For `report`'s pages and the
// --perfetto metadata; attached as the cores' WorkTrace, it costs nothing when not attached.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/cpu/cpu.h"

namespace blksim::topology {
class Machine;
}

namespace blksim::report {

class CpuBreakdown final : public cpu::WorkTrace {
public:
    explicit CpuBreakdown(uint32_t nr_cpus) : ns_(nr_cpus), step_spin_(nr_cpus, 0) {}

    // A step's own time without the spin inside it, a lock section's hold without its spin:
    // the spin is counted as spin.
    void work(uint32_t cpu, cpu::Work w, sim::Time start, sim::Duration len, sim::Duration cost,
              sim::Duration spin) override;

    // Per core, nanoseconds per kind of work (indexed by cpu::Work).
    const std::vector<std::array<int64_t, cpu::NR_WORK_KINDS>>& ns() const { return ns_; }

private:
    std::vector<std::array<int64_t, cpu::NR_WORK_KINDS>> ns_;
    std::vector<int64_t> step_spin_;  // per core: spin inside the step being played out
};

// Every core of `m` reports its work to `b`. Call before m.run().
void attach_cpu_breakdown(topology::Machine& m, cpu::WorkTrace& b);

}  // namespace blksim::report
