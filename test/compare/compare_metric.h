// What the compare tests share: one metric's row of `blksim compare --json`'s report.
#pragma once

#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace clitest {

// The row of `report`'s "metrics" named `key`; fails the test when there is none.
inline const nlohmann::json& compare_metric(const nlohmann::json& report, const std::string& key) {
    for (const nlohmann::json& m : report.at("metrics"))
        if (m.at("metric") == key)
            return m;
    FAIL("no metric " << key);
    static const nlohmann::json none;
    return none;
}

}  // namespace clitest
