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

struct JobOptions {
    std::string rw = "read";          // fio's names, as rw= and ioengine= print them
    std::string ioengine = "psync";
    // Per direction (0 read, 1 write): bs, and bsrange's / bssplit's largest size (0: bs is
    // the only size) and bssplit's sizes (empty without bssplit).
    struct BlockSizes {
        uint64_t min = 4096;
        uint64_t max = 0;
        std::vector<SizeShare> split;
        uint64_t largest() const { return max ? max : min; }
    } bs[2];
    uint32_t iodepth = 1;
    uint32_t numjobs = 1;
    bool gtod_reduce = false;
};

}  // namespace blksim::result
