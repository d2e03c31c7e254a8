#include "models/cpu/eevdf.h"

#include <algorithm>

namespace blksim::cpu {

CfsRq::CfsRq(int64_t slice, int64_t tick) : slice_(slice), lag_limit_(std::max(2 * slice, tick)) {
    queued_.reserve(8);
}

// avg_vruntime(): the mean vruntime of the queued tasks, rounded down as the kernel's
// div_s64 of a key sum made non-negative; an empty queue keeps the last one.
int64_t CfsRq::avg_vruntime() const {
    const auto n = static_cast<int64_t>(queued_.size());
    if (n == 0)
        return base_;
    int64_t avg = sum_;
    if (avg < 0)
        avg -= n - 1;
    return avg / n;
}

void CfsRq::add(SchedEntity& se) {
    queued_.push_back(&se);
    sum_ += se.vruntime;
}

// In the order tasks were queued, which is the tree's order among equal deadlines.
void CfsRq::remove(SchedEntity& se) {
    queued_.erase(std::find(queued_.begin(), queued_.end(), &se));
    sum_ -= se.vruntime;
    if (queued_.empty())
        base_ = se.vruntime;
    if (curr_ == &se)
        curr_ = nullptr;
}

// The lag a task leaving the queue keeps: what it is owed, at most two slices or a tick
// either way (update_entity_lag()).
void CfsRq::update_entity_lag(SchedEntity& se) {
    se.vlag = std::clamp(avg_vruntime() - se.vruntime, -lag_limit_, lag_limit_);
}

// place_entity(): a task joining the queue keeps its lag. Adding it moves the average
// towards it, so its vruntime is set that much further from V that the lag is what it was
// once it is in (PLACE_LAG; no lag in an empty queue); its deadline is a slice on, half a
// slice for a new task (PLACE_DEADLINE_INITIAL), or where it was relative to its vruntime
// when it moved here (PLACE_REL_DEADLINE).
void CfsRq::place_entity(SchedEntity& se) {
    int64_t lag = 0;
    const auto load = static_cast<int64_t>(queued_.size());
    if (load > 0 && se.vlag != 0)
        lag = se.vlag * (load + 1) / load;
    se.vruntime = avg_vruntime() - lag;
    if (se.rel_deadline) {
        se.deadline += se.vruntime;
        se.rel_deadline = false;
    } else {
        se.deadline = se.vruntime + (se.initial ? slice_ / 2 : slice_);
    }
    se.initial = false;
}

void CfsRq::enqueue(SchedEntity& se, int64_t now) {
    if (idle_at_ >= 0 && now > idle_at_)
        idle();
    idle_at_ = -1;
    if (se.rq != nullptr && se.rq != this) {
        if (se.delayed)
            se.rq->finish_delayed(se);
        else
            se.rq->migrate_out(se);
    }
    if (se.rq == this) {
        if (!se.delayed)
            return;  // still queued here
        // requeue_delayed_entity(): a task that came to be owed service while it was
        // delayed starts again from zero lag (DELAY_ZERO); one still behind keeps its place.
        update_entity_lag(se);
        if (se.vlag > 0) {
            remove(se);
            se.vlag = 0;
            place_entity(se);
            add(se);
        }
        se.delayed = false;
        return;
    }
    place_entity(se);
    add(se);
    se.rq = this;
}

// DELAY_DEQUEUE: a task going to sleep while it has had more than its share (not eligible)
// stays queued, and so keeps weighing on V, until it is picked or woken.
void CfsRq::dequeue_sleep(SchedEntity& se) {
    if (se.rq != this || se.delayed)
        return;
    if (!eligible(se)) {
        se.delayed = true;
        if (curr_ == &se)
            curr_ = nullptr;
        return;
    }
    update_entity_lag(se);
    remove(se);
    se.rq = nullptr;
}

void CfsRq::migrate_out(SchedEntity& se) {
    update_entity_lag(se);
    se.deadline -= se.vruntime;
    se.rel_deadline = true;
    remove(se);
    se.rq = nullptr;
}

void CfsRq::finish_delayed(SchedEntity& se) {
    update_entity_lag(se);
    remove(se);
    se.rq = nullptr;
    se.delayed = false;
    se.vlag = std::min<int64_t>(se.vlag, 0);
}

// __pick_eevdf() over the queued tasks but `skip` (the running one): the eligible task with
// the earliest deadline, the first queued among equals; nullptr if none is eligible.
SchedEntity* CfsRq::pick_eevdf(const SchedEntity* skip) const {
    SchedEntity* best = nullptr;
    for (SchedEntity* se : queued_)
        if (se != skip && eligible(*se) && (best == nullptr || se->deadline < best->deadline))
            best = se;
    return best;
}

void CfsRq::set_curr(SchedEntity& se, int64_t now) {
    if (curr_ == &se)
        return;
    if (se.rq != this || se.delayed)
        enqueue(se, now);
    idle_at_ = -1;
    // blksim's run queue has already chosen `se`; only the delayed tasks the pick would have
    // met first leave.
    pick_off_delayed();
    curr_ = &se;
    se.vprot = se.deadline;  // set_protect_slice(): every task has the base slice
    exec_start_ = now;
}

// update_curr() with update_deadline(): a task that reached its deadline gets a new one a
// slice on.
void CfsRq::update_curr(int64_t now) {
    if (curr_ == nullptr || now <= exec_start_)
        return;
    const int64_t delta = now - exec_start_;
    exec_start_ = now;
    curr_->vruntime += delta;
    sum_ += delta;
    if (curr_->vruntime >= curr_->deadline)
        curr_->deadline = curr_->vruntime + slice_;
}

// pick_next_entity(): a delayed task the pick chooses is dequeued, and the pick runs again,
// until it meets a runnable task or the queue is empty.
void CfsRq::pick_off_delayed() {
    for (SchedEntity* p = pick_eevdf(nullptr); p != nullptr && p->delayed; p = pick_eevdf(nullptr))
        finish_delayed(*p);
}

void CfsRq::idle() {
    curr_ = nullptr;
    idle_at_ = -1;
    pick_off_delayed();
}

// check_preempt_wakeup_fair() → __pick_eevdf(cfs_rq, protect): the running task is kept if it
// is eligible and protected (RUN_TO_PARITY: its vruntime has not reached the deadline it had
// when it was switched in); otherwise the woken task preempts if it is the eligible
// one with the earliest deadline, the running one counted while eligible.
bool CfsRq::wakeup_preempt(const SchedEntity& woken) const {
    const SchedEntity* curr = curr_;
    if (curr != nullptr && !eligible(*curr))
        curr = nullptr;
    if (curr != nullptr && curr->vruntime < curr->vprot)
        return false;
    const SchedEntity* best = pick_eevdf(curr_);
    if (best == nullptr || (curr != nullptr && curr->deadline < best->deadline))
        best = curr;
    return best == &woken;
}

}  // namespace blksim::cpu
