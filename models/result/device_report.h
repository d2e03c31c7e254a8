// A model's own figures for blksim's report section. Filled by Device::report() and
// Elevator::report().
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace blksim::result {

// A device model's own figures (dev::Device::report()): named values in print order, in
// lines, e.g. the HDD's seek / rotation / transfer split and cache hits. The report prints
// them generically ("key=value", an integer when `decimals` is 0; JSON: one object per device).
struct DeviceReport {
    struct Field {
        std::string key;
        double value = 0.0;
        int decimals = 0;
    };
    std::string name;                  // the disk
    std::string model;                 // e.g. "hdd"
    std::vector<std::vector<Field>> lines;
    void add(std::string key, double value, int decimals = 0) {
        if (lines.empty())
            lines.emplace_back();
        lines.back().push_back({std::move(key), value, decimals});
    }
    void new_line() { lines.emplace_back(); }
    bool empty() const { return lines.empty(); }
};

}  // namespace blksim::result
