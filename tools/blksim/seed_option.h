// --seed: CLI11 reads "-1" into a uint64_t as 2^64 - 1; the option takes digits only, up to
// the largest seed a scenario takes (its "seed" is a JSON integer >= 0, at most INT64_MAX).
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace blksim::cli {

inline CLI::Validator seed_check() {
    return CLI::Validator(
        [](std::string& v) -> std::string {
            constexpr std::string_view MAX = "9223372036854775807";
            if (!v.empty() && v.size() <= MAX.size() && v.find_first_not_of("0123456789") == std::string::npos &&
                (v.size() < MAX.size() || v <= MAX))
                return {};
            return "'" + v + "' is not a seed (allowed: an integer from 0 to " + std::string(MAX) + ")";
        },
        "SEED");
}

}  // namespace blksim::cli
