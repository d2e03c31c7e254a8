// What the devices of one machine share while it is built: work that depends only on a
// device's parameters, done once per distinct set of parameters rather than once per device
// (a thousand identical drives fit one seek curve). One per machine, dropped once the
// devices are built; nothing here outlives a run or is shared between runs.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "models/device/hdd_config.h"

namespace blksim::dev {

class HddMechanics;

class BuildCache {
public:
    BuildCache();
    ~BuildCache();
    BuildCache(const BuildCache&) = delete;
    BuildCache& operator=(const BuildCache&) = delete;

    // The mechanics of a drive with cfg's figures (built on first use; throws as
    // HddMechanics does).
    const HddMechanics& hdd_mechanics(const HddConfig& cfg);

private:
    std::vector<std::pair<HddConfig, std::unique_ptr<const HddMechanics>>> hdd_;
};

}  // namespace blksim::dev
