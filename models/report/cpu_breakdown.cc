#include "models/report/cpu_breakdown.h"

#include "models/topology/machine.h"

namespace blksim::report {

void CpuBreakdown::work(uint32_t cpu, cpu::Work w, sim::Time, sim::Duration, sim::Duration cost,
                        sim::Duration spin) {
    if (cpu >= ns_.size())
        return;
    auto& b = ns_[cpu];
    const auto at = [](cpu::Work k) { return static_cast<std::size_t>(k); };
    switch (w) {
    case cpu::Work::STEP:
        b[at(w)] += cost.count() - step_spin_[cpu];
        step_spin_[cpu] = 0;
        break;
    case cpu::Work::SPIN:  // inside a step: counted out of the step's own time
        step_spin_[cpu] += spin.count();
        b[at(w)] += spin.count();
        break;
    default:
        b[at(w)] += cost.count() - spin.count();
        b[at(cpu::Work::SPIN)] += spin.count();
        break;
    }
}

void attach_cpu_breakdown(topology::Machine& m, cpu::WorkTrace& b) {
    for (const auto& c : m.cpus())
        c->set_work_trace(&b);
}

}  // namespace blksim::report
