// A whole file as bytes, for the experiment commands' inputs and outputs read back (a
// published-figures file, a sweep's shards, a report's PNGs); nullopt if it cannot be opened.
// The scenario and job-file readers have their own, which explain why in a ScenarioError.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace blksim::experiment {

inline std::optional<std::string> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace blksim::experiment
