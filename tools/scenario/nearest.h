// "Did you mean": the known word closest to a misspelt one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace blksim::scenario {

// Levenshtein distance: insertions, deletions and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` (the first of equals) when it is at most max_distance
// edits away, else "". The default: a third of the word, at least 1 and at most 3 edits.
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates,
                         std::size_t max_distance = 0);

}  // namespace blksim::scenario
