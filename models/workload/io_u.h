// fio's io_u: one I/O unit of a job, reused for the job's whole life (iodepth of them).
#pragma once

#include <cstdint>
#include <vector>

#include "models/blkmq/blk_mq_submit.h"
#include "sim/time.h"

namespace blksim::workload {

// fio's DDIR_TRIM: a trim (BLKDISCARD) of the io_u's range; and DDIR_SYNC: an io_u that is
// an fsync / fdatasync rather than a read, write or trim (fio's numbering).
inline constexpr uint8_t DDIR_TRIM = 2;
inline constexpr uint8_t DDIR_SYNC = 3;

struct IoU {
    enum class State : uint8_t {
        FREE,      // on the free list
        PREPPED,   // offset chosen, waiting to be handed to the kernel (in a submit batch)
        INFLIGHT,  // the kernel owns it
        DONE,      // the kernel ended it; not yet reaped by the job
    };
    uint64_t offset = 0;
    uint32_t len = 0;
    uint8_t ddir = 0;                 // 0 read, 1 write, DDIR_TRIM, DDIR_SYNC
    bool datasync = false;            // DDIR_SYNC: fdatasync (fio's DDIR_DATASYNC)
    bool account = true;              // DDIR_SYNC: counted (end_fsync's is not, as in fio)
    State state = State::FREE;
    sim::Time start_time;             // fio io_u->start_time: prep began
    sim::Time issue_time;             // fio io_u->issue_time: the kernel has it
    sim::Time kernel_done;            // bio end_io ran (the completion is posted)
    blkmq::SplitBio submit;           // the bio this io_u is submitted as, and its pieces
    uint32_t next_done = 0;           // completion ring link (index + 1, 0 = end)
};

}  // namespace blksim::workload
