// The report never shows the impossible. Checked on what is printed, after the run has
// gathered it (Machine::run()): a figure that escaped every model's own invariants is still
// caught before it reaches a user.
#pragma once

#include <string>

#include "models/result/run_result.h"

namespace blksim::result {

// Empty when nothing in `r` is impossible; else the first impossible figure, what it
// belongs to and the rule it breaks.
std::string impossible_in(const RunResult& r);

}  // namespace blksim::result
