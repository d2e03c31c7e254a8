#include "models/workload/cmdprio.h"

namespace blksim::workload {

Cmdprio::Cmdprio(const JobConfig& cfg)
    : prioclass_(cfg.prioclass), prio_(cfg.prio), used_{cfg.cmdprio[0].used(), cfg.cmdprio[1].used()}, cfg_(cfg) {
    for (unsigned d = 0; d < 2; ++d) {
        const std::vector<CmdprioSplit>& split = cfg.cmdprio[d].bssplit;
        for (uint32_t i = 0; i < split.size(); ++i) {
            if (groups_[d].empty() || groups_[d].back().bs != split[i].bs)
                groups_[d].push_back({split[i].bs, 0, i, 0});
            groups_[d].back().total += split[i].percent;
            ++groups_[d].back().count;
        }
    }
}

void Cmdprio::set_cmdprio(blkmq::Bio& bio, unsigned ddir, uint64_t len, sim::Rng& rng) const {
    const JobConfig::Cmdprio& c = cfg_.cmdprio[ddir];
    if (c.percentage != 0) {
        if (rng.below(100) < c.percentage) {
            bio.ioprio_class = c.ioprio_class;
            bio.ioprio_level = c.level;
        }
        return;
    }
    for (const SizeGroup& g : groups_[ddir]) {
        if (g.bs != len)
            continue;
        const uint64_t r = rng.below(100);
        if (r >= g.total)
            return;
        uint32_t perc = 0;
        for (uint32_t i = g.first; i < g.first + g.count; ++i) {
            perc += c.bssplit[i].percent;
            if (r < perc) {
                bio.ioprio_class = c.bssplit[i].ioprio_class;
                bio.ioprio_level = c.bssplit[i].level;
                return;
            }
        }
        return;
    }
}

void Cmdprio::seed(result::DirResult& d, unsigned ddir) const {
    const JobConfig::Cmdprio& c = cfg_.cmdprio[ddir];
    if (!c.used())
        return;
    const auto add = [&](uint8_t cls, uint8_t level) {
        for (const result::PrioResult& p : d.prios)
            if (p.ioprio_class == cls && p.ioprio_level == level)
                return;
        d.prios.push_back({cls, level, {}, {}});
    };
    add(cfg_.prioclass, cfg_.prio);
    if (c.percentage != 0)
        add(c.ioprio_class, c.level);
    for (const CmdprioSplit& e : c.bssplit)
        add(e.ioprio_class, e.level);
}

}  // namespace blksim::workload
