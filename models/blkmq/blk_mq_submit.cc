// blk_mq_submit_bio() (block/blk-mq.c): a bio from a task becomes part of a request — merged
// into one already waiting, or carried by a new one on the task's plug.
#include <algorithm>

#include "models/blkmq/blk_mq_submit.h"
#include "models/blkmq/plug.h"
#include "models/blkmq/request_queue.h"

namespace blksim::blkmq {

using sim::Duration;
using sim::Time;

// bio_split_to_limits() for a bio larger than the queue's limits: it is cut into pieces (an
// X per cut), each a bio of its own, submitted in order.
void RequestQueue::split_bio(SplitBio& sb, Time now, uint32_t cpu) const {
    const Bio& bio = sb.bio;
    // bio_split_discard(): a discard is cut at max_discard_sectors, not at the data limits.
    const uint32_t max = bio.op == ReqOp::DISCARD ? max_discard_sectors_ : split_sectors_;
    sb.nr_pieces = (bio.nr_sectors + max - 1) / max;
    sb.pieces_left = sb.nr_pieces;
    if (sb.pieces.size() < sb.nr_pieces)
        sb.pieces.resize(sb.nr_pieces);  // once per SplitBio and size: not in steady state
    uint32_t done = 0;
    for (uint32_t k = 0; k < sb.nr_pieces; ++k) {
        Bio& piece = sb.pieces[k];
        piece = bio;
        piece.sector = bio.sector + done;
        piece.nr_sectors = std::min(max, bio.nr_sectors - done);
        piece.bi_next = nullptr;
        done += piece.nr_sectors;
        if (k + 1 < sb.nr_pieces && tracing())
            trace_split(piece, now, cpu, bio.pid);
    }
}

// Each piece: blk_mq_attempt_bio_merge (the plug first, then the scheduler or the software
// queue), else a request — after flushing a full plug — that goes to the flush machinery or
// onto the plug. The submitting task's CPU time beyond one bio's submission (the lock
// sections of merge attempts, the further pieces' own submission work) is added to
// `cpu_time`; each step happens at `now + cpu_time`.
SubmitStatus RequestQueue::submit_bio(SplitBio& sb, Plug& plug, uint32_t cpu, Time now, Duration& cpu_time) {
    if (!sb.started) {
        // submit_bio(): trace Q once, even if the task then sleeps for a tag.
        Bio& bio = sb.bio;
        sb.started = true;
        sb.queued = now;
        if (flush_bio_stripped(bio)) [[unlikely]] {
            sb.nr_pieces = sb.pieces_left = sb.next_piece = 1;
            sb.piece_tried = false;
            bio.end_io->end_io(&bio, now);
            return SubmitStatus::ENDED;
        }
        trace_bio(TraceAction::QUEUE, bio, now, cpu, bio.pid);
        sb.next_piece = 0;
        sb.piece_tried = false;
        if (bio.nr_sectors > (bio.op == ReqOp::DISCARD ? max_discard_sectors_ : split_sectors_)) [[unlikely]]
            split_bio(sb, now, cpu);
        else
            sb.nr_pieces = sb.pieces_left = 1;
    }
    SubmitStatus status = SubmitStatus::MERGED;
    while (sb.next_piece < sb.nr_pieces) {
        Bio& bio = sb.piece(sb.next_piece);
        if (!sb.piece_tried) {
            sb.piece_tried = true;
            if (sb.next_piece > 0)
                cpu_time += costs_.bio_submit + costs_.rq_alloc + costs_.plug;
            Duration lock_time;
            const bool merged = attempt_plug_merge(plug.mq_list(), &bio, now + cpu_time, cpu) ||
                                attempt_sched_merge(&bio, now + cpu_time, cpu, lock_time);
            cpu_time += lock_time;
            if (merged) {
                sb.piece_submitted();
                status = SubmitStatus::MERGED;
                continue;
            }
        }
        if (plug.needs_flush())
            plug.flush(*this, now + cpu_time, cpu, false);
        // Direct reads are synchronous; writes count as async for the elevator's limit_depth.
        Request* rq = alloc_request(cpu, now + cpu_time, bio.op == ReqOp::READ);
        if (rq == nullptr)
            return SubmitStatus::WAIT_TAG;
        bio_to_request(rq, &bio, bio.pid, sb.queued);
        // blk_mq_rq_ctx_init()'s ops.prepare_request runs in the submitting task: bfq takes
        // `current`'s io_cq there (ioc_find_get_icq), so the request must name its task
        // first; before, a kernel:bfq request was put in the queue of the task that last
        // held its scheduler tag.
        if (elevator_)
            elevator_->prepare_request(rq);
        if (tracing())
            trace_bio(TraceAction::GETRQ, bio, now + cpu_time, cpu, bio.pid);  // blk_add_trace_getrq
        // The piece counts as submitted before blk_insert_flush(), which may end it at once.
        sb.piece_submitted();
        if ((rq->cmd_flags & REQ_NOMERGE_FLAGS) && insert_flush(rq, now + cpu_time, cpu)) [[unlikely]] {
            status = SubmitStatus::ISSUED;
            continue;
        }
        plug.add(*this, rq, now + cpu_time, cpu);
        status = SubmitStatus::PLUGGED;
    }
    return status;
}

}  // namespace blksim::blkmq
