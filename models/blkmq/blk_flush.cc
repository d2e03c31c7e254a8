// The flush state machine (block/blk-flush.c). A request that carries REQ_PREFLUSH or REQ_FUA
// on a queue with a volatile write cache is split into up to three steps, done in order:
// PREFLUSH (flush the cache before the data), DATA (the write itself), POSTFLUSH (flush after
// it, when the device cannot do FUA). The flushes are the hctx's one flush_rq, issued as a
// REQ_OP_FLUSH at the head of hctx->dispatch, past the scheduler; the requests that need a
// flush wait on the pending list, so that one flush serves all of them, and those arriving
// while it runs wait for the next one (blk_kick_flush's conditions C1-C3).
//
// *Simplifications* (docs/model.md "Flush and FUA"): the requests' REQ_SYNC bookkeeping and
// blk_flush_restore_request() are folded into the flags the model keeps; an error never
// happens (no REQ_FSEQ_DONE with an error); the data step is requeued through
// q->requeue_list as in the kernel, but the requeue work costs no CPU time of its own.
#include "models/blkmq/request_queue.h"

#include <bit>

namespace blksim::blkmq {

using sim::Duration;
using sim::Time;

namespace {

// FLUSH_PENDING_TIMEOUT: a flush is not held back for in-flight flush data longer than 5 s.
constexpr Duration FLUSH_PENDING_TIMEOUT = Duration::ns(5'000'000'000);

// blk_flush_cur_seq(): the first step not done yet.
uint8_t flush_cur_seq(const Request& rq) {
    return static_cast<uint8_t>(1u << std::countr_one(static_cast<unsigned>(rq.flush_seq)));
}

}  // namespace

bool RequestQueue::insert_flush(Request* rq, Time now, uint32_t cpu) {
    HwQueue& h = *rq->mq_hctx;
    uint8_t policy = 0;
    if (rq->nr_sectors)
        policy |= REQ_FSEQ_DATA;
    if (write_cache_) {
        if (rq->cmd_flags & REQ_PREFLUSH)
            policy |= REQ_FSEQ_PREFLUSH;
        if ((rq->cmd_flags & REQ_FUA) && !fua_)
            policy |= REQ_FSEQ_POSTFLUSH;
    }
    // What the driver is to see: no PREFLUSH (the machine does it), FUA only if it can.
    rq->cmd_flags &= static_cast<uint8_t>(~REQ_PREFLUSH);
    if (!fua_)
        rq->cmd_flags &= static_cast<uint8_t>(~REQ_FUA);

    switch (policy) {
    case 0:
        // An empty flush with nothing to flush: ended at once.
        rq->t_insert = rq->t_issue = now;
        trace(TraceAction::COMPLETE, *rq, now, cpu);
        end_request(rq, now, cpu, now);
        return true;
    case REQ_FSEQ_DATA:
        // Data and no flush needed: an ordinary request now.
        return false;
    case REQ_FSEQ_DATA | REQ_FSEQ_POSTFLUSH:
        // The write goes on as usual; its completion comes here for the post-flush.
        rq->rq_flags |= RQF_FLUSH_SEQ;
        rq->flush_seq = REQ_FSEQ_PREFLUSH;
        ++h.fq.data_in_flight;
        return false;
    default:
        rq->rq_flags |= RQF_FLUSH_SEQ;
        rq->flush_seq = 0;
        if (!rq->nr_sectors)
            rq->t_insert = rq->t_issue = now;  // never inserted nor issued: btt stages G..C
        flush_complete_seq(rq, h, static_cast<uint8_t>(REQ_FSEQ_ACTIONS & ~policy), now, cpu);
        return true;
    }
}

// blk_flush_complete_seq(): `seq` is done for rq; on to its next step.
void RequestQueue::flush_complete_seq(Request* rq, HwQueue& h, uint8_t seq, Time now, uint32_t cpu) {
    FlushQueue& fq = h.fq;
    rq->flush_seq |= seq;
    switch (flush_cur_seq(*rq)) {
    case REQ_FSEQ_PREFLUSH:
    case REQ_FSEQ_POSTFLUSH: {
        RequestList& pending = fq.queue[fq.pending_idx];
        if (pending.empty())
            fq.pending_since = now;
        pending.push_back(rq);
        break;
    }
    case REQ_FSEQ_DATA:
        // list_move() to q->requeue_list (at its head) and kick the requeue work, which
        // inserts the write at the head of the elevator or the software queue.
        ++fq.data_in_flight;
        requeue_list_.push_front(rq);
        kick_requeue_list(now, cpu);
        break;
    default:  // REQ_FSEQ_DONE
        rq->rq_flags &= static_cast<uint8_t>(~RQF_FLUSH_SEQ);  // blk_flush_restore_request
        // blk_mq_end_request(): an empty flush request's only C. (*Simplification:* a data
        // request, whose data step already traced its C, is not traced a second time.)
        if (rq->nr_sectors == 0)
            trace(TraceAction::COMPLETE, *rq, now, cpu);
        end_request(rq, now, cpu, now);
        break;
    }
    kick_flush(h, now, cpu);
}

// blk_kick_flush(): issue the flush for the pending list, unless one is in flight (C1) or
// flush data is in flight and the list has not waited FLUSH_PENDING_TIMEOUT (C2, C3).
void RequestQueue::kick_flush(HwQueue& h, Time now, uint32_t cpu) {
    FlushQueue& fq = h.fq;
    RequestList& pending = fq.queue[fq.pending_idx];
    if (fq.pending_idx != fq.running_idx || pending.empty())
        return;
    if (fq.data_in_flight && now < fq.pending_since + FLUSH_PENDING_TIMEOUT)
        return;
    fq.pending_idx ^= 1;
    // The waiters' steps are played out ahead of the clock: the flush is issued no earlier
    // than the last of them reached the list, so none of them ends before it began.
    Time ready = now;
    for (const Request& rq : pending)
        ready = sim::max(ready, (rq.flush_seq & REQ_FSEQ_DATA) ? rq.t_issue : rq.t_insert);

    // blk_rq_init(flush_rq): it borrows the first waiter's tag (its driver tag without an
    // elevator; with one, its scheduler tag, and takes a driver tag at dispatch).
    const Request& first = *pending.front();
    Request& f = fq.flush_rq;
    f.q = this;
    f.mq_hctx = &h;
    f.mq_ctx_cpu = first.mq_ctx_cpu;
    f.tag = first.tag;
    f.driver_tag = elevator_ ? BlkMqTags::NO_TAG : first.driver_tag;
    f.sector = 0;
    f.nr_sectors = 0;
    f.nr_phys_segments = 0;
    f.op = ReqOp::FLUSH;
    f.cmd_flags = REQ_PREFLUSH;
    f.rq_flags = RQF_FLUSH_SEQ;
    f.flush_seq = 0;
    f.state = RqState::IDLE;
    f.bio = f.biotail = nullptr;
    f.pid = first.pid;
    f.ioprio_class = first.ioprio_class;
    f.ioprio_level = first.ioprio_level;
    f.t_queue = f.t_get = f.t_insert = ready;
    flush_list_.push_back(&f);
    kick_requeue_list(now, cpu);
}

// flush_end_io(): the flush is done; every request it served moves on, and the requests
// that gathered meanwhile get the next flush.
void RequestQueue::flush_end_io(Request* flush_rq, Time tc, uint32_t cpu) {
    HwQueue& h = *flush_rq->mq_hctx;
    FlushQueue& fq = h.fq;
    ++stats_.flushes;
    stats_.flush_ticks_ns += (tc - flush_rq->t_get).count();
    if (elevator_)
        put_driver_tag(h, flush_rq, tc);
    flush_rq->driver_tag = BlkMqTags::NO_TAG;  // (a borrowed tag goes back with nothing to do)
    RequestList running;
    running.splice_tail(fq.queue[fq.running_idx]);
    fq.running_idx ^= 1;
    while (Request* rq = running.pop_front())
        flush_complete_seq(rq, h, flush_cur_seq(*rq), tc, cpu);
    completion_restart(h, tc);
}

// __blk_mq_end_request() of the data step, then mq_flush_data_end_io(). The elevator's finish
// hook runs first (blk_mq_finish_request), and only this once: the request leaves the
// scheduler's accounting now, not when it ends after its post-flush — else a scheduler that
// holds back dispatch while requests are in the driver (bfq's strict_guarantees) would keep
// the next flush-sequence write, and the post-flush waits for that write's data (C2). With an
// elevator the driver tag goes back now (the scheduler tag stays until the request ends).
void RequestQueue::flush_data_end_io(Request* rq, Time tc, uint32_t cpu, Time now) {
    HwQueue& h = *rq->mq_hctx;
    if (elevator_) {
        finish_request(rq, tc, cpu, now);
        put_driver_tag(h, rq, tc);
    }
    --h.fq.data_in_flight;
    flush_complete_seq(rq, h, REQ_FSEQ_DATA, tc, cpu);
    completion_restart(h, tc);
}

}  // namespace blksim::blkmq
