// A scenario's text run on a machine, and a field of its first device's report section: for
// tests that drive a device model through the whole block layer.
#pragma once

#include <string>

#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

namespace blksim::testing {

inline result::RunResult run_scenario_text(const std::string& text, const std::string& name) {
    const scenario::Scenario s = scenario::load_scenario_text(text, name);
    topology::Machine m(s.machine);
    return m.run();
}

// The value of `key` in the first device's report section, -1 when it has none.
inline double device_field(const result::RunResult& r, const std::string& key) {
    for (const auto& line : r.devices.at(0).lines)
        for (const auto& f : line)
            if (f.key == key)
                return f.value;
    return -1;
}

}  // namespace blksim::testing
