// BFQ's service (block/bfq-iosched.c): budgets and their feedback, the choice between idling
// and switching, queue selection and expiration, dispatch, completion, depth limits; then the
// end-of-run check and the report. See bfq.h.
#include "models/sched/bfq.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/result/device_report.h"

namespace blksim::sched {

using blkmq::Request;

namespace {

const char* const kExpirationNames[BFQQE_NR] = {"too_idle", "budget_timeout", "budget_exhausted",
                                                "no_more_requests", "preempted"};

}  // namespace

// --- budgets --------------------------------------------------------------------------------

int Bfq::bfq_max_budget() const {
    return budgets_assigned_ < bfq_stats_min_budgets ? bfq_default_max_budget : max_budget_;
}

int Bfq::bfq_min_budget() const {
    return (budgets_assigned_ < bfq_stats_min_budgets ? bfq_default_max_budget : max_budget_) / 32;
}

// bfq_set_budget_timeout(): a weight-raised queue gets a proportionally longer slot.
void Bfq::bfq_set_budget_timeout(BfqQueue* bfqq) {
    const int64_t timeout_coeff = bfqq->wr_cur_max_time == bfq_wr_rt_max_time_
                                      ? 1
                                      : bfqq->entity.weight / bfqq->entity.orig_weight;
    last_budget_start_ = now_ns();
    bfqq->budget_timeout = jiffies() + bfq_timeout_ * timeout_coeff;
}

// __bfq_set_in_service_queue().
void Bfq::bfq_set_in_service_queue_fields(BfqQueue* bfqq) {
    if (bfqq) {
        const int64_t now_j = jiffies();
        bfqq->fifo_expire = false;
        budgets_assigned_ = (budgets_assigned_ * 7 + 256) / 8;
        // A soft real-time queue's raising period moves on by the time it was not served.
        if (now_j > bfqq->last_wr_start_finish && bfqq->wr_coeff > 1 &&
            bfqq->wr_cur_max_time == bfq_wr_rt_max_time_ && now_j > bfqq->budget_timeout) {
            if (bfqq->budget_timeout > bfqq->last_wr_start_finish)
                bfqq->last_wr_start_finish += now_j - bfqq->budget_timeout;
            else
                bfqq->last_wr_start_finish = now_j;
        }
        bfq_set_budget_timeout(bfqq);
        ++bfqq->slots;
        explain_(now_, "bfq{}{} set_in_service_queue, budget {}, weight {}{}", bfqq->pid, bfqq->sync ? 'S' : 'A',
                 bfqq->entity.budget, bfqq->entity.weight, bfqq->wr_coeff > 1 ? " (weight-raised)" : "");
    }
    in_service_queue_ = bfqq;
    in_serv_last_pos_ = 0;
}

// __bfq_bfqq_recalc_budget(): the budget feedback, for sync queues not weight-raised.
void Bfq::bfq_bfqq_recalc_budget(BfqQueue* bfqq, BfqqExpiration reason) {
    const int min_budget = bfq_min_budget();
    // A constant, low budget for weight-raised queues, for a low latency.
    int budget = bfqq->wr_coeff == 1 ? bfqq->max_budget : 2 * min_budget;
    if (bfqq->sync && bfqq->wr_coeff == 1) {
        switch (reason) {
        case BFQQE_TOO_IDLE:
            // The only case where the budget may shrink: with nothing in flight the batch
            // could have been served with less. With requests still in flight the process
            // may just be waiting for them: grow, as for a timeout.
            if (bfqq->dispatched > 0)
                budget = std::min(budget * 2, max_budget_);
            else if (budget > 5 * min_budget)
                budget -= 4 * min_budget;
            else
                budget = min_budget;
            break;
        case BFQQE_BUDGET_TIMEOUT:
            budget = std::min(budget * 2, max_budget_);
            break;
        case BFQQE_BUDGET_EXHAUSTED:
            // Backlogged, no timeout, no idle expiry: a good candidate for more.
            budget = std::min(budget * 4, max_budget_);
            break;
        case BFQQE_NO_MORE_REQUESTS:
            // Keep the budget close to the service actually needed.
            budget = std::max(bfqq->entity.service, min_budget);
            break;
        default:
            return;
        }
    }
    bfqq->max_budget = budget;
    if (budgets_assigned_ >= bfq_stats_min_budgets && !user_max_budget_)
        bfqq->max_budget = std::min(bfqq->max_budget, max_budget_);
    // With backlog, the next budget must fit the next request.
    if (const Request* next_rq = bfqq->next_rq)
        bfqq->entity.budget = std::max(bfqq->max_budget, bfq_serv_to_charge(next_rq, bfqq));
}

// bfq_bfqq_is_slow(): a sync queue that used less than half the peak-rate budget over a
// slot longer than 20 ms (or, for shorter slots, a seeky one) is slow and gets charged time.
bool Bfq::bfq_bfqq_is_slow(const BfqQueue* bfqq, bool compensate, int64_t* delta_ms) const {
    bool slow = bfqq_seeky(bfqq);
    if (!bfqq->sync)
        return false;
    const int64_t delta_us = ((compensate ? last_idling_start_ : now_ns()) - last_budget_start_) / 1000;
    if (delta_us < 1000) {
        // Too short to measure: the worst case of idling for a seeky queue (non-rotational),
        // or at least one seek (the kernel's built-in bfq_slice_idle, 8 ms).
        *delta_ms = nonrot() ? BFQ_MIN_TT / BFQ_NSEC_PER_MSEC : 8;
        return slow;
    }
    *delta_ms = delta_us / 1000;
    // Only long intervals: a process is slow below half the estimated peak rate.
    if (delta_us > 20000)
        slow = bfqq->entity.service < max_budget_ / 2;
    return slow;
}

// bfq_bfqq_expire().
void Bfq::bfq_bfqq_expire(BfqQueue* bfqq, bool compensate, BfqqExpiration reason) {
    BfqEntity& e = bfqq->entity;
    int64_t delta = 0;
    const bool slow = bfq_bfqq_is_slow(bfqq, compensate, &delta);
    // Charge slow and timed-out queues with time, not service; but not one that used at
    // least 2/3 of its budget (unlucky in a slow zone rather than seeky).
    if (bfqq->wr_coeff == 1 &&
        (slow || (reason == BFQQE_BUDGET_TIMEOUT && bfq_bfqq_budget_left(bfqq) >= e.budget / 3)))
        bfq_bfqq_charge_time(bfqq, delta);
    if (t_.low_latency && bfqq->wr_coeff == 1)
        bfqq->last_wr_start_finish = jiffies();
    if (t_.low_latency && bfqq->sort_list.empty()) {
        // An isochronous pattern: compute when the queue may next be deemed soft real-time,
        // now or once its in-flight requests complete.
        if (bfqq->dispatched == 0)
            bfqq->soft_rt_next_start = bfq_bfqq_softrt_next_start(bfqq);
        else
            bfqq->softrt_update = true;
    }
    ++stats_.expirations[reason];
    ++bfqq->expirations[reason];
    explain_(now_, "bfq{}{} expire: {}{}, service {} of budget {}", bfqq->pid, bfqq->sync ? 'S' : 'A',
             kExpirationNames[reason], slow ? " (slow)" : "", e.service, e.budget);
    rqs_injected_ = wait_dispatch_ = false;  // no total service time measured across slots
    waited_rq_ = nullptr;
    bfq_bfqq_recalc_budget(bfqq, reason);
    bfq_bfqq_expire_finish(bfqq, reason);
    // Waiting for a request: if it comes in time, the queue goes on with this budget.
    if (!bfqq->busy && reason != BFQQE_BUDGET_TIMEOUT && reason != BFQQE_BUDGET_EXHAUSTED)
        bfqq->non_blocking_wait_rq = true;
    else
        e.service = 0;
}

// __bfq_bfqq_expire(): off the device; requeued if it has requests, or if it was preempted
// while it needs idling for its guarantees (so that it is served before queues with later
// finish times), else out of the busy set.
void Bfq::bfq_bfqq_expire_finish(BfqQueue* bfqq, BfqqExpiration reason) {
    // A shared queue gone seeky: its processes no longer cooperate, split it (bfq_coop.cc).
    if (bfqq->coop && bfqq_seeky(bfqq))
        bfqq->split_coop = true;
    if (bfqq->sort_list.empty() &&
        !(reason == BFQQE_PREEMPTED && idling_needed_for_service_guarantees(bfqq))) {
        if (bfqq->dispatched == 0)
            bfqq->budget_timeout = jiffies();  // since when empty and idle (weight raising)
        bfq_del_bfqq_busy(bfqq, true);
    } else {
        bfq_requeue_bfqq(bfqq, true);
        if (!bfqq->sort_list.empty())
            bfq_pos_tree_update(bfqq);  // resort the potential close cooperators
    }
    bfq_bfqd_reset_in_service();
}

bool Bfq::bfq_may_expire_for_budg_timeout(const BfqQueue* bfqq) const {
    // Not while idling for the queue, unless it is slow enough (2/3 of its budget unused).
    return (!bfqq->wait_request || bfq_bfqq_budget_left(bfqq) >= bfqq->entity.budget / 3) &&
           bfq_bfqq_budget_timeout(bfqq);
}

// --- to idle or not to idle -----------------------------------------------------------------

// idling_boosts_thr_without_issues(): idling pays on a rotational device without command
// queueing, and on a rotational or non-queueing one for a sequential, I/O-bound queue with a
// short think time; never while some busy queue is weight-raised (they would starve).
// hw_tag is -1 until detected: !hw_tag is then false.
bool Bfq::idling_boosts_thr_without_issues(const BfqQueue* bfqq) const {
    if (bfqq->process_refs == 0)
        return false;  // merged away: no more requests will come
    const bool rot_without_queueing = !nonrot() && hw_tag_ == 0;
    const bool seq_io_bound = !bfqq_seeky(bfqq) && bfqq->IO_bound && bfqq->has_short_ttime;
    const bool idling_boosts_thr = rot_without_queueing || ((!nonrot() || hw_tag_ == 0) && seq_io_bound);
    return idling_boosts_thr && wr_busy_queues_ == 0;
}

// idling_needed_for_service_guarantees(): a weight-raised queue among others (or behind a
// lot of in-flight I/O), an asymmetric scenario, or the only busy queue (kept, lest a new
// queue take over the device's internal queue).
bool Bfq::idling_needed_for_service_guarantees(const BfqQueue* bfqq) const {
    const uint32_t tot_busy_queues = busy_queues();
    if (bfqq->process_refs == 0)
        return false;
    return (bfqq->wr_coeff > 1 &&
            (wr_busy_queues_ < tot_busy_queues ||
             tot_rq_in_driver_ >= static_cast<uint32_t>(bfqq->dispatched) + 4)) ||
           bfq_asymmetric_scenario(bfqq) || tot_busy_queues == 1;
}

bool Bfq::bfq_better_to_idle(const BfqQueue* bfqq) const {
    if (bfqq->process_refs == 0)
        return false;
    if (t_.strict_guarantees)
        return true;
    // No idling without slice_idle, for async queues or for the idle class.
    if (bfq_slice_idle_ == 0 || !bfqq->sync || bfqq->ioprio_class == 3)
        return false;
    return idling_boosts_thr_without_issues(bfqq) || idling_needed_for_service_guarantees(bfqq);
}

// bfq_arm_slice_timer(): idle for the in-service queue, only BFQ_MIN_TT for a seeky one
// that needs no guarantees, at least 20 ms for a weight-raised one.
void Bfq::bfq_arm_slice_timer() {
    BfqQueue* bfqq = in_service_queue_;
    bfqq->wait_request = true;
    int64_t sl = bfq_slice_idle_;
    if (bfqq_seeky(bfqq) && bfqq->wr_coeff == 1 && !bfq_asymmetric_scenario(bfqq))
        sl = std::min(sl, BFQ_MIN_TT);
    else if (bfqq->wr_coeff > 1)
        sl = std::max(sl, 20 * BFQ_NSEC_PER_MSEC);
    last_idling_start_ = now_ns();
    last_idling_start_jiffies_ = jiffies();
    idle_slice_timer_.arm(now_ + sim::Duration::ns(sl));
    idle_timer_cpu_ = this_cpu();  // hrtimer_start(): the hrtimer fires on the arming CPU
    explain_(now_, "bfq{}{} idling starts: {} us for its next request", bfqq->pid, bfqq->sync ? 'S' : 'A', sl / 1000);
    ++stats_.idle_slices;
}

// bfq_idle_slice_timer_body(): the queue did not get a request in time (or its budget
// timed out); expire it and let the next queue be served.
void Bfq::bfq_idle_slice_timer() {
    now_ = eq_.now();
    explain_.set_cpu(idle_timer_cpu_);
    BfqQueue* bfqq = in_service_queue_;
    if (!bfqq)
        return;
    ++stats_.idle_timer_fired;
    bfqq->wait_request = false;
    explain_(now_, "bfq{}{} idling ends: no request in time", bfqq->pid, bfqq->sync ? 'S' : 'A');
    if (bfq_bfqq_budget_timeout(bfqq))
        bfq_bfqq_expire(bfqq, true, BFQQE_BUDGET_TIMEOUT);
    else if (bfqq->queued[0] == 0 && bfqq->queued[1] == 0)
        bfq_bfqq_expire(bfqq, true, BFQQE_TOO_IDLE);
    // (A request may have arrived without ending the idling: just dispatch.)
    bfq_schedule_dispatch();
}

// bfq_schedule_dispatch() → blk_mq_run_hw_queues(q, async). bfq dispatches queue-wide
// and sets QUEUE_FLAG_SQ_SCHED: the core runs the hctx of the CPU this runs on (the
// completing CPU, or the one that armed the idle timer), which serves every request.
void Bfq::bfq_schedule_dispatch() {
    if (queued_ != 0 || !dispatch_.empty())
        run_hw_queues_sq(this_cpu(), now_);
}

// --- dispatch -------------------------------------------------------------------------------

// bfq_select_queue(): keep the in-service queue while it has requests and budget, or while
// idling for it; else expire it with the reason and take the next one.
BfqQueue* Bfq::bfq_select_queue() {
    BfqQueue* bfqq = in_service_queue_;
    BfqqExpiration reason = BFQQE_BUDGET_TIMEOUT;
    if (bfqq) {
        // Not for a budget timeout if the queue may be about to enjoy idling.
        if (bfq_may_expire_for_budg_timeout(bfqq) && !bfq_bfqq_must_idle(bfqq)) {
            bfq_bfqq_expire(bfqq, false, reason);
            bfqq = nullptr;
        }
    }
    for (;;) {
        if (!bfqq) {
            bfqq = bfq_get_next_queue();
            bfq_set_in_service_queue_fields(bfqq);
            if (!bfqq)
                return nullptr;
        }
        // check_queue:
        if (const Request* next_rq = bfqq->next_rq) {
            if (bfq_serv_to_charge(next_rq, bfqq) > bfq_bfqq_budget_left(bfqq)) {
                // The next budget will fit this request, even one from the expired FIFO.
                reason = BFQQE_BUDGET_EXHAUSTED;
            } else {
                // The idle timer may be pending if a small request did not end the idling.
                if (bfqq->wait_request) {
                    bfqq->wait_request = false;
                    idle_slice_timer_.cancel();
                    explain_(now_, "bfq{}{} idling ends: its next request, sector {}", bfqq->pid, bfqq->sync ? 'S' : 'A',
                             next_rq->sector);
                }
                return bfqq;
            }
        } else if (bfqq->wait_request || (bfqq->dispatched != 0 && bfq_better_to_idle(bfqq))) {
            // Idling, or waiting for in-flight requests after which it may idle: keep the
            // queue, and maybe dispatch from another one meanwhile (bfq_inject.cc).
            return bfq_select_queue_while_idling(bfqq);
        } else {
            reason = BFQQE_NO_MORE_REQUESTS;
        }
        bfq_bfqq_expire(bfqq, false, reason);
        bfqq = nullptr;
    }
}

// bfq_dispatch_remove() + bfq_dispatch_rq_from_bfqq().
void Bfq::bfq_dispatch_remove(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    // Counted before the removal, so that an emptied in-service queue sees it in flight.
    bfqq->dispatched++;
    bfq_update_peak_rate(rq);
    bfq_remove_request(rq);
}

Request* Bfq::bfq_dispatch_rq_from_bfqq(BfqQueue* bfqq) {
    Request* rq = bfqq->next_rq;
    bfq_bfqq_served(bfqq, bfq_serv_to_charge(rq, bfqq));
    if (bfqq == in_service_queue_ && wait_dispatch_) {
        wait_dispatch_ = false;
        waited_rq_ = rq;  // its total service time feeds the inject limit (bfq_inject.cc)
    }
    bfqq->served_sectors += rq->nr_sectors;
    bfq_dispatch_remove(rq);
    if (bfqq != in_service_queue_)
        return rq;
    // Ends weight raising at once if due, so the queue leaves as if never raised.
    bfq_update_wr_data(bfqq);
    // An idle-class queue gives way as soon as others wait.
    if (busy_queues() > 1 && bfqq->ioprio_class == 3)
        bfq_bfqq_expire(bfqq, false, BFQQE_BUDGET_EXHAUSTED);
    return rq;
}

// bfq_dispatch_request() / __bfq_dispatch_request(): requeued requests first, then the
// selected queue's next request; with strict_guarantees one request in the device at most.
Request* Bfq::dispatch_request(sim::Time now) {
    now_ = now;
    Request* rq = nullptr;
    if (!dispatch_.empty()) {
        rq = &dispatch_.front();
        dispatch_.pop_front();
        RQ_BFQQ(rq)->dispatched++;
    } else {
        if (busy_queues() == 0)
            return nullptr;
        if (t_.strict_guarantees && tot_rq_in_driver_ > 0)
            return nullptr;
        BfqQueue* bfqq = bfq_select_queue();
        if (!bfqq)
            return nullptr;
        rq = bfq_dispatch_rq_from_bfqq(bfqq);
    }
    ++tot_rq_in_driver_;
    rq->elv_counted = true;  // RQF_STARTED: the finish hook accounts the completion
    ++stats_.dispatched;
    return rq;
}

// --- completion -----------------------------------------------------------------------------

// bfq_update_hw_tag(): does the device queue commands? Decided over 32 valid samples
// (enough requests around for more than 3 to be in flight) by whether more than 3 were.
void Bfq::bfq_update_hw_tag() {
    const BfqQueue* bfqq = in_service_queue_;
    max_rq_in_driver_ = std::max(max_rq_in_driver_, tot_rq_in_driver_);
    if (hw_tag_ == 1)
        return;
    if (tot_rq_in_driver_ + queued_ <= BFQ_HW_QUEUE_THRESHOLD)
        return;
    // An in-service queue that can idle may not give the device enough requests.
    if (bfqq && bfqq->has_short_ttime &&
        static_cast<uint32_t>(bfqq->dispatched + bfqq->queued[0] + bfqq->queued[1]) < BFQ_HW_QUEUE_THRESHOLD &&
        tot_rq_in_driver_ < BFQ_HW_QUEUE_THRESHOLD)
        return;
    if (hw_tag_samples_++ < BFQ_HW_QUEUE_SAMPLES)
        return;
    hw_tag_ = max_rq_in_driver_ > BFQ_HW_QUEUE_THRESHOLD ? 1 : 0;
    max_rq_in_driver_ = 0;
    hw_tag_samples_ = 0;
}

// bfq_completed_request(): think-time and peak-rate bookkeeping; then the in-service queue
// may start idling (the idle timer), or expire for its budget timeout or for having no
// more requests.
void Bfq::bfq_completed_request(BfqQueue* bfqq) {
    bfq_update_hw_tag();
    --tot_rq_in_driver_;
    bfqq->dispatched--;
    if (!bfqq->dispatched && !bfqq->busy) {
        bfqq->budget_timeout = jiffies();  // since when empty and idle (weight raising)
        bfq_weights_tree_remove(bfqq);
    }
    const int64_t now = now_ns();
    bfqq->ttime.last_end_request = now;
    // A request that took long at a very low implied rate (< 1 M sectors/s) closes the
    // peak-rate observation interval.
    const auto delta_us = static_cast<uint32_t>(std::max<int64_t>(now - last_completion_, 0) / 1000);
    if (delta_us > BFQ_MIN_TT / 1000 &&
        (uint64_t{last_rq_max_size_} << 16) / delta_us < (uint64_t{1} << (16 - 10)))
        bfq_update_rate_reset(nullptr);
    last_completion_ = now;
    // A candidate waker (bfq_check_waker), unless shared: a shared queue's I/O comes at a
    // high rate and would pass for the waker of queues it does not wake, then steal their
    // bandwidth by injection.
    last_completed_rq_bfqq_ = bfqq->coop ? nullptr : bfqq;

    if (bfqq->softrt_update && bfqq->dispatched == 0 && bfqq->sort_list.empty() && bfqq->wr_coeff != BFQ_WR_COEFF)
        bfqq->soft_rt_next_start = bfq_bfqq_softrt_next_start(bfqq);

    if (in_service_queue_ == bfqq) {
        if (bfq_bfqq_must_idle(bfqq)) {
            if (bfqq->dispatched == 0)
                bfq_arm_slice_timer();
            // Not expired even in budget timeout: it must get the chance to idle.
            return;
        }
        if (bfq_may_expire_for_budg_timeout(bfqq))
            bfq_bfqq_expire(bfqq, false, BFQQE_BUDGET_TIMEOUT);
        else if (bfqq->sort_list.empty() && (bfqq->dispatched == 0 || !bfq_better_to_idle(bfqq)))
            bfq_bfqq_expire(bfqq, false, BFQQE_NO_MORE_REQUESTS);
    }
    if (!tot_rq_in_driver_)
        bfq_schedule_dispatch();
}

// bfq_finish_requeue_request(): the request is done with bfq, after completing or when the
// driver hands it back (requeue); either way it counts as completed for bfq.
void Bfq::bfq_finish_requeue_request(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    if (!bfqq)
        return;  // never inserted (absorbed by an insert merge), or already finished
    if (rq->elv_counted) {
        if (rq == waited_rq_)
            bfq_update_inject_limit(bfqq);
        bfq_completed_request(bfqq);
    }
    --bfqq->entity.allocated;  // bfqq_request_freed()
    --RQ_BIC(rq)->requests;
    rq->elv_priv = nullptr;
    rq->elv_counted = false;
}

void Bfq::finish_request(Request* rq, sim::Time now) {
    now_ = now;
    if (rq->elv_counted)
        ++stats_.completed;
    bfq_finish_requeue_request(rq);
}

// ops.requeue_request: the core will insert the request again at head.
void Bfq::requeue_request(Request* rq) {
    now_ = eq_.now();
    if (rq->elv_counted)
        ++stats_.requeued;
    bfq_finish_requeue_request(rq);
}

// --- depth limits ---------------------------------------------------------------------------

// bfq_update_depths() for an sbitmap of nr_requests bits (sbitmap_calculate_shift: words
// of 1 << shift bits, 4 words at least when possible), and the shallow depth summed over
// the words as sbitmap_get_shallow() caps each word.
uint32_t Bfq::bfq_shallow_depth(uint32_t nr_requests, bool wr_busy, bool op_is_sync) {
    uint32_t shift = 6;  // ilog2(BITS_PER_LONG)
    if (nr_requests >= 4)
        while ((4u << shift) > nr_requests)
            --shift;
    const uint32_t word = 1u << shift;
    uint32_t per_word;
    if (!wr_busy)
        per_word = op_is_sync ? std::max((word * 3) >> 2, 1u) : std::max(word >> 1, 1u);
    else
        per_word = op_is_sync ? std::max((word * 6) >> 4, 1u) : std::max((word * 3) >> 4, 1u);
    uint32_t depth = 0;
    for (uint32_t left = nr_requests; left > 0; left -= std::min(left, word))
        depth += std::min({per_word, word, left});
    return depth;
}

// bfq_limit_depth(): sync reads have the full depth; everything else a share of it, smaller
// while some queue is weight-raised. blksim's writes are O_DIRECT, hence sync.
uint32_t Bfq::limit_depth(bool is_sync_read, uint32_t nr_requests) const {
    if (is_sync_read)
        return nr_requests;
    if (depth_nr_requests_ != nr_requests) {
        for (int wr = 0; wr < 2; ++wr)
            for (int sync = 0; sync < 2; ++sync)
                depth_limits_[wr][sync] = bfq_shallow_depth(nr_requests, wr != 0, sync != 0);
        depth_nr_requests_ = nr_requests;
    }
    constexpr int op_is_sync = 1;
    return depth_limits_[wr_busy_queues_ > 0 ? 1 : 0][op_is_sync];
}

// --- the end-of-run check and the report ----------------------------------------------------

// Between any two events: each queue's lists hold what its counters say, the queued and
// in-driver totals are the queues' sums, and a queue with requests is busy.
std::string Bfq::audit() const {
    uint64_t queued = 0, dispatched = 0;
    for (const auto& q : queues_) {
        const size_t n = q->sort_list.size();
        if (n != static_cast<size_t>(q->queued[1]) || n != q->fifo.size() || (n > 0 && !q->busy) ||
            (n > 0) != (q->next_rq != nullptr))
            return fmt::format("bfq queue of pid {}: {} requests sorted, {} in its FIFO, {} counted, busy {}, next_rq {}",
                               q->pid, n, q->fifo.size(), q->queued[1], q->busy, q->next_rq != nullptr);
        queued += n;
        dispatched += static_cast<uint64_t>(q->dispatched);
    }
    if (queued != queued_ || dispatched != tot_rq_in_driver_)
        return fmt::format("bfq: queues hold {} requests (counted {}), {} in the driver (counted {})", queued,
                           queued_, dispatched, tot_rq_in_driver_);
    return {};
}

std::string Bfq::check_idle() const {
    if (tot_rq_in_driver_ != 0 || stats_.dispatched != stats_.completed + stats_.requeued)
        return fmt::format("bfq: {} requests in the driver, {} dispatched, {} completed, {} requeued (rule: "
                           "every request bfq dispatches comes back to it completed or requeued)",
                           tot_rq_in_driver_, stats_.dispatched, stats_.completed, stats_.requeued);
    uint64_t wsum[BFQ_IOPRIO_CLASSES] = {0, 0, 0};
    uint32_t busy[BFQ_IOPRIO_CLASSES] = {0, 0, 0};
    uint32_t counted = 0;
    for (const auto& q : queues_) {
        if (q->dispatched != 0 || q->queued[0] + q->queued[1] != 0 || !q->sort_list.empty() || !q->fifo.empty() ||
            q->entity.allocated != 0)
            return fmt::format("bfq queue of pid {}: {} dispatched, {} queued, {} allocated (rule: an idle "
                               "scheduler's queues hold no request)",
                               q->pid, q->dispatched, q->queued[1], q->entity.allocated);
        if (q->entity.on_st_or_in_serv)
            wsum[q->ioprio_class - 1] += static_cast<uint64_t>(q->entity.weight);
        if (q->busy)
            ++busy[q->ioprio_class - 1];
        if (q->weight_counter)
            ++counted;
    }
    uint32_t in_tree = 0;
    for (const WeightCounter& c : queue_weights_tree_)
        in_tree += c.num_active;
    for (uint32_t c = 0; c < BFQ_IOPRIO_CLASSES; ++c)
        if (wsum[c] != st_[c].wsum || busy[c] != busy_queues_[c])
            return fmt::format("bfq class {}: weight sum {} (queues say {}), {} busy queues (queues say {}) "
                               "(rule: a class's sums are its queues')",
                               c, st_[c].wsum, wsum[c], busy_queues_[c], busy[c]);
    if (in_tree != counted)
        return fmt::format("bfq: the weights tree counts {} queues, {} queues say they are in it (rule: a "
                           "weight counter counts the queues that hold it)", in_tree, counted);
    if (idle_slice_timer_.armed() && (!in_service_queue_ || !in_service_queue_->wait_request))
        return "bfq: the idle slice timer is armed with no queue waiting for a request (rule: the idle timer "
               "runs only while the in-service queue idles)";
    return {};
}

void Bfq::report(result::DeviceReport& r) const {
    r.model = "bfq";
    r.add("queues", static_cast<double>(queues_.size()));
    r.add("max_budget", max_budget_);
    // peak_rate is sectors/us << 16: MB/s = peak_rate * 512 / 65536.
    r.add("peak_rate_mbps", static_cast<double>(peak_rate_) * 512.0 / 65536.0, 1);
    r.add("hw_tag", hw_tag_);
    r.add("idle_slices", static_cast<double>(stats_.idle_slices));
    r.add("idle_timer_fired", static_cast<double>(stats_.idle_timer_fired));
    r.new_line();
    for (uint32_t i = 0; i < BFQQE_NR; ++i)
        r.add(std::string("expired_") + kExpirationNames[i], static_cast<double>(stats_.expirations[i]));
    r.new_line();
    r.add("wr_interactive", static_cast<double>(stats_.wr_interactive));
    r.add("wr_soft_rt", static_cast<double>(stats_.wr_soft_rt));
    r.add("peak_rate_updates", static_cast<double>(stats_.peak_rate_updates));
    if (stats_.queue_merges > 0) {  // only where cooperating processes were found
        r.add("queue_merges", static_cast<double>(stats_.queue_merges));
        r.add("queue_splits", static_cast<double>(stats_.queue_splits));
    }
    // The first queues one per line: pid, class, weight, service and slots, each key named
    // after its queue (q0_, q1_ ...) as the JSON object's keys must differ.
    constexpr size_t kMaxListed = 16;
    for (size_t i = 0; i < queues_.size() && i < kMaxListed; ++i) {
        const BfqQueue& q = *queues_[i];
        const std::string k = fmt::format("q{}_", i);
        r.new_line();
        r.add(k + "pid", q.pid);
        r.add(k + "class", q.ioprio_class);
        r.add(k + "weight", q.entity.orig_weight);
        r.add(k + "served_sectors", static_cast<double>(q.served_sectors));
        r.add(k + "slots", static_cast<double>(q.slots));
    }
}

}  // namespace blksim::sched
