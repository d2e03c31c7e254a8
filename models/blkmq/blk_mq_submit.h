// What blk_mq_submit_bio() takes and what it tells its caller (block/blk-mq.c).
#pragma once

#include <cstdint>
#include <vector>

#include "models/blkmq/request.h"
#include "sim/time.h"

namespace blksim::blkmq {

// What became of a bio in RequestQueue::submit_bio(). For a split bio: of its last piece
// submitted in that call.
enum class SubmitStatus : uint8_t {
    MERGED,    // it joined a request on the plug, in the software queue or in the elevator
    PLUGGED,   // a new request carries it and waits on the task's plug
    ISSUED,    // a new request carries it and the flush machinery has taken it (blk_insert_flush)
    ENDED,     // it ended in submit_bio_noacct(): an empty flush to a queue with no write cache
    WAIT_TAG,  // no tag: the task sleeps (RequestQueue::wait_for_tag) and submits the same
               // SplitBio again when woken; it goes on with the piece that found none
};

// A bio on its way through submit_bio(): the pieces bio_split_to_limits() cut it into, each
// submitted on its own and chained to it (bio_chain: it ends when pieces_left reaches 0), and
// how far its submission got, kept across a sleep for a tag.
struct SplitBio {
    Bio bio;                          // the bio as its owner built it
    std::vector<Bio> pieces;          // more than one piece: the pieces (bio unused)
    sim::Time queued;                 // trace Q: set once, kept across a tag sleep
    bool started = false;             // submit_bio has seen it (Q traced, split done)
    uint32_t nr_pieces = 1;
    uint32_t next_piece = 0;          // the piece to submit next
    uint32_t pieces_left = 0;         // pieces not yet ended
    bool piece_tried = false;         // next_piece has had its merge attempts

    // Every piece is in the kernel's hands: submit_bio has returned for the whole bio.
    bool submitted() const { return started && next_piece == nr_pieces; }
    // One more piece is in the kernel's hands (merged, or carried by a request).
    void piece_submitted() {
        ++next_piece;
        piece_tried = false;
    }
    Bio& piece(uint32_t k) { return nr_pieces == 1 ? bio : pieces[k]; }
    // Room for a bio of `max_sectors` cut into pieces of `split_sectors`, made up front so that
    // no submission allocates.
    void reserve(uint64_t max_sectors, uint32_t split_sectors) {
        const uint64_t n = (max_sectors + split_sectors - 1) / split_sectors;
        if (n > 1)
            pieces.resize(n);
    }
};

}  // namespace blksim::blkmq
