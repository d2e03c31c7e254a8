// A JSON object of a data file the experiment commands read (reproduce's published figures,
// regress's suite and results), with checks whose errors name the file and the JSON path:
// "suite.json: $.cases[3].scenario: must be a non-empty string". `Error` is the command's
// exception type (constructible from a message).
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace blksim::experiment {

template <class Error>
struct JsonObj {
    const nlohmann::ordered_json& j;
    std::string file, path;

    Error error(const std::string& key, const std::string& what) const {
        return Error(fmt::format("{}: {}{}: {}", file, path, key.empty() ? "" : "." + key, what));
    }
    void only(std::initializer_list<std::string_view> keys) const {
        for (const auto& [k, v] : j.items())
            if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
                std::string allowed;
                for (const std::string_view a : keys)
                    allowed += fmt::format("{}{}", allowed.empty() ? "" : ", ", a);
                throw error(k, fmt::format("unknown key (allowed: {})", allowed));
            }
    }
    std::string str(const std::string& key, bool required = true) const {
        if (!j.contains(key)) {
            if (required)
                throw error(key, "missing (a string)");
            return {};
        }
        if (!j.at(key).is_string() || j.at(key).get<std::string>().empty())
            throw error(key, "must be a non-empty string");
        return j.at(key).get<std::string>();
    }
    double number(const std::string& key) const {
        if (!j.contains(key) || !j.at(key).is_number())
            throw error(key, "missing or not a number");
        const double v = j.at(key).get<double>();
        if (!std::isfinite(v))
            throw error(key, "must be finite");
        return v;
    }
    std::vector<std::string> strings(const std::string& key) const {
        if (!j.contains(key))
            return {};
        const nlohmann::ordered_json& a = j.at(key);
        if (!a.is_array() || !std::all_of(a.begin(), a.end(), [](const nlohmann::ordered_json& x) { return x.is_string(); }))
            throw error(key, "must be an array of strings (--set overrides: \"path=value\")");
        return a.get<std::vector<std::string>>();
    }
};

}  // namespace blksim::experiment
