// /controllers: the HBAs that own a tag set (can_queue, hardware queues) and the expanders
// that only fan out below them.
#include "tools/scenario/decode.h"
#include "tools/scenario/device_params.h"

namespace blksim::scenario {

std::vector<dev::ControllerConfig> decode_controllers(const DecodeState& st, const json& list, const std::string& ptr) {
    std::vector<dev::ControllerConfig> out;
    for (size_t i = 0; i < list.size(); ++i) {
        const json& c = list[i];
        const std::string at = child(ptr, i);
        dev::ControllerConfig cfg;
        cfg.name = c.at("name").get<std::string>();
        cfg.kind = c.at("kind").get<std::string>() == "hba" ? dev::ControllerConfig::Kind::HBA
                                                             : dev::ControllerConfig::Kind::EXPANDER;
        if (cfg.kind == dev::ControllerConfig::Kind::EXPANDER) {
            for (const char* key : {"can_queue", "nr_hw_queues", "reserved_tags", "host_tagset"})
                if (c.contains(key))
                    st.rep.fail(child(at, key), "an expander has no tags of its own; '" + std::string(key) +
                                                    "' belongs to the hba at the root of its chain");
        }
        cfg.parent = c.value("parent", std::string());
        if (c.contains("can_queue")) cfg.can_queue = c["can_queue"].get<uint32_t>();
        if (c.contains("nr_hw_queues")) cfg.nr_hw_queues = c["nr_hw_queues"].get<uint32_t>();
        if (c.contains("reserved_tags")) cfg.reserved_tags = c["reserved_tags"].get<uint32_t>();
        if (c.contains("host_tagset")) cfg.host_tagset = read_flag(c["host_tagset"]);
        if (cfg.reserved_tags >= cfg.can_queue)
            st.rep.fail(child(at, "reserved_tags"), "reserved_tags (" + std::to_string(cfg.reserved_tags) +
                                                        ") must stay below can_queue (" + std::to_string(cfg.can_queue) +
                                                        "), or no tag is left for I/O");
        out.push_back(std::move(cfg));
    }
    return out;
}

}  // namespace blksim::scenario
