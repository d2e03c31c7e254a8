// What watches a run from outside the simulation (the CLI's progress line on a terminal): the
// machine calls tick() between two events, at the first one at or after each interval() of
// simulated time. It adds no event and reads only, so the run is the same with or without it.
#pragma once

#include "sim/time.h"

namespace blksim::topology {

class Machine;

class RunProgress {
public:
    virtual ~RunProgress() = default;
    virtual sim::Duration interval() const = 0;
    virtual void tick(const Machine& m, sim::Time now) = 0;
};

}  // namespace blksim::topology
