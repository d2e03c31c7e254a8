// fio's io_u: one I/O unit of a job, reused for the job's whole life (iodepth of them).
#pragma once

#include <cstdint>
#include <vector>

#include "models/blkmq/request.h"
#include "sim/time.h"

namespace blksim::workload {

// fio's DDIR_SYNC: an io_u that is an fsync / fdatasync rather than a read or a write.
inline constexpr uint8_t DDIR_SYNC = 2;

struct IoU {
    enum class State : uint8_t {
        FREE,      // on the free list
        PREPPED,   // offset chosen, waiting to be handed to the kernel (in a submit batch)
        INFLIGHT,  // the kernel owns it
        DONE,      // the kernel ended it; not yet reaped by the job
    };
    uint64_t offset = 0;
    uint32_t len = 0;
    uint8_t ddir = 0;                 // 0 read, 1 write, DDIR_SYNC
    bool datasync = false;            // DDIR_SYNC: fdatasync (fio's DDIR_DATASYNC)
    bool account = true;              // DDIR_SYNC: counted (end_fsync's is not, as in fio)
    State state = State::FREE;
    sim::Time start_time;             // fio io_u->start_time: prep began
    sim::Time issue_time;             // fio io_u->issue_time: the kernel has it
    sim::Time kernel_done;            // bio end_io ran (the completion is posted)
    sim::Time queued;                 // submit_bio (trace Q): set once, kept across a tag sleep
    bool bio_queued = false;
    blkmq::Bio bio;                   // the bio this io_u is submitted as
    // bio_split_to_limits(): the pieces of a bio larger than the queue's limits, each
    // submitted on its own (bio_chain: the io_u ends when pieces_left reaches 0).
    std::vector<blkmq::Bio> pieces;
    uint32_t nr_pieces = 1;
    uint32_t next_piece = 0;          // the piece to submit next (kept across a tag sleep)
    uint32_t pieces_left = 0;         // pieces not yet ended
    bool piece_tried = false;         // next_piece has had its merge attempts
    uint32_t next_done = 0;           // completion ring link (index + 1, 0 = end)
};

}  // namespace blksim::workload
