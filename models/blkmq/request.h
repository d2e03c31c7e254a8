// struct request: the unit the driver sees. Preallocated in the tag space's static_rqs
// array and addressed by tag, as the kernel does: no allocation per I/O.
#pragma once

#include <cstdint>

#include <boost/intrusive/list.hpp>
#include <boost/intrusive/slist.hpp>
#include <boost/intrusive/set_hook.hpp>

#include "sim/time.h"

namespace blksim::blkmq {

// enum req_op: REQ_OP_FLUSH is the empty cache flush the flush machinery sends the driver
// (blk-flush.c's flush_rq); a file system's or fsync()'s flush is a WRITE with REQ_PREFLUSH.
// REQ_OP_DISCARD is blkdev_issue_discard()'s (the BLKDISCARD ioctl fio's trims use): a range
// to deallocate, no data.
enum class ReqOp : uint8_t { READ = 0, WRITE = 1, FLUSH = 2, DISCARD = 3 };
// op_is_write(): the kernel's odd ops (WRITE, DISCARD) count as writes (rq_data_dir(), the
// schedulers' direction, the disk stats' write side).
inline bool op_is_write(ReqOp op) { return (static_cast<uint8_t>(op) & 1u) != 0; }

// The blk_opf_t flags the model carries (include/linux/blk_types.h): REQ_PREFLUSH asks for a
// cache flush before the request's data, REQ_FUA for its data to reach stable media before
// it completes. Both make a bio and a request unmergeable (REQ_NOMERGE_FLAGS).
inline constexpr uint8_t REQ_PREFLUSH = 1u << 0;
inline constexpr uint8_t REQ_FUA = 1u << 1;
inline constexpr uint8_t REQ_NOMERGE_FLAGS = REQ_PREFLUSH | REQ_FUA;
// REQ_POLLED: the submitter reaps the completion by polling (io_uring's IOPOLL); a driver
// with poll queues completes it without an interrupt, any other as usual (the kernel clears
// the flag on a queue that cannot poll).
inline constexpr uint8_t REQ_POLLED = 1u << 2;

// rq->rq_flags: RQF_FLUSH_SEQ, the request is inside the flush state machine (blk-flush.c):
// its completion goes to the machine instead of ending it.
inline constexpr uint8_t RQF_FLUSH_SEQ = 1u << 0;
// RQF_SCHED_FINISHED: the elevator's finish hook has run (the kernel clears RQF_USE_SCHED
// then). A write in a flush sequence is finished when its data step completes, so that it
// stops counting as in the scheduler's device while it waits for its post-flush, and is not
// finished a second time when it ends.
inline constexpr uint8_t RQF_SCHED_FINISHED = 1u << 1;

// rq->flush.seq: the steps of a flush sequence (REQ_FSEQ_*), done in this order.
inline constexpr uint8_t REQ_FSEQ_PREFLUSH = 1u << 0;
inline constexpr uint8_t REQ_FSEQ_DATA = 1u << 1;
inline constexpr uint8_t REQ_FSEQ_POSTFLUSH = 1u << 2;
inline constexpr uint8_t REQ_FSEQ_DONE = 1u << 3;
inline constexpr uint8_t REQ_FSEQ_ACTIONS = REQ_FSEQ_PREFLUSH | REQ_FSEQ_DATA | REQ_FSEQ_POSTFLUSH;

// enum mq_rq_state: IDLE from allocation until ->queue_rq accepts it (blk_mq_start_request),
// IN_FLIGHT at the driver, COMPLETE once the driver ended it (until it is freed, or goes
// back to IDLE when requeued). The invariant checker refuses every other transition: a
// request issued twice, or completed when not in flight, stops the run naming it.
enum class RqState : uint8_t { IDLE = 0, IN_FLIGHT = 1, COMPLETE = 2 };

class HwQueue;
class RequestQueue;
struct Bio;

// Who gets told that a bio ended (the submitting job thread): bio->bi_end_io.
class EndIo {
public:
    virtual void end_io(Bio* bio, sim::Time now) = 0;

protected:
    ~EndIo() = default;
};

// struct bio: one I/O as submitted. The submitter owns it (fio's io_u embeds one); a
// request chains the bios merged into it through bi_next.
struct Bio {
    uint64_t sector = 0;
    uint32_t nr_sectors = 0;
    ReqOp op = ReqOp::READ;
    uint8_t cmd_flags = 0;     // REQ_PREFLUSH, REQ_FUA (bio->bi_opf's flags)
    EndIo* end_io = nullptr;
    uint32_t cookie = 0;       // the owner's handle (the io_u index)
    Bio* bi_next = nullptr;
    // bio->bi_ioprio: merges only join bios and requests of equal priority (class and level).
    uint8_t ioprio_class = 0;  // IOPRIO_CLASS_NONE/RT/BE/IDLE = 0/1/2/3
    uint8_t ioprio_level = 4;  // 0 (highest) .. 7; IOPRIO_NORM = 4
    // The submitting task (`current` while the bio is submitted): its pid and its
    // io_context priority (ioprio_set(), fio's prioclass/prio). bfq keys its queues by the
    // task and takes their class and weight from the task's priority, not from bi_ioprio.
    uint32_t pid = 0;
    uint8_t task_ioprio_class = 0;
    uint8_t task_ioprio_level = 4;
    uint64_t end_sector() const { return sector + nr_sectors; }
};

// The physical segments of a bio: fio's buffers are page aligned and the pages of a user
// buffer are not physically contiguous, so a bio of n bytes has ceil(n / 4 KiB) segments.
inline uint32_t bio_segments(uint32_t nr_sectors) { return (nr_sectors + 7) / 8; }

struct Request {
    // What to do.
    uint64_t sector = 0;      // 512-byte units
    uint32_t nr_sectors = 0;
    uint32_t nr_phys_segments = 0;  // summed over its bios (no coalescing across bios)
    ReqOp op = ReqOp::READ;
    uint8_t cmd_flags = 0;    // REQ_PREFLUSH / REQ_FUA as the driver is to see them
    uint8_t rq_flags = 0;     // RQF_FLUSH_SEQ, RQF_SCHED_FINISHED
    uint8_t flush_seq = 0;    // rq->flush.seq: REQ_FSEQ_* steps done

    // Where it lives. With an elevator `tag` is the scheduler tag (rq->internal_tag) and
    // `driver_tag` is taken at dispatch; without one they are the same driver tag.
    uint16_t tag = 0;
    uint32_t driver_tag = ~0u;
    uint32_t mq_ctx_cpu = 0;  // the submitting CPU (rq->mq_ctx->cpu)
    HwQueue* mq_hctx = nullptr;
    RequestQueue* q = nullptr;

    // Life-cycle instants, for btt-style stage latencies (Q2G, G2I, I2D, D2C).
    sim::Time t_queue, t_get, t_insert, t_issue;
    // When a dispatch round left it on hctx->dispatch: a run stamped earlier (another CPU's,
    // processed later but played out ahead of the clock less far) cannot take it before.
    sim::Time t_listed;

    // The bios this request carries (rq->bio .. rq->biotail) and the submitting task.
    Bio* bio = nullptr;
    Bio* biotail = nullptr;
    uint32_t pid = 0;

    // Intrusive list link: plug list, software queue, hctx->dispatch (a RequestList). A
    // normal (not safe-mode) hook, so that no list touches its requests when it is
    // destroyed: at the end of a stopped run the requests may go first.
    // Singly linked, as the FIFO needs no more: push at either end, pop at the head.
    using ListHook = boost::intrusive::slist_member_hook<boost::intrusive::link_mode<boost::intrusive::normal_link>>;
    ListHook link;

    // rq->ioprio, inherited from the first bio (req_get_ioprio()).
    uint8_t ioprio_class = 0;  // IOPRIO_CLASS_NONE/RT/BE/IDLE = 0/1/2/3
    uint8_t ioprio_level = 4;  // 0 (highest) .. 7; IOPRIO_NORM = 4
    RqState state = RqState::IDLE;  // rq->state
    // The core's own record that the elevator holds this request (inserted, not yet
    // dispatched or merged away), counted independently of the policy's statistics.
    bool elv_queued = false;

    // --- elevator data: owned by the scheduler while the request is inside it ----------
    // (rq->rb_node, rq->hash, rq->queuelist, rq->fifo_time, rq->elv.priv[0]). Hooks are
    // boost::intrusive safe-mode member hooks: default-constructible, copying one yields an
    // unlinked hook (so Request stays copyable and usable in std::vector<Request>(depth)),
    // and is_linked() lets the invariant checker see where a request is. A request must
    // not be destroyed or moved while linked into a scheduler.
    boost::intrusive::set_member_hook<> rb_node;     // sector-sorted tree (elv_rb_add)
    // elv_rqhash (sched::ElvRqHash): a bucket list whose hook unlinks itself.
    using HashHook = boost::intrusive::list_member_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;
    HashHook hash_node;        // back-merge lookup by end sector
    boost::intrusive::list_member_hook<> queuelist;  // FIFO or at-head dispatch list
    sim::Time fifo_time;       // deadline (FIFO) or insertion instant (at-head)
    bool elv_counted = false;  // rq->elv.priv[0]: counted in the scheduler's statistics
    void* elv_priv = nullptr;  // rq->elv.priv[1]: the policy's per-request object (bfq: its bfq_queue)
    void* elv_icq = nullptr;   // rq->elv.icq: the submitting process's data (bfq: its bfq_io_cq)

    uint64_t bytes() const { return static_cast<uint64_t>(nr_sectors) << 9; }
    uint64_t end_sector() const { return sector + nr_sectors; }
    // rq_mergeable(): no bio joins a FUA / PREFLUSH request or one inside a flush sequence.
    // *Simplification:* nor a discard (the kernel merges discards into multi-range requests,
    // bio_attempt_discard_merge(); fio's trims are synchronous, one per job at a time, so
    // only discards of different jobs could meet: docs/fio.md, Trims).
    bool mergeable() const { return !(cmd_flags & REQ_NOMERGE_FLAGS) && rq_flags == 0 && op != ReqOp::DISCARD; }
    bool fua() const { return (cmd_flags & REQ_FUA) != 0; }
};

// A FIFO of requests through Request::link (list_head in the kernel).
class RequestList {
public:
    bool empty() const { return list_.empty(); }
    uint32_t size() const { return static_cast<uint32_t>(list_.size()); }
    // The list links requests it does not own: handing them out from a const list is fine.
    Request* front() const { return empty() ? nullptr : const_cast<Request*>(&list_.front()); }
    Request* back() const { return empty() ? nullptr : const_cast<Request*>(&list_.back()); }
    void push_back(Request* rq) { list_.push_back(*rq); }
    void push_front(Request* rq) { list_.push_front(*rq); }
    Request* pop_front() {
        if (empty())
            return nullptr;
        Request* rq = &list_.front();
        list_.pop_front();
        return rq;
    }
    // Move all of `o` to our tail (list_splice_tail_init).
    void splice_tail(RequestList& o) { list_.splice_after(list_.last(), o.list_); }
    auto begin() const { return list_.begin(); }
    auto end() const { return list_.end(); }

private:
    boost::intrusive::slist<Request, boost::intrusive::member_hook<Request, Request::ListHook, &Request::link>,
                            boost::intrusive::cache_last<true>, boost::intrusive::linear<true>>
        list_;
};

}  // namespace blksim::blkmq
