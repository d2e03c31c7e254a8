// What a simulated CPU spent its time on. Filled by Cpu::report().
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace blksim::result {

struct CpuReport {
    uint32_t id = 0;
    sim::Duration busy;                // all work: task steps + interrupt work
    sim::Duration irq;                 // of which interrupt / completion work
    sim::Duration spin;                // of which spinning on a contended lock
};

}  // namespace blksim::result
