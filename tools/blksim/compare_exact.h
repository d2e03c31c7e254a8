// `blksim compare --exact`: is B's run the same as A's, event for event? Both variants run
// once with the same seed and a blkparse-text trace (blksim run --trace), each in a child
// process (B in --b-binary when given, so that two builds can be told apart), and the first
// line where the traces differ is printed with its context.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/blksim/scenario_source.h"

namespace blksim::cli {

struct ExactVariant {
    std::string binary;                // the blksim that runs it
    ScenarioSource source;
    std::vector<std::string> sets;
    std::string scheduler;             // every queue's; empty: as written
    std::string label;                 // "A", "B (patched)"
};

// Runs both with `seed` and compares their traces; prints the verdict on stdout. 0 when
// identical, 3 when they differ, else the failed child's status (2: bad input).
int compare_exact(const ExactVariant& a, const ExactVariant& b, uint64_t seed);

}  // namespace blksim::cli
