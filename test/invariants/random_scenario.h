// Random but valid scenarios for the invariant search (test_invariant_search.cc): one seed
// gives one scenario JSON, the same text the CLI's loader reads, so a failing case can be
// saved as a file and run with `blksim run`. Every dimension a defect has hidden in so far
// is drawn here: device model and profile, controller, scheduler and its tunables at their
// extremes, engine and depth, I/O kind and size, sync options, CPUs, rate limits, priority.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace blksim::invsearch {

// Deterministic in `seed` and the device profiles under scenarios/devices/ (the generator
// picks among those present): the same tree and seed give the same scenario.
nlohmann::json random_scenario(uint64_t seed);

}  // namespace blksim::invsearch
