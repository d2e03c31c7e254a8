// Runs independent simulations side by side (docs/architecture.md: one simulation is
// single-threaded; parallelism comes from running many). Task i writes only to its own result
// slot, so the outcome does not depend on which thread ran it or in what order tasks finished.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace blksim::experiment {

// Threads to use for `--jobs 0` (or no --jobs): the hardware's, at least 1.
unsigned default_jobs();

// Calls task(i) for i in [0, n) on `jobs` threads (std::jthread), handing out indexes from a
// shared counter in order. The calling thread waits; every `tick` seconds, and once at the
// end, it calls progress(done) if given (done = tasks finished so far), from the calling
// thread only. task must not throw (catch into the result slot).
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& task,
                  const std::function<void(std::size_t)>& progress = {}, double tick = 0.5);

// The order to hand n tasks of cost[i] to parallel_for: dearest first (the LPT rule), ties
// and unknown costs (0) in index order. Independent tasks pulled from a shared counter then
// end together: the last task to start is a cheap one, not the dearest, which would leave
// the other threads idle while one finishes it (LPT's makespan is within 4/3 of the best).
std::vector<std::size_t> dearest_first(const std::vector<double>& cost);

}  // namespace blksim::experiment
