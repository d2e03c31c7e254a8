// The I/O priority fio gives each I/O (fio 3.33 engines/cmdprio.c, libaio and io_uring):
// per direction, cmdprio_percentage % of the I/Os get cmdprio_class/cmdprio, or with
// cmdprio_bssplit each entry's share of the I/Os of its size gets the entry's priority (the
// 2-field form bs/percent takes cmdprio_class/cmdprio, the 4-field form bs/percent/class/level
// its own); the others keep the job's prioclass/prio.
//
// One draw in [0, 100) per I/O whose direction (and size) has a share, from the job's
// "prio" stream; the entries of one size split that draw in their order
// (fio_cmdprio_set_ioprio()).
//
// fio keeps one clat statistic per priority in a fixed order, the job's default priority
// first, then the cmdprio ones as the options list them (cmdprio_bssplit by size); its
// report prints them in that order, and seed() lays them out the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "models/blkmq/request.h"
#include "models/result/job_result.h"
#include "models/workload/job_config.h"
#include "sim/random.h"

namespace blksim::workload {

class Cmdprio {
public:
    explicit Cmdprio(const JobConfig& cfg);

    // Sets the bio's ioprio for an I/O of `len` bytes in direction `ddir`.
    void set_ioprio(blkmq::Bio& bio, unsigned ddir, uint64_t len, sim::Rng& rng) const {
        bio.ioprio_class = prioclass_;
        bio.ioprio_level = prio_;
        if (ddir < 2 && used_[ddir])  // fio's cmdprio: reads and writes (no trims)
            set_cmdprio(bio, ddir, len, rng);
    }
    // The job's own priority (prioclass, prio), which fio's ioprio_set() gives its thread.
    uint8_t prioclass() const { return prioclass_; }
    uint8_t prio() const { return prio_; }
    // The per-priority statistics of direction `ddir`, in fio's order (empty until used).
    void seed(result::DirResult& d, unsigned ddir) const;

private:
    void set_cmdprio(blkmq::Bio& bio, unsigned ddir, uint64_t len, sim::Rng& rng) const;

    // The entries of one block size (fio's cmdprio_bsprio).
    struct SizeGroup {
        uint64_t bs;
        uint32_t total;             // percent of that size's I/Os with a cmdprio priority
        uint32_t first, count;      // its entries in JobConfig::Cmdprio::bssplit
    };

    // The job's prioclass and prio, and whether cmdprio options apply per direction: copied
    // from the config, whose fields lie on other cache lines, as every I/O reads them.
    const uint8_t prioclass_, prio_;
    const bool used_[2];
    const JobConfig& cfg_;
    std::vector<SizeGroup> groups_[2];
};

}  // namespace blksim::workload
