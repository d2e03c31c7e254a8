// blktrace events (docs/references.md §1.13): every step of a request's life emits the action
// the kernel would, with blktrace's action letters. A TraceSink consumes them (blkparse-style
// text, blktrace binary); with no sink attached the cost is one pointer test per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/time.h"

namespace blksim::blkmq {

enum class TraceAction : char {
    QUEUE = 'Q',       // bio entered the block layer
    BACKMERGE = 'M',   // bio merged at the back of a request
    FRONTMERGE = 'F',  // bio merged at the front of a request
    GETRQ = 'G',       // request allocated
    PLUG = 'P',        // first request added to an empty plug
    UNPLUG = 'U',      // explicit unplug; `pdu` = number of requests
    UNPLUG_TIMER = 'T',// unplug because the task slept (blkparse prints "UT")
    INSERT = 'I',      // inserted into the scheduler or software queue
    ISSUE = 'D',       // handed to the driver
    COMPLETE = 'C',    // completed
    REQUEUE = 'R',     // requeued
    SPLIT = 'X',       // bio split to the queue's limits; `pdu` = sector where the rest starts
};

struct TraceEvent {
    sim::Time time;
    uint32_t cpu = 0;
    TraceAction action = TraceAction::QUEUE;
    bool write = false;        // rwbs: 'W' or 'R' (op_is_write(): a discard is a write)
    bool discard = false;      // REQ_OP_DISCARD: BLK_TC_DISCARD, rwbs 'D' in place of 'W'
    bool sync = false;         // rwbs 'S' (O_DIRECT reads/writes are REQ_SYNC... see writer)
    bool flush = false;        // REQ_PREFLUSH or REQ_OP_FLUSH: BLK_TC_FLUSH, rwbs 'F' first ("FWS", "FN")
    bool fua = false;          // REQ_FUA: BLK_TC_FUA, rwbs 'F' after the direction ("WFS")
    uint64_t sector = 0;
    uint32_t nr_sectors = 0;
    uint32_t pid = 0;
    uint32_t pdu = 0;          // U/T: requests unplugged
    int error = 0;             // C: 0 or a negative errno, as blk_status_to_errno() gives
    // Recorded from a request (blk_add_trace_rq: I, D, C, R and the M of a request merge,
    // which carry BLK_TC_FS in a binary trace) rather than from a bio (Q, G, and the M/F
    // of a bio merge, with the bio's sector and size) or from the queue (P, U).
    bool request = false;
    // Request events: the request's own stamps (btt's Q, G, I, D; I = G when it was never
    // inserted) and the index of its hardware queue, for a per-request timeline.
    sim::Time t_queue, t_get, t_insert, t_issue;
    uint32_t hctx = 0;
};

// blk_add_trace_msg() formats into BLK_TN_MAX_MSG (128) bytes: a message keeps at most 127.
inline constexpr std::size_t MAX_MESSAGE_BYTES = 127;

class TraceSink {
public:
    virtual ~TraceSink() = default;
    // `dev` is the index of the request queue (disk) in the scenario.
    virtual void emit(uint32_t dev, const TraceEvent& e) = 0;
    // A model's explained decision (models/blkmq/explain.h) at `t` on `cpu`: blktrace's
    // message (BLK_TN_MESSAGE). Only with --explain; a sink that shows none ignores it.
    virtual void message(uint32_t /*dev*/, sim::Time /*t*/, uint32_t /*cpu*/, std::string_view /*text*/) {}
};

}  // namespace blksim::blkmq
