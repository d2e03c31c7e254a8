#include "tools/scenario/nearest.h"

#include <algorithm>

namespace blksim::scenario {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates, std::size_t max_distance) {
    if (max_distance == 0)
        max_distance = std::min<std::size_t>(3, std::max<std::size_t>(1, word.size() / 3));
    std::string best;
    std::size_t best_d = max_distance + 1;
    for (const std::string& c : candidates)
        if (const std::size_t d = edit_distance(word, c); d < best_d) {
            best_d = d;
            best = c;
        }
    return best;
}

}  // namespace blksim::scenario
