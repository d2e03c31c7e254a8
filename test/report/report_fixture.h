// Helpers the fio report tests share.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/workload/job_options.h"
#include "sim/stats.h"

namespace blksim::testing {

// The options fio's fixture runs echo: libaio random reads.
inline result::JobOptions libaio_randread(uint32_t iodepth, uint32_t numjobs = 1) {
    workload::JobConfig c;
    c.rw = workload::RwPattern::RANDREAD;
    c.ioengine = workload::IoEngine::LIBAIO;
    c.iodepth = iodepth;
    c.numjobs = numjobs;
    return workload::job_options(c);
}

// The keys of a JSON object in their order.
inline std::vector<std::string> keys_of(const nlohmann::ordered_json& o) {
    std::vector<std::string> k;
    for (auto it = o.begin(); it != o.end(); ++it)
        k.push_back(it.key());
    return k;
}

// The first histogram bin whose midpoint fio prints as `usec` in a usec percentile list.
inline uint64_t bin_value_for_usec(uint64_t usec) {
    for (unsigned i = 0; i < sim::LatencyHistogram::PLAT_NR; ++i) {
        const uint64_t v = sim::LatencyHistogram::idx_to_val(i);
        if ((v + 999) / 1000 == usec)
            return v;
    }
    return 0;
}

}  // namespace blksim::testing
