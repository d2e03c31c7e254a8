// A job's I/O priorities: prioclass and prio for all its I/O, and the cmdprio_* options
// that give a share of it another priority.
#include "tools/scenario/decode_job.h"

namespace blksim::scenario {

namespace {

// cmdprio_percentage, cmdprio_class and cmdprio: a value per direction ("10,20"). Returns
// cmdprio_percentage, if given.
const Opt* decode_cmdprio_values(const JobInput& in, workload::JobConfig& j) {
    const auto per_ddir = [&](const char* name, uint64_t lo, uint64_t hi, const std::string& allowed,
                              auto set) -> const Opt* {
        const Opt* v = in.get(name);
        if (!v) return nullptr;
        const units::DdirSizes x = in.parse_at(*v, [](const std::string& t) { return units::parse_ddir_uints(t); });
        const std::optional<uint64_t>* slots[2] = {&x.read, &x.write};
        for (unsigned dir = 0; dir < 2; ++dir) {
            if (!*slots[dir]) continue;
            if (**slots[dir] < lo || **slots[dir] > hi)
                in.rep().fail(v->ptr, std::to_string(**slots[dir]) + " is out of range (allowed: " + allowed + ")");
            set(j.cmdprio[dir], **slots[dir]);
        }
        return v;
    };
    const Opt* pct = per_ddir("cmdprio_percentage", 0, 100, "0..100",
                              [](auto& c, uint64_t x) { c.percentage = static_cast<uint32_t>(x); });
    per_ddir("cmdprio_class", 1, 3, "1 RT, 2 BE, 3 IDLE",
             [](auto& c, uint64_t x) { c.ioprio_class = static_cast<uint8_t>(x); });
    per_ddir("cmdprio", 0, 7, "0..7", [](auto& c, uint64_t x) { c.level = static_cast<uint8_t>(x); });
    return pct;
}

// cmdprio_bssplit: per block size, a percentage and (in 4-field entries) its priority;
// 2-field entries take cmdprio_class/cmdprio (default RT, 0) of their direction.
void decode_cmdprio_bssplit(const JobInput& in, const Opt& split, workload::JobConfig& j) {
    const units::DdirCmdprioSplit sp =
        in.parse_at(split, [&](const std::string& t) { return units::parse_cmdprio_bssplit(t, in.kb_base); });
    const std::vector<units::CmdprioSplitEntry>* lists[2] = {&sp.read, &sp.write};
    for (unsigned dir = 0; dir < 2; ++dir) {
        workload::JobConfig::Cmdprio& c = j.cmdprio[dir];
        uint32_t total = 0;
        for (size_t i = 0; i < lists[dir]->size(); ++i) {
            const units::CmdprioSplitEntry& e = (*lists[dir])[i];
            total = i > 0 && (*lists[dir])[i - 1].bs == e.bs ? total + e.percent : e.percent;
            if (total > 100)
                in.rep().fail(split.ptr, "the percentages for block size " + std::to_string(e.bs) + " (" +
                                             (dir ? "writes" : "reads") + ") add up to " + std::to_string(total) +
                                             "% (at most 100%; fio refuses it too)");
            c.bssplit.push_back({e.bs, e.percent, static_cast<uint8_t>(e.has_prio ? e.ioprio_class : c.ioprio_class),
                                 static_cast<uint8_t>(e.has_prio ? e.level : c.level)});
        }
    }
}

}  // namespace

// fio's priority options. The cmdprio_* ones belong to the libaio and io_uring engines.
void decode_prio(const JobInput& in, workload::JobConfig& j) {
    auto u8 = [&](const char* name, uint8_t& out) {
        if (const Opt* v = in.get(name)) out = static_cast<uint8_t>(number(*v));
    };
    u8("prioclass", j.prioclass);
    u8("prio", j.prio);
    const Opt* pct = decode_cmdprio_values(in, j);
    const Opt* split = in.get("cmdprio_bssplit");
    if (split) decode_cmdprio_bssplit(in, *split, j);
    const bool any_pct = j.cmdprio[0].percentage != 0 || j.cmdprio[1].percentage != 0;
    const bool any_split = !j.cmdprio[0].bssplit.empty() || !j.cmdprio[1].bssplit.empty();
    if (any_pct && any_split)
        in.rep().fail(split->ptr, "cmdprio_percentage and cmdprio_bssplit are mutually exclusive (" +
                                  in.rep().describe(pct->ptr) + "; fio refuses them together)");
    if ((any_pct || any_split) && j.ioengine == workload::IoEngine::PSYNC) {
        const Opt* v = any_pct ? pct : split;
        in.rep().fail(v->ptr, std::string(v->given_name) +
                                  " is an option of the libaio and io_uring engines (this job uses psync)");
    }
}

}  // namespace blksim::scenario
