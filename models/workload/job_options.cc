#include "models/workload/job_options.h"

#include "models/workload/engine_kinds.h"

namespace blksim::workload {

std::string_view rw_name(RwPattern rw) {
    switch (rw) {
    case RwPattern::READ: return "read";
    case RwPattern::WRITE: return "write";
    case RwPattern::RANDREAD: return "randread";
    case RwPattern::RANDWRITE: return "randwrite";
    case RwPattern::RW: return "rw";
    case RwPattern::RANDRW: return "randrw";
    case RwPattern::TRIM: return "trim";
    case RwPattern::RANDTRIM: return "randtrim";
    case RwPattern::TRIMWRITE: return "trimwrite";
    case RwPattern::RANDTRIMWRITE: return "randtrimwrite";
    }
    return "read";
}

result::JobOptions job_options(const JobConfig& cfg) {
    result::JobOptions o;
    o.rw = rw_name(cfg.rw);
    o.ioengine = engine_kind(cfg.ioengine).name;
    for (unsigned d = 0; d < 3; ++d) {
        o.bs[d].min = cfg.min_bs(d);
        o.bs[d].max = cfg.bs_range[d].max;
        for (const BsSplitEntry& e : cfg.bs_range[d].split)
            o.bs[d].split.push_back({e.bs, e.percent});
    }
    o.iodepth = cfg.iodepth;
    o.numjobs = cfg.numjobs;
    o.gtod_reduce = cfg.gtod_reduce;
    o.percentiles = cfg.percentiles;
    return o;
}

}  // namespace blksim::workload
