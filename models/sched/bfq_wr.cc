// BFQ's estimates and heuristics (block/bfq-iosched.c): the device's peak rate, which
// auto-tunes max_budget and the length of weight raising; the idle-to-busy switch of a
// queue (budget, weight raising, preemption of the in-service queue); weight raising for
// interactive and soft real-time queues (low_latency); large-burst detection.
#include "models/sched/bfq.h"

#include <algorithm>

namespace blksim::sched {

using blkmq::Request;

namespace {

// Peak-rate sampling: at least 32 samples over at least 300 ms, aiming at 1 s intervals.
// Rates are sectors/us << BFQ_RATE_SHIFT.
constexpr uint32_t BFQ_RATE_MIN_SAMPLES = 32;
constexpr int64_t BFQ_RATE_MIN_INTERVAL = 300 * BFQ_NSEC_PER_MSEC;
constexpr int64_t BFQ_RATE_REF_INTERVAL = 1000 * BFQ_NSEC_PER_MSEC;
constexpr uint32_t BFQ_RATE_SHIFT = 16;
// Weight raising: interactive queues x30; soft real-time ones x30 x100 for 300 ms windows
// while they stay under 7000 sectors/s; interactive raising ends after 120000 sectors.
constexpr unsigned int BFQ_SOFTRT_WEIGHT_FACTOR = 100;
constexpr uint64_t bfq_wr_max_softrt_rate = 7000;
constexpr uint64_t max_service_from_wr = 120000;
constexpr uint32_t bfq_large_burst_thresh = 8;
constexpr int BFQ_DEFAULT_WEIGHT = 40;  // level 4: only default-weight queues are raised

}  // namespace

// --- peak rate ------------------------------------------------------------------------------

// bfq_reset_rate_computation(): a new observation interval starts with this dispatch, or
// (no request) at the next one.
void Bfq::bfq_reset_rate_computation(const Request* rq) {
    if (rq) {
        last_dispatch_ = first_dispatch_ = now_ns();
        peak_rate_samples_ = 1;
        sequential_samples_ = 0;
        tot_sectors_dispatched_ = last_rq_max_size_ = rq->nr_sectors;
    } else {
        peak_rate_samples_ = 0;
    }
}

// bfq_calc_max_budget(): the sectors served in timeout_sync at the peak rate.
int Bfq::bfq_calc_max_budget() const {
    return static_cast<int>((uint64_t{peak_rate_} * 1000 * static_cast<uint64_t>(jif_.jiffies_to_msecs(bfq_timeout_))) >>
                            BFQ_RATE_SHIFT);
}

// bfq_update_rate_reset(): with enough samples over a long enough interval, filter the
// measured dispatch rate into the peak rate (a low-pass filter weighted by how sequential
// and how long the interval was), unless the workload was mostly random and slower than the
// estimate, or the rate is absurd (> 20 sectors/us); then start a new interval.
void Bfq::bfq_update_rate_reset(const Request* rq) {
    if (peak_rate_samples_ >= BFQ_RATE_MIN_SAMPLES && delta_from_first_ >= BFQ_RATE_MIN_INTERVAL) {
        // A completion after the last dispatch extends the interval to it.
        delta_from_first_ = std::max(delta_from_first_, last_completion_ - first_dispatch_);
        const uint64_t rate =
            (tot_sectors_dispatched_ << BFQ_RATE_SHIFT) / static_cast<uint64_t>(std::max<int64_t>(delta_from_first_ / 1000, 1));
        const bool random_and_slower = sequential_samples_ < (3 * peak_rate_samples_) >> 2 && rate <= peak_rate_;
        if (!random_and_slower && rate <= (uint64_t{20} << BFQ_RATE_SHIFT)) {
            uint32_t weight = (9 * sequential_samples_) / peak_rate_samples_;
            weight = static_cast<uint32_t>(std::min<int64_t>(8, weight * delta_from_first_ / BFQ_RATE_REF_INTERVAL));
            const uint32_t divisor = 10 - weight;  // 10 for the least weight, 2 for the most
            peak_rate_ = peak_rate_ * (divisor - 1) / divisor + static_cast<uint32_t>(rate / divisor);
            peak_rate_ = std::max<uint32_t>(peak_rate_, 1);
            // update_thr_responsiveness_params()
            if (user_max_budget_ == 0)
                max_budget_ = bfq_calc_max_budget();
            ++stats_.peak_rate_updates;
        }
    }
    bfq_reset_rate_computation(rq);
}

// bfq_update_peak_rate(), on every dispatch: the dispatch rate over an observation interval
// converges to the service rate, the queues between scheduler and medium being bounded.
void Bfq::bfq_update_peak_rate(const Request* rq) {
    const int64_t now = now_ns();
    if (peak_rate_samples_ == 0) {  // first dispatch
        bfq_reset_rate_computation(rq);
    } else if (now - last_dispatch_ > 100 * BFQ_NSEC_PER_MSEC && tot_rq_in_driver_ == 0) {
        // Device idle for very long: close the interval at the last event, start anew.
        bfq_update_rate_reset(rq);
    } else {
        peak_rate_samples_++;
        if ((tot_rq_in_driver_ > 0 || now - last_completion_ < BFQ_MIN_TT) && !bfq_rq_seeky(last_position_, rq))
            sequential_samples_++;
        tot_sectors_dispatched_ += rq->nr_sectors;
        // Reset the max observed request size every 32 dispatches.
        if (peak_rate_samples_ % 32)
            last_rq_max_size_ = std::max(rq->nr_sectors, last_rq_max_size_);
        else
            last_rq_max_size_ = rq->nr_sectors;
        delta_from_first_ = now - first_dispatch_;
        if (delta_from_first_ >= BFQ_RATE_REF_INTERVAL)
            bfq_update_rate_reset(rq);
    }
    last_position_ = rq->end_sector();
    if (RQ_BFQQ(rq) == in_service_queue_)
        in_serv_last_pos_ = last_position_;
    last_dispatch_ = now;
}

// --- weight raising -------------------------------------------------------------------------

// bfq_wr_duration(): interactive raising lasts the time the reference application takes to
// start on a device of this peak rate, 3 to 25 s.
int64_t Bfq::bfq_wr_duration() const {
    const int64_t dur = rate_dur_prod_ / std::max<uint32_t>(peak_rate_, 1);
    return std::clamp(dur, jif_.msecs_to_jiffies(3000), jif_.msecs_to_jiffies(25000));
}

void Bfq::switch_back_to_interactive_wr(BfqQueue* bfqq) {
    bfqq->wr_coeff = BFQ_WR_COEFF;
    bfqq->wr_cur_max_time = bfq_wr_duration();
    bfqq->last_wr_start_finish = bfqq->wr_start_at_switch_to_srt;
}

// bfq_bfqq_softrt_next_start(): the earliest arrival of the next batch that still keeps the
// queue under bfq_wr_max_softrt_rate, and at least slice_idle (+ 4 jiffies) from now so that
// a greedy process, which issues its next request at once, does not qualify.
int64_t Bfq::bfq_bfqq_softrt_next_start(const BfqQueue* bfqq) const {
    const int64_t by_rate = bfqq->last_idle_bklogged +
                            static_cast<int64_t>(uint64_t(jif_.hz) * bfqq->service_from_backlogged / bfq_wr_max_softrt_rate);
    const int64_t by_idle = jiffies() + jif_.nsecs_to_jiffies(bfq_slice_idle_) + 4;
    return std::max({bfqq->soft_rt_next_start, by_rate, by_idle});
}

// bfq_bfqq_end_wr().
void Bfq::bfq_bfqq_end_wr(BfqQueue* bfqq) {
    // After interactive raising, the queue may be soft real-time at once.
    if (bfqq->wr_cur_max_time != bfq_wr_rt_max_time_)
        bfqq->soft_rt_next_start = jiffies();
    if (bfqq->busy)
        --wr_busy_queues_;
    bfqq->wr_coeff = 1;
    bfqq->wr_cur_max_time = 0;
    bfqq->last_wr_start_finish = jiffies();
    bfqq->entity.prio_changed = true;  // the weight changes at the next update
}

// bfq_end_wr(): low_latency switched off.
void Bfq::bfq_end_wr() {
    for (const auto& q : queues_)
        if (q->wr_coeff > 1)
            bfq_bfqq_end_wr(q.get());
}

// bfq_update_bfqq_wr_on_rq_arrival().
void Bfq::bfq_update_bfqq_wr_on_rq_arrival(BfqQueue* bfqq, unsigned int old_wr_coeff, bool wr_or_deserves_wr,
                                           bool interactive, bool in_burst, bool soft_rt) {
    if (old_wr_coeff == 1 && wr_or_deserves_wr) {
        // Start a weight-raising period.
        if (interactive) {
            bfqq->service_from_wr = 0;
            bfqq->wr_coeff = BFQ_WR_COEFF;
            bfqq->wr_cur_max_time = bfq_wr_duration();
            ++stats_.wr_interactive;
        } else {
            // No interactive raising in progress: none may be taken as still running when
            // this soft real-time one ends.
            bfqq->wr_start_at_switch_to_srt = bfq_smallest_from_now();
            bfqq->wr_coeff = BFQ_WR_COEFF * BFQ_SOFTRT_WEIGHT_FACTOR;
            bfqq->wr_cur_max_time = bfq_wr_rt_max_time_;
            ++stats_.wr_soft_rt;
        }
        // A budget close to the queue's backlog, not too small either.
        bfqq->entity.budget = std::min(bfqq->entity.budget, 2 * bfq_min_budget());
    } else if (old_wr_coeff > 1) {
        if (interactive) {  // update coefficient and duration
            bfqq->wr_coeff = BFQ_WR_COEFF;
            bfqq->wr_cur_max_time = bfq_wr_duration();
        } else if (in_burst) {
            bfqq->wr_coeff = 1;
        } else if (soft_rt) {
            // Still soft real-time: recharge the raising with the soft real-time duration.
            if (bfqq->wr_cur_max_time != bfq_wr_rt_max_time_) {
                bfqq->wr_start_at_switch_to_srt = bfqq->last_wr_start_finish;
                bfqq->wr_cur_max_time = bfq_wr_rt_max_time_;
                bfqq->wr_coeff = BFQ_WR_COEFF * BFQ_SOFTRT_WEIGHT_FACTOR;
                ++stats_.wr_soft_rt;
            }
            bfqq->last_wr_start_finish = jiffies();
        }
    }
}

// bfq_update_wr_data(), at each dispatch from the in-service queue: end raising when the
// period is over (soft real-time falling back to a still running interactive period), or
// after max_service_from_wr sectors of interactive raising; then apply the new weight now.
void Bfq::bfq_update_wr_data(BfqQueue* bfqq) {
    BfqEntity& e = bfqq->entity;
    if (bfqq->wr_coeff > 1) {
        const int64_t now_j = jiffies();
        if (bfqq->in_large_burst) {
            bfq_bfqq_end_wr(bfqq);
        } else if (now_j > bfqq->last_wr_start_finish + bfqq->wr_cur_max_time) {
            if (bfqq->wr_cur_max_time != bfq_wr_rt_max_time_ ||
                now_j > bfqq->wr_start_at_switch_to_srt + bfq_wr_duration()) {
                bfq_bfqq_end_wr(bfqq);
            } else {
                switch_back_to_interactive_wr(bfqq);
                e.prio_changed = true;
            }
        }
        if (bfqq->wr_coeff > 1 && bfqq->wr_cur_max_time != bfq_wr_rt_max_time_ &&
            bfqq->service_from_wr > max_service_from_wr)
            bfq_bfqq_end_wr(bfqq);
    }
    if ((e.weight > e.orig_weight) != (bfqq->wr_coeff > 1))
        bfq_entity_update_weight_prio(bfq_entity_service_tree(e), e, false);
}

// --- the idle-to-busy switch ----------------------------------------------------------------

// bfq_bfqq_update_budg_for_activation(): a queue that expired waiting for a request and got
// it in time goes on with what was left of its budget (and back-shifted timestamps), and
// asks to preempt the in-service queue; otherwise it gets a fresh budget.
bool Bfq::bfq_bfqq_update_budg_for_activation(BfqQueue* bfqq, bool arrived_in_time) {
    BfqEntity& e = bfqq->entity;
    if (bfqq->non_blocking_wait_rq && arrived_in_time && bfq_bfqq_budget_left(bfqq) > 0) {
        // non_blocking_wait_rq stays set: bfq_activate_bfqq() back-shifts, then clears it.
        e.budget = std::min(bfq_bfqq_budget_left(bfqq), bfqq->max_budget);
        e.service = 0;
        return true;
    }
    e.service = 0;
    e.budget = std::max(bfqq->max_budget, bfq_serv_to_charge(bfqq->next_rq, bfqq));
    bfqq->non_blocking_wait_rq = false;
    return false;
}

// bfq_bfqq_handle_idle_busy_switch(): a queue becomes busy. Decide whether it deserves
// weight raising (sync, default weight, not in a large burst, and idle for long —
// interactive — or issuing at a low rate after an idle pause — soft real-time), give it
// its budget, activate it, and expire the in-service queue if this one should preempt it.
void Bfq::bfq_bfqq_handle_idle_busy_switch(BfqQueue* bfqq, unsigned int old_wr_coeff, bool* interactive) {
    const int64_t now_j = jiffies();
    const bool idle_for_long_time = bfqq->dispatched == 0 && now_j > bfqq->budget_timeout + bfq_wr_min_idle_time_;
    const bool arrived_in_time = now_ns() <= bfqq->ttime.last_end_request + bfq_slice_idle_ * 3;
    const bool in_burst = bfqq->in_large_burst;
    const bool soft_rt = !(bfqq->seek_history == ~0u) && !in_burst && now_j > bfqq->soft_rt_next_start &&
                         bfqq->dispatched == 0 && bfqq->entity.new_weight == BFQ_DEFAULT_WEIGHT;
    *interactive = !in_burst && idle_for_long_time && bfqq->entity.new_weight == BFQ_DEFAULT_WEIGHT;
    // (Not merged with another process's queue: blksim has no queue merging.)
    const bool wr_or_deserves_wr =
        t_.low_latency && (bfqq->wr_coeff > 1 || (bfqq->sync && (*interactive || soft_rt)));
    const bool bfqq_wants_to_preempt = bfq_bfqq_update_budg_for_activation(bfqq, arrived_in_time);

    // Idle for much longer than an interactive queue: its burst's I/O is over.
    if (!bfqq->just_created && idle_for_long_time && now_j > bfqq->budget_timeout + jif_.msecs_to_jiffies(10000)) {
        if (bfqq->in_burst_list) {
            burst_list_.erase(std::find(burst_list_.begin(), burst_list_.end(), bfqq));
            bfqq->in_burst_list = false;
        }
        bfqq->in_large_burst = false;
    }
    bfqq->just_created = false;

    if (t_.low_latency && now_j > bfqq->split_time + bfq_wr_min_idle_time_) {
        bfq_update_bfqq_wr_on_rq_arrival(bfqq, old_wr_coeff, wr_or_deserves_wr, *interactive, in_burst, soft_rt);
        if (old_wr_coeff != bfqq->wr_coeff)
            bfqq->entity.prio_changed = true;
    }
    bfqq->last_idle_bklogged = now_j;
    bfqq->service_from_backlogged = 0;
    bfqq->softrt_update = false;

    bfq_add_bfqq_busy(bfqq);

    // Preempt the in-service queue if bfqq must recover a service hole (and is at least as
    // time-critical), is of a higher class or weight, or if idling for the in-service queue
    // is no longer worth it; and only if bfqq may come next.
    BfqQueue* in_serv = in_service_queue_;
    if (in_serv) {
        // bfq_bfqq_higher_class_or_weight() (one group: the weights compare whatever the
        // classes; the class order decides the next queue anyway).
        const bool higher = bfqq->ioprio_class < in_serv->ioprio_class || bfqq->entity.weight > in_serv->entity.weight;
        if (((bfqq_wants_to_preempt && bfqq->wr_coeff >= in_serv->wr_coeff) || higher ||
             !bfq_better_to_idle(in_serv)) &&
            next_queue_may_preempt())
            bfq_bfqq_expire(in_serv, false, BFQQE_PREEMPTED);
    }
}

// --- large bursts ---------------------------------------------------------------------------

// bfq_reset_burst_list(): a new possible burst starts with bfqq, if no queue is active.
void Bfq::bfq_reset_burst_list(BfqQueue* bfqq) {
    for (BfqQueue* q : burst_list_)
        q->in_burst_list = false;
    burst_list_.clear();
    if (busy_queues() == 0) {
        burst_list_.push_back(bfqq);
        bfqq->in_burst_list = true;
        burst_size_ = 1;
    } else {
        burst_size_ = 0;
    }
}

// bfq_add_to_burst(): at the threshold the burst is large: all its queues are marked (no
// weight raising for them) and the list is no longer needed.
void Bfq::bfq_add_to_burst(BfqQueue* bfqq) {
    ++burst_size_;
    if (burst_size_ == bfq_large_burst_thresh) {
        large_burst_ = true;
        for (BfqQueue* q : burst_list_) {
            q->in_large_burst = true;
            q->in_burst_list = false;
        }
        bfqq->in_large_burst = true;
        burst_list_.clear();
    } else {
        burst_list_.push_back(bfqq);
        bfqq->in_burst_list = true;
    }
}

// bfq_handle_burst(): queues created within bfq_burst_interval (180 ms) of the previous one
// form a burst; from the eighth on it is large (a service or an application spawning many
// I/O threads, which want throughput, not raising).
void Bfq::bfq_handle_burst(BfqQueue* bfqq) {
    const int64_t now_j = jiffies();
    if (bfqq->in_burst_list || bfqq->in_large_burst || bfqq->split_time + jif_.msecs_to_jiffies(10) >= now_j)
        return;
    if (now_j > last_ins_in_burst_ + bfq_burst_interval_) {
        large_burst_ = false;
        bfq_reset_burst_list(bfqq);
    } else if (large_burst_) {
        bfqq->in_large_burst = true;
    } else {
        bfq_add_to_burst(bfqq);
    }
    last_ins_in_burst_ = now_j;
}

}  // namespace blksim::sched
