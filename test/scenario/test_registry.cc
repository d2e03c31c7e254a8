// `blksim list devices` (models/registry.cc) against the scenario schema: every parameter the
// list names for a device model is one a scenario may give that model, so the list cannot
// advertise a key the loader would refuse.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "models/registry.h"

using namespace blksim;

TEST_CASE("every parameter `blksim list devices` names is a key the schema accepts", "[scenario][registry]") {
    std::ifstream in(std::string(BLKSIM_SOURCE_DIR) + "/scenarios/schema.json");
    const auto schema = nlohmann::json::parse(in);
    const auto& defs = schema.at("definitions");
    // Named in the list but written beside params (profile, members) or as one of two forms.
    const std::set<std::string> not_params = {"profile", "members", "gb / sectors", "measured"};
    std::set<std::string> models;
    for (const auto& e : registry::device_models()) {
        const std::string model(e.name);
        models.insert(model);
        const auto& props = defs.at(model + "_params").at("properties");
        for (const auto& p : e.params) {
            const std::string name(p.name);
            if (not_params.count(name))
                continue;
            INFO(model << " parameter " << name);
            CHECK(props.contains(name));
        }
    }
    CHECK(models == std::set<std::string>{"null_blk", "nvme", "hdd", "sata_ssd", "raid"});
}
