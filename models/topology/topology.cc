#include "models/topology/topology.h"

#include <string>
#include <unordered_map>

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/graphviz.hpp>
#include <fmt/format.h>

#include "models/device/null_blk_config.h"
#include "models/device/nvme_config.h"
#include "models/device/raid_config.h"

namespace blksim::topology {

bool null_blk_shared_tags(const dev::DeviceConfig& d) {
    const auto* nb = d.get<dev::NullBlkConfig>();
    return nb && nb->shared_tags;
}

namespace {

using Graph = Topology::Graph;
using V = Graph::vertex_descriptor;
using Ref = Topology::Ref;

// depth_first_search stops at the first back edge, the one way a directed graph has a
// cycle (throwing from a visitor is Boost.Graph's documented early exit).
struct BackEdge {
    V target;
};
struct CycleFinder : boost::default_dfs_visitor {
    template <class E, class G>
    void back_edge(E e, const G& g) const {
        throw BackEdge{boost::target(e, g)};
    }
};

std::string join_names(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names)
        s += (s.empty() ? "'" : ", '") + n + "'";
    return s.empty() ? "none" : s;
}

// Builds the graph from the configuration in the order a reader checks it: controllers,
// their chains, devices, their links to the host, queues and their tag sets; each link is
// checked as it is added. Names are looked up in maps: a machine of 100,000 devices is
// checked in linear time.
class GraphBuilder {
public:
    GraphBuilder(const MachineConfig& cfg, Graph& g, std::vector<std::optional<std::size_t>>& hba_of_device)
        : cfg_(cfg), g_(g), hba_of_device_(hba_of_device), host_(boost::add_vertex(Node{NodeKind::HOST, "host"}, g)) {}

    void add_controllers();
    void check_no_cycle();
    void add_devices();
    void check_connected() const;
    void add_queues();

private:
    using Node = Topology::Node;
    using NodeKind = Topology::NodeKind;

    std::optional<std::size_t> controller_index(const std::string& name) const {
        if (const auto it = controller_by_name_.find(name); it != controller_by_name_.end())
            return it->second;
        return std::nullopt;
    }
    void attach_to_controller(std::size_t d);

    const MachineConfig& cfg_;
    Graph& g_;
    std::vector<std::optional<std::size_t>>& hba_of_device_;
    const V host_;
    std::vector<V> cv_, dv_;
    std::vector<std::string> cnames_, dnames_;
    std::unordered_map<std::string, std::size_t> controller_by_name_, device_by_name_;
};

// An hba sits on the host, an expander on its parent (an hba or another expander).
void GraphBuilder::add_controllers() {
    using dev::ControllerConfig;
    for (std::size_t i = 0; i < cfg_.controllers.size(); ++i) {
        const auto& c = cfg_.controllers[i];
        if (!controller_by_name_.emplace(c.name, i).second)
            throw Topology::Error({Ref::Kind::CONTROLLER, i, "name"},
                                  fmt::format("duplicate controller name '{}'", c.name));
        cnames_.push_back(c.name);
        cv_.push_back(boost::add_vertex(
            Node{NodeKind::CONTROLLER, fmt::format("{} ({})", c.name,
                                                   c.kind == ControllerConfig::Kind::HBA ? "hba" : "expander")},
            g_));
    }
    for (std::size_t i = 0; i < cfg_.controllers.size(); ++i) {
        const auto& c = cfg_.controllers[i];
        if (c.kind == ControllerConfig::Kind::HBA) {
            if (!c.parent.empty())
                throw Topology::Error({Ref::Kind::CONTROLLER, i, "parent"},
                                      fmt::format("controller '{}' is an hba, which sits on the host; only an "
                                                  "expander has a parent", c.name));
            boost::add_edge(host_, cv_[i], g_);
            continue;
        }
        if (c.parent.empty())
            throw Topology::Error({Ref::Kind::CONTROLLER, i, "parent"},
                                  fmt::format("expander '{}' needs a parent (an hba or another expander)", c.name));
        const auto p = controller_index(c.parent);
        if (!p)
            throw Topology::Error({Ref::Kind::CONTROLLER, i, "parent"},
                                  fmt::format("expander '{}' names unknown parent '{}' (controllers: {})", c.name,
                                              c.parent, join_names(cnames_)));
        boost::add_edge(cv_[*p], cv_[i], g_);
    }
}

// A chain of expanders that loops back on itself never reaches an HBA.
void GraphBuilder::check_no_cycle() {
    try {
        boost::depth_first_search(g_, boost::visitor(CycleFinder{}));
    } catch (const BackEdge& b) {
        std::size_t i = 0;
        while (i < cv_.size() && cv_[i] != b.target)
            ++i;
        std::string chain = cnames_[i];
        for (std::size_t k = i, steps = 0; steps <= cnames_.size(); ++steps) {
            k = *controller_index(cfg_.controllers[k].parent);
            chain += " -> " + cnames_[k];
            if (k == i)
                break;
        }
        throw Topology::Error({Ref::Kind::CONTROLLER, i, "parent"},
                              fmt::format("controllers form a cycle: {}; a chain of expanders must end at an hba",
                                          chain));
    }
}

// A device sits on the host or behind a controller; a RAID volume's disks hang off it.
void GraphBuilder::add_devices() {
    for (std::size_t d = 0; d < cfg_.devices.size(); ++d) {
        const auto& dc = cfg_.devices[d];
        dnames_.push_back(dc.name);
        device_by_name_.emplace(dc.name, d);
        dv_.push_back(boost::add_vertex(Node{NodeKind::DEVICE, dc.name}, g_));
        // The disks of a hardware RAID volume hang off it: the controller's firmware drives
        // them; Linux never sees them.
        const auto* raid = dc.get<dev::RaidConfig>();
        if (raid)
            for (const auto& m : raid->members)
                boost::add_edge(dv_[d], boost::add_vertex(Node{NodeKind::MEMBER, m.name}, g_), g_);
        if (raid && !dc.controller.empty())
            throw Topology::Error({Ref::Kind::DEVICE, d, "controller"},
                                  fmt::format("device '{}' is a RAID controller's volume: the RAID controller is "
                                              "itself the SCSI host, so it sits on the host, not behind '{}'",
                                              dc.name, dc.controller));
        if (dc.controller.empty())
            boost::add_edge(host_, dv_[d], g_);
        else
            attach_to_controller(d);
    }
}

// Device d behind its controller: a SCSI disk (or null_blk standing in for scsi_debug),
// whose tags are those of the hba at the root of the controller's chain.
void GraphBuilder::attach_to_controller(std::size_t d) {
    const auto& dc = cfg_.devices[d];
    const auto c = controller_index(dc.controller);
    if (!c)
        throw Topology::Error({Ref::Kind::DEVICE, d, "controller"},
                              fmt::format("device '{}' names unknown controller '{}' (controllers: {})", dc.name,
                                          dc.controller, join_names(cnames_)));
    if (dc.get<dev::NvmeConfig>())
        throw Topology::Error({Ref::Kind::DEVICE, d, "controller"},
                              fmt::format("device '{}' is NVMe, which is its own controller on PCIe; only SCSI "
                                          "disks (and null_blk standing in for scsi_debug) sit behind an hba",
                                          dc.name));
    if (null_blk_shared_tags(dc))
        throw Topology::Error({Ref::Kind::DEVICE, d, "controller"},
                              fmt::format("device '{}' is null_blk with shared_tags=1, which takes its tags from "
                                          "the module; behind an hba the tags are the host's", dc.name));
    boost::add_edge(cv_[*c], dv_[d], g_);
    // The SCSI host at the root of the chain owns the tags (no cycle is left).
    std::size_t root = *c;
    while (cfg_.controllers[root].kind != dev::ControllerConfig::Kind::HBA)
        root = *controller_index(cfg_.controllers[root].parent);
    hba_of_device_[d] = root;
}

// Every device must be reachable from the host (an expander chain ends at an HBA, so
// this holds once the checks above passed; kept as the graph's own invariant).
void GraphBuilder::check_connected() const {
    std::vector<boost::default_color_type> color(boost::num_vertices(g_));
    boost::breadth_first_search(g_, host_, boost::color_map(color.data()));
    for (std::size_t d = 0; d < dv_.size(); ++d)
        if (color[dv_[d]] == boost::white_color)
            throw Topology::Error({Ref::Kind::DEVICE, d, "controller"},
                                  fmt::format("device '{}' is not connected to the host", dnames_[d]));
}

// Request queues and the tag sets they draw from.
void GraphBuilder::add_queues() {
    std::vector<V> tag_set_of_hba(cfg_.controllers.size(), Graph::null_vertex());
    V null_blk_shared = Graph::null_vertex();
    for (std::size_t q = 0; q < cfg_.queues.size(); ++q) {
        const auto& qc = cfg_.queues[q];
        const auto found = device_by_name_.find(qc.device);
        const std::size_t d = found == device_by_name_.end() ? dnames_.size() : found->second;
        if (d == dnames_.size())
            throw Topology::Error({Ref::Kind::QUEUE, q, "device"},
                                  fmt::format("queue names unknown device '{}' (devices: {})", qc.device,
                                              join_names(dnames_)));
        const V qv = boost::add_vertex(Node{NodeKind::QUEUE, qc.device + " queue (" + qc.scheduler + ")"}, g_);
        boost::add_edge(dv_[d], qv, g_);
        V tv;
        if (hba_of_device_[d]) {
            V& t = tag_set_of_hba[*hba_of_device_[d]];
            if (t == Graph::null_vertex())
                t = boost::add_vertex(Node{NodeKind::TAG_SET, cnames_[*hba_of_device_[d]] + " host tags"}, g_);
            tv = t;
        } else if (null_blk_shared_tags(cfg_.devices[d])) {
            if (null_blk_shared == Graph::null_vertex())
                null_blk_shared = boost::add_vertex(Node{NodeKind::TAG_SET, "null_blk shared tags"}, g_);
            tv = null_blk_shared;
        } else {
            tv = boost::add_vertex(Node{NodeKind::TAG_SET, qc.device + " tags"}, g_);
        }
        boost::add_edge(qv, tv, g_);
    }
}

}  // namespace

Topology::Topology(const MachineConfig& cfg) : hba_of_device_(cfg.devices.size()) {
    GraphBuilder b(cfg, g_, hba_of_device_);
    b.add_controllers();
    b.check_no_cycle();
    b.add_devices();
    b.check_connected();
    b.add_queues();
}

void Topology::write_graphviz(std::ostream& os) const {
    boost::write_graphviz(os, g_, [this](std::ostream& out, V v) {
        static constexpr const char* shape[] = {"house", "box3d", "cylinder", "box", "hexagon", "cylinder"};
        out << "[label=\"" << g_[v].label << "\", shape=" << shape[static_cast<int>(g_[v].kind)] << "]";
    });
}

}  // namespace blksim::topology
