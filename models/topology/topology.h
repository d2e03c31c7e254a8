// The machine's topology as a graph (Boost.Graph): host → controllers → devices → request
// queues → tag sets, and a RAID volume → its member disks. It is built from the typed configuration and checked before anything
// is simulated: every link names something that exists, no controller chain loops back on
// itself, every device reaches the host, and each request queue knows which tag set it
// draws from (its own, a null_blk module's shared set, or the SCSI host's behind an HBA).
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "models/topology/machine_config.h"

namespace blksim::topology {

// A null_blk device loaded with shared_tags=1: it takes its tags from the module's one set.
bool null_blk_shared_tags(const dev::DeviceConfig& d);

class Topology {
public:
    // What a topology error is about: the config entry and the field holding the bad link.
    struct Ref {
        enum class Kind : uint8_t { CONTROLLER, DEVICE, QUEUE };
        Kind kind;
        std::size_t index;
        std::string field;
    };
    class Error : public std::invalid_argument {
    public:
        Error(Ref r, const std::string& what) : std::invalid_argument(what), ref(std::move(r)) {}
        Ref ref;
    };

    // Throws Error on a dangling link, a cycle, or a device that cannot reach the host.
    explicit Topology(const MachineConfig& cfg);

    // The HBA (controller index) whose tag set device `d` uses; nullopt when the device
    // brings its own tags (NVMe, null_blk).
    std::optional<std::size_t> host_adapter(std::size_t d) const { return hba_of_device_[d]; }

    // The graph in Graphviz DOT, for `blksim validate --graph`.
    void write_graphviz(std::ostream& os) const;

    enum class NodeKind : uint8_t { HOST, CONTROLLER, DEVICE, QUEUE, TAG_SET, MEMBER };
    struct Node {
        NodeKind kind = NodeKind::HOST;
        std::string label;
    };
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Node>;
    const Graph& graph() const { return g_; }

private:
    Graph g_;
    std::vector<std::optional<std::size_t>> hba_of_device_;
};

}  // namespace blksim::topology
