// The job options fio echoes in its report: the start-up line ("rw=..., bs=(R) ...,
// ioengine=..., iodepth=..."), the JSON "job options", the "..." line of numjobs clones, and
// gtod_reduce, which leaves the timed figures out. The workload model fills it from the job's
// options (workload::job_options()); the report reads only this.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace blksim::result {

// One bssplit entry: a block size and the percentage of the direction's I/Os that get it.
struct SizeShare {
    uint64_t bs = 0;
    uint32_t percent = 0;
};

// fio's percentile options: which latencies get percentiles (clat_percentiles, on by default;
// lat_percentiles; slat_percentiles) and at which points (percentile_list, ascending; empty:
// fio's default list), printed with `precision` digits after the point (fio's
// percentile_precision). With lat_percentiles the per-priority statistics are of the total
// latency, as fio keeps them then.
struct Percentiles {
    bool clat = true, lat = false, slat = false;
    std::vector<double> list;
    unsigned precision = 2;
};

struct JobOptions {
    std::string rw = "read";          // fio's names, as rw= and ioengine= print them
    std::string ioengine = "psync";
    // Per direction (0 read, 1 write, 2 trim): bs, and bsrange's / bssplit's largest size (0: bs is
    // the only size) and bssplit's sizes (empty without bssplit).
    struct BlockSizes {
        uint64_t min = 4096;
        uint64_t max = 0;
        std::vector<SizeShare> split;
        uint64_t largest() const { return max ? max : min; }
    } bs[3];
    uint32_t iodepth = 1;
    uint32_t numjobs = 1;
    bool gtod_reduce = false;
    Percentiles percentiles;
};

}  // namespace blksim::result
