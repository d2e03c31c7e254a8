// BFQ's I/O injection and waker/wakee detection (block/bfq-iosched.c). See bfq.h.
//
// While the in-service sync queue is idled for (device idling keeps the device for it while
// it has no request), the device may run dry: a "service hole". bfq fills it from other
// queues in bfq_select_queue():
//  - a waker queue first: a queue whose completions this one waits for (bfq_check_waker:
//    three times in a row this queue got its first request within 4 ms of a completion of
//    that queue), so serving it is what brings the in-service queue its next request; then a
//    queue this one wakes (the newest of its woken_list);
//  - else, unless idling is for throughput, any queue with a request that fits its budget
//    (bfq_choose_bfqq_for_injection), while fewer than inject_limit requests are in flight.
// inject_limit is feedback (bfq_update_inject_limit): the total service time (arrival to
// completion) of the in-service queue's first request after a hole is measured, without
// injection for a baseline, then with it; within 1.5x the baseline the limit grows, above it
// shrinks. It is reset every second, and when the think time changes class before a baseline.
// With queue merging (bfq_coop.cc): detection looks at the process's own requests
// (bic->requests), a shared queue is never a candidate waker, a merge hands the merged
// queue's waker to the shared queue and a split hands the shared queue's to the new one,
// and the limit and its baseline are saved and resumed with the process's other state.
#include "models/sched/bfq.h"

#include <algorithm>

namespace blksim::sched {

using blkmq::Request;

namespace {

// The woken_list is the kernel's hlist (bfqq->woken_list head, woken_list_node): intrusive,
// so a detection allocates nothing.
void woken_list_del_init(BfqQueue* q) {
    if (!q->woken_pprev)
        return;  // hlist_unhashed()
    *q->woken_pprev = q->woken_next;
    if (q->woken_next)
        q->woken_next->woken_pprev = q->woken_pprev;
    q->woken_next = nullptr;
    q->woken_pprev = nullptr;
}

void woken_list_add_head(BfqQueue* q, BfqQueue* waker) {
    q->woken_next = waker->woken_list;
    if (q->woken_next)
        q->woken_next->woken_pprev = &q->woken_next;
    waker->woken_list = q;
    q->woken_pprev = &waker->woken_list;
}

// BFQQ_SECT_THR_NONROT: on a non-rotational device a request this large or larger is served
// efficiently anywhere, and hogs the device.
constexpr uint32_t BFQQ_SECT_THR_NONROT = 2 * 32;

}  // namespace

// bfq_reset_inject_limit(): forget the baseline; start at 0 for a queue with a short think
// time (an injected request may outlast its think time), at 1 for a long one (it would
// rarely get a baseline sampled, and never any injection).
void Bfq::bfq_reset_inject_limit(BfqQueue* bfqq) {
    bfqq->last_serv_time_ns = 0;
    waited_rq_ = nullptr;
    bfqq->inject_limit = bfqq->has_short_ttime ? 0 : 1;
    bfqq->decrease_time_jif = jiffies();
}

// bfq_check_waker(): bfqq, with a long think time, got a request within 4 ms of the last
// completion, of another queue. The same queue three times in a row (within 128 slice_idle
// of the first time) becomes its waker.
void Bfq::bfq_check_waker(BfqQueue* bfqq, uint64_t now_ns) {
    BfqQueue* waker = last_completed_rq_bfqq_;
    if (!waker || waker == bfqq || bfqq->has_short_ttime ||
        now_ns - static_cast<uint64_t>(last_completion_) >= 4 * BFQ_NSEC_PER_MSEC)
        return;
    // Rare wake-ups: start over, so that at most 1 in 64 idlings is in vain.
    if (waker != bfqq->tentative_waker_bfqq ||
        now_ns > bfqq->waker_detection_started + 128 * static_cast<uint64_t>(bfq_slice_idle_)) {
        bfqq->tentative_waker_bfqq = waker;
        bfqq->num_waker_detections = 1;
        bfqq->waker_detection_started = now_ns;
        explain_(now_, "bfq{}S set tentative waker bfq{}S", bfqq->pid, waker->pid);
    } else {
        bfqq->num_waker_detections++;
    }
    if (bfqq->num_waker_detections == 3) {
        bfqq->waker_bfqq = waker;
        bfqq->tentative_waker_bfqq = nullptr;
        explain_(now_, "bfq{}S set waker bfq{}S", bfqq->pid, waker->pid);
        woken_list_del_init(bfqq);
        woken_list_add_head(bfqq, waker);
    }
}

// The waker hand-over of bfq_merge_bfqqs() and of a split in bfq_init_rq(): bfqq takes
// waker_bfqq (null: none) as its waker, and joins its woken_list so that the waker's end
// resets it. The kernel adds to the list without unlinking first: bfqq has no waker here.
void Bfq::bfq_inherit_waker(BfqQueue* bfqq, BfqQueue* waker_bfqq) {
    bfqq->waker_bfqq = waker_bfqq;
    bfqq->tentative_waker_bfqq = nullptr;
    if (waker_bfqq) {
        explain_(now_, "bfq{}S inherits waker bfq{}S", bfqq->pid, waker_bfqq->pid);
        woken_list_add_head(bfqq, waker_bfqq);
    }
}

// bfq_waker_bfqq(): the waker a queue split off bfqq inherits: bfqq's, unless it has no
// process left to wake anyone (in bfqq's merge chain: only the splitting one).
BfqQueue* Bfq::bfq_waker_bfqq(BfqQueue* bfqq) const {
    BfqQueue* waker_bfqq = bfqq->waker_bfqq;
    if (!waker_bfqq)
        return nullptr;
    for (const BfqQueue* new_bfqq = bfqq->new_bfqq; new_bfqq; new_bfqq = new_bfqq->new_bfqq) {
        if (new_bfqq == waker_bfqq)
            return waker_bfqq->process_refs == 1 ? nullptr : waker_bfqq;
    }
    return waker_bfqq->process_refs == 0 ? nullptr : waker_bfqq;
}

// bfq_add_request()'s part for a sync request that is its process's only one in bfq or the
// driver (RQ_BIC(rq)->requests <= 1: the process's count, not the queue's, which a merged
// queue shares among its processes):
// waker detection, the periodic reset of the limit, and, for the in-service queue, the start
// of a total-service-time measurement (the request arrives with nothing in flight, or after
// injection against a known baseline; at most every 10 ms after a decrease).
void Bfq::bfq_add_request_inject(BfqQueue* bfqq, const Request* rq) {
    if (!bfqq->sync || RQ_BIC(rq)->requests > 1)
        return;
    const auto now = static_cast<uint64_t>(now_ns());
    bfq_check_waker(bfqq, now);
    if (jiffies() >= bfqq->decrease_time_jif + jif_.msecs_to_jiffies(1000))
        bfq_reset_inject_limit(bfqq);
    if (bfqq == in_service_queue_ &&
        (tot_rq_in_driver_ == 0 || (bfqq->last_serv_time_ns > 0 && rqs_injected_ && tot_rq_in_driver_ > 0)) &&
        jiffies() >= bfqq->decrease_time_jif + jif_.msecs_to_jiffies(10)) {
        last_empty_occupied_ns_ = now;
        wait_dispatch_ = true;  // waited_rq_ is this request once dispatched
        // With nothing in flight, earlier injection cannot delay it: only injection from now
        // on counts.
        if (tot_rq_in_driver_ == 0)
            rqs_injected_ = false;
    }
}

// bfq_update_inject_limit(): waited_rq_ completes (before it leaves tot_rq_in_driver_).
// With injection against a baseline: above 1.5x the baseline the limit drops, below it
// grows (up to the most requests seen in flight). With nothing else in flight, the time is
// a baseline: the first one, or a lower one, or a fresh one when nothing was injected.
void Bfq::bfq_update_inject_limit(BfqQueue* bfqq) {
    const uint64_t tot_time_ns = static_cast<uint64_t>(now_ns()) - last_empty_occupied_ns_;
    const unsigned int old_limit = bfqq->inject_limit;
    if (bfqq->last_serv_time_ns > 0 && rqs_injected_) {
        const uint64_t threshold = (bfqq->last_serv_time_ns * 3) >> 1;
        if (tot_time_ns >= threshold && old_limit > 0) {
            bfqq->inject_limit--;
            bfqq->decrease_time_jif = jiffies();
        } else if (tot_time_ns < threshold && old_limit <= max_rq_in_driver_) {
            bfqq->inject_limit++;
        }
    }
    if ((bfqq->last_serv_time_ns == 0 && tot_rq_in_driver_ == 1) || tot_time_ns < bfqq->last_serv_time_ns) {
        if (bfqq->last_serv_time_ns == 0)
            bfqq->inject_limit = std::max(1u, old_limit);  // a baseline: start injecting
        bfqq->last_serv_time_ns = tot_time_ns;
    } else if (!rqs_injected_ && tot_rq_in_driver_ == 1) {
        bfqq->last_serv_time_ns = tot_time_ns;  // the baseline varies with the I/O pattern
    }
    waited_rq_ = nullptr;
    rqs_injected_ = false;
}

// bfq_choose_bfqq_for_injection(): the first queue of the active list (newest activated
// first) with a request that fits its budget, while fewer than inject_limit requests are in
// the driver. A weight-raised in-service queue with a short think time only lets other
// weight-raised queues in; a large request on a non-rotational device is injected only into
// an empty driver.
BfqQueue* Bfq::bfq_choose_bfqq_for_injection() {
    const BfqQueue* in_serv = in_service_queue_;
    unsigned int limit = in_serv->inject_limit;
    const bool in_serv_always_inject = in_serv->wr_coeff == 1 || !in_serv->has_short_ttime;
    // No baseline yet and idling for long: one request. (The kernel adds bfq_slice_idle, in
    // ns, to a jiffies count, so this hardly ever holds; kept as written.)
    if (limit == 0 && in_serv->last_serv_time_ns == 0 && in_serv->wait_request &&
        jiffies() >= last_idling_start_jiffies_ + bfq_slice_idle_)
        limit = 1;
    if (tot_rq_in_driver_ >= limit)
        return nullptr;
    for (BfqQueue& bfqq : active_list_) {
        if (bfqq.sort_list.empty() || !(in_serv_always_inject || bfqq.wr_coeff > 1) ||
            bfq_serv_to_charge(bfqq.next_rq, &bfqq) > bfq_bfqq_budget_left(&bfqq))
            continue;
        if (nonrot() && bfqq.next_rq->nr_sectors >= BFQQ_SECT_THR_NONROT)
            limit = std::min(1u, limit);
        else
            limit = in_serv->inject_limit;
        if (tot_rq_in_driver_ < limit) {
            rqs_injected_ = true;
            return &bfqq;
        }
    }
    return nullptr;
}

// bfq_select_queue() while idling for bfqq (or waiting for its in-flight requests before
// idling): the queue to dispatch from meanwhile, bfqq staying in service; nullptr = none.
// bfqq's waker first, then the newest queue it wakes, then injection unless idling is for
// throughput (or bfqq is weight-raised with a short think time among no other raised queue).
BfqQueue* Bfq::bfq_select_queue_while_idling(BfqQueue* bfqq) {
    auto can_serve = [this](const BfqQueue* q) {
        return q && q->busy && q->next_rq && bfq_serv_to_charge(q->next_rq, q) <= bfq_bfqq_budget_left(q);
    };
    BfqQueue* blocked_bfqq = bfqq->woken_list;
    BfqQueue* chosen = nullptr;
    if (can_serve(bfqq->waker_bfqq))
        chosen = bfqq->waker_bfqq;
    else if (can_serve(blocked_bfqq))
        chosen = blocked_bfqq;
    else if (!idling_boosts_thr_without_issues(bfqq) &&
             (bfqq->wr_coeff == 1 || wr_busy_queues_ > 1 || !bfqq->has_short_ttime))
        chosen = bfq_choose_bfqq_for_injection();
    if (chosen) {
        ++stats_.injected;
        explain_(now_, "bfq{}S injected while idling for bfq{}S ({} in the driver, inject_limit {})", chosen->pid,
                 bfqq->pid, tot_rq_in_driver_, bfqq->inject_limit);
    }
    return chosen;
}

}  // namespace blksim::sched
