// What watches a run while it goes, reading only (--timeseries: report::TimeSeriesWriter):
// the machine starts it with the run, calls sample() every interval() of simulated time and
// finish() once at the run's end. The machine knows nothing of what it writes.
#pragma once

#include "sim/time.h"

namespace blksim::topology {

class RunSampler {
public:
    virtual ~RunSampler() = default;
    virtual sim::Duration interval() const = 0;
    virtual void start(sim::Time now) = 0;
    virtual void sample(sim::Time now) = 0;
    virtual void finish(sim::Time now) = 0;
};

}  // namespace blksim::topology
