// B-WF2Q+, bfq's scheduling engine (block/bfq-wf2q.c), for one root group: every entity is a
// queue, so the kernel's walks up the hierarchy (for_each_entity) run once.
//
// The kernel keeps each service tree's active entities in one rb-tree ordered by finish
// time, augmented with the smallest start time of each subtree, so that "the eligible
// entity (start <= vtime) with the smallest finish" is found in O(log N). blksim keeps the
// same set as two boost::intrusive trees: the eligible entities ordered by finish, and the
// ineligible ones ordered by start (then finish). The virtual time only grows while the
// active set is not empty, so an entity crosses from the second tree to the first at most
// once per activation (bfq_update_eligible, O(log N) each), and the lookup is the first
// element of one tree:
//   - some entity eligible: the kernel's answer is the eligible one with the smallest
//     finish, eligible.begin();
//   - none eligible: the kernel's virtual time jumps to the smallest start
//     (bfq_calc_vtime_jump), which makes exactly the entities with that start eligible; the
//     smallest finish among them is ineligible.begin().
// Ties between equal timestamps go to the entity inserted first in both structures.
#include "models/sched/bfq.h"

#include <algorithm>

namespace blksim::sched {

namespace {

// Shift for timestamp calculations: limits the service one delta can represent, the total
// weight and the period of virtual-time wraparound.
constexpr uint32_t WFQ_SERVICE_SHIFT = 22;
constexpr int BFQ_MIN_WEIGHT = 1, BFQ_MAX_WEIGHT = 1000;

}  // namespace

// bfq_delta(): service mapped into the virtual time domain.
uint64_t Bfq::bfq_delta(uint64_t service, uint64_t weight) {
    // wsum is never 0 while something is served: the in-service entity counts in it.
    return weight == 0 ? 0 : (service << WFQ_SERVICE_SHIFT) / weight;
}

void Bfq::bfq_calc_finish(BfqEntity& e, uint64_t service) { e.finish = e.start + bfq_delta(service, e.weight); }

// bfq_active_insert(): into the active set, on the side its start time puts it.
void Bfq::bfq_active_insert(ServiceTree& st, BfqEntity& e) {
    if (!bfq_gt(e.start, st.vtime)) {
        st.eligible.insert(e);
        e.tree = BfqEntity::Tree::ACTIVE_ELIGIBLE;
    } else {
        st.ineligible.insert(e);
        e.tree = BfqEntity::Tree::ACTIVE_INELIGIBLE;
    }
    active_list_.push_front(*e.bfqq);  // list_add(&bfqq->bfqq_list, &bfqd->active_list)
}

void Bfq::bfq_active_extract(ServiceTree& st, BfqEntity& e) {
    if (e.tree == BfqEntity::Tree::ACTIVE_ELIGIBLE)
        st.eligible.erase(st.eligible.iterator_to(e));
    else if (e.tree == BfqEntity::Tree::ACTIVE_INELIGIBLE)
        st.ineligible.erase(st.ineligible.iterator_to(e));
    if (e.bfqq->bfqq_list.is_linked())
        active_list_.erase(active_list_.iterator_to(*e.bfqq));
    e.tree = BfqEntity::Tree::NONE;
}

void Bfq::bfq_idle_insert(ServiceTree& st, BfqEntity& e) {
    st.idle.insert(e);
    e.tree = BfqEntity::Tree::IDLE;
}

void Bfq::bfq_idle_extract(ServiceTree& st, BfqEntity& e) {
    st.idle.erase(st.idle.iterator_to(e));
    e.tree = BfqEntity::Tree::NONE;
}

// The virtual time grew: entities whose start it has reached become eligible.
void Bfq::bfq_update_eligible(ServiceTree& st) {
    while (!st.ineligible.empty() && !bfq_gt(st.ineligible.begin()->start, st.vtime)) {
        BfqEntity& e = *st.ineligible.begin();
        st.ineligible.erase(st.ineligible.begin());
        st.eligible.insert(e);
        e.tree = BfqEntity::Tree::ACTIVE_ELIGIBLE;
    }
}

// bfq_forget_entity(): no longer on any tree; its weight leaves the sum.
void Bfq::bfq_forget_entity(ServiceTree& st, BfqEntity& e) {
    e.on_st_or_in_serv = false;
    st.wsum -= static_cast<uint64_t>(e.weight);
}

void Bfq::bfq_put_idle_entity(ServiceTree& st, BfqEntity& e) {
    bfq_idle_extract(st, e);
    bfq_forget_entity(st, e);
}

// bfq_forget_idle(): drop one idle entity whose finish the virtual time has passed (one per
// call keeps the cost O(log N)); with nothing active, forget the whole idle tree by moving
// the virtual time to its last finish. (That assignment can lower the virtual time, as in
// the kernel; nothing is active then, so no eligibility changes.)
void Bfq::bfq_forget_idle(ServiceTree& st) {
    if (st.idle.empty())
        return;
    BfqEntity& last_idle = *st.idle.rbegin();
    if (st.active_empty() && !bfq_gt(last_idle.finish, st.vtime))
        st.vtime = last_idle.finish;
    BfqEntity& first_idle = *st.idle.begin();
    if (!bfq_gt(first_idle.finish, st.vtime))
        bfq_put_idle_entity(st, first_idle);
}

void Bfq::bfq_update_vtime(ServiceTree& st, uint64_t new_value) {
    if (new_value > st.vtime) {
        st.vtime = new_value;
        bfq_update_eligible(st);
        bfq_forget_idle(st);
    }
}

// __bfq_entity_update_weight_prio(): apply a pending weight / class change (ioprio, weight
// raising). The class changes only when the entity is on no tree (update_class_too).
Bfq::ServiceTree& Bfq::bfq_entity_update_weight_prio(ServiceTree& old_st, BfqEntity& e, bool update_class_too) {
    if (!e.prio_changed)
        return old_st;
    BfqQueue* bfqq = e.bfqq;
    old_st.wsum -= static_cast<uint64_t>(e.weight);
    if (e.new_weight != e.orig_weight)
        e.orig_weight = std::clamp(e.new_weight, BFQ_MIN_WEIGHT, BFQ_MAX_WEIGHT);
    if (update_class_too) {
        bfqq->ioprio_class = bfqq->new_ioprio_class;
        bfqq->ioprio = bfqq->new_ioprio;
    }
    // Reset prio_changed only if the class change is not pending any longer.
    if (bfqq->ioprio_class == bfqq->new_ioprio_class)
        e.prio_changed = false;

    ServiceTree& new_st = bfq_entity_service_tree(e);
    const int prev_weight = e.weight;
    const int new_weight = e.orig_weight * static_cast<int>(bfqq->wr_coeff);
    // The weights tree counts only queues that are not weight-raised.
    if (prev_weight != new_weight)
        bfq_weights_tree_remove(bfqq);
    e.weight = new_weight;
    if (prev_weight != new_weight && bfqq->wr_coeff == 1)
        bfq_weights_tree_add(bfqq);
    new_st.wsum += static_cast<uint64_t>(e.weight);
    if (&new_st != &old_st)
        e.start = new_st.vtime;
    return new_st;
}

// bfq_update_fin_time_enqueue(): finish from the budget, then into the active set. A queue
// whose timestamps were back-shifted (it comes back soon after expiring empty) and lies
// behind the virtual time is pushed up to it, less so when weight-raised, so that it cannot
// monopolise the device with stale low timestamps.
void Bfq::bfq_update_fin_time_enqueue(BfqEntity& e, ServiceTree& st0, bool backshifted) {
    ServiceTree& st = bfq_entity_update_weight_prio(st0, e, true);
    bfq_calc_finish(e, static_cast<uint64_t>(e.budget));
    if (backshifted && bfq_gt(st.vtime, e.finish)) {
        const uint64_t delta = (st.vtime - e.finish) / e.bfqq->wr_coeff;
        e.start += delta;
        e.finish += delta;
    }
    bfq_active_insert(st, e);
}

// __bfq_activate_entity(): a true activation. A queue still on the idle tree keeps its
// finish as its new start (it was served ahead of its share); otherwise it starts at the
// virtual time, or, when it was waiting for a request (non_blocking_wait_rq) and lies
// behind, at its old finish (timestamp back-shifting).
void Bfq::bfq_activate_entity(BfqEntity& e, bool non_blocking_wait_rq) {
    ServiceTree& st = bfq_entity_service_tree(e);
    bool backshifted = false;
    uint64_t min_vstart = st.vtime;
    if (non_blocking_wait_rq && bfq_gt(st.vtime, e.finish)) {
        backshifted = true;
        min_vstart = e.finish;
    }
    if (e.tree == BfqEntity::Tree::IDLE) {
        bfq_idle_extract(st, e);
        e.start = bfq_gt(min_vstart, e.finish) ? min_vstart : e.finish;
    } else {
        e.start = min_vstart;
        st.wsum += static_cast<uint64_t>(e.weight);
        e.on_st_or_in_serv = true;
    }
    bfq_update_fin_time_enqueue(e, st, backshifted);
}

// __bfq_requeue_entity(): the in-service entity leaving service starts again where its
// service took it; an active one is repositioned after a budget change.
void Bfq::bfq_requeue_entity(BfqEntity& e) {
    ServiceTree& st = bfq_entity_service_tree(e);
    if (&e == in_service_entity_) {
        bfq_calc_finish(e, static_cast<uint64_t>(e.service));
        e.start = e.finish;
    }
    bfq_active_extract(st, e);
    bfq_update_fin_time_enqueue(e, st, false);
}

void Bfq::bfq_activate_requeue_entity(BfqEntity& e, bool non_blocking_wait_rq, bool /*requeue*/, bool expiration) {
    const bool active =
        e.tree == BfqEntity::Tree::ACTIVE_ELIGIBLE || e.tree == BfqEntity::Tree::ACTIVE_INELIGIBLE;
    if (in_service_entity_ == &e || active)
        bfq_requeue_entity(e);
    else
        bfq_activate_entity(e, non_blocking_wait_rq);
    bfq_update_next_in_service(&e, expiration);
}

// __bfq_deactivate_entity(): off its tree; into the idle tree if it was served ahead of its
// share (finish beyond the virtual time) so that it cannot come back with fresh timestamps.
bool Bfq::bfq_deactivate_entity_once(BfqEntity& e, bool ins_into_idle_tree) {
    if (!e.on_st_or_in_serv)
        return false;
    ServiceTree& st = bfq_entity_service_tree(e);
    const bool is_in_service = &e == in_service_entity_;
    if (is_in_service) {
        bfq_calc_finish(e, static_cast<uint64_t>(e.service));
        in_service_entity_ = nullptr;
    } else {
        // Nobody will reset the service of an entity not in service on expiration.
        e.service = 0;
    }
    if (e.tree == BfqEntity::Tree::ACTIVE_ELIGIBLE || e.tree == BfqEntity::Tree::ACTIVE_INELIGIBLE)
        bfq_active_extract(st, e);
    else if (!is_in_service && e.tree == BfqEntity::Tree::IDLE)
        bfq_idle_extract(st, e);

    if (!ins_into_idle_tree || !bfq_gt(e.finish, st.vtime))
        bfq_forget_entity(st, e);
    else
        bfq_idle_insert(st, e);
    return true;
}

void Bfq::bfq_deactivate_entity(BfqEntity& e, bool ins_into_idle_tree, bool expiration) {
    if (!bfq_deactivate_entity_once(e, ins_into_idle_tree))
        return;
    if (next_in_service_ == &e)
        bfq_update_next_in_service(nullptr, expiration);
}

// bfq_lookup_next_entity(): the next entity of the highest class with an active one, or
// the IDLE class's when it has waited BFQ_CL_IDLE_TIMEOUT. With an entity in service the
// virtual time is not moved (it is the one being served, even if off the trees).
BfqEntity* Bfq::bfq_lookup_next_entity(bool expiration) {
    uint32_t class_idx = 0;
    const int64_t now_j = jiffies();
    if (now_j > bfq_class_idle_last_service_ + jif_.hz / 5) {  // time_is_before_jiffies(last + HZ/5)
        if (!st_[BFQ_IOPRIO_CLASSES - 1].active_empty())
            class_idx = BFQ_IOPRIO_CLASSES - 1;
        // About to be served if backlogged, or not yet backlogged.
        bfq_class_idle_last_service_ = now_j;
    }
    const bool in_service = in_service_entity_ != nullptr && !expiration;
    for (; class_idx < BFQ_IOPRIO_CLASSES; class_idx++) {
        ServiceTree& st = st_[class_idx];
        if (st.active_empty())
            continue;
        // __bfq_lookup_next_entity() with bfq_calc_vtime_jump().
        if (st.eligible.empty()) {
            BfqEntity& first = *st.ineligible.begin();
            if (in_service)
                return &first;  // eligible at the jumped virtual time, which is not stored
            bfq_update_vtime(st, first.start);
        }
        return &*st.eligible.begin();
    }
    return nullptr;
}

// bfq_update_next_in_service(): a changed entity that is eligible, of the same class and
// finishes before the current candidate replaces it without a lookup.
bool Bfq::bfq_update_next_in_service(BfqEntity* new_entity, bool expiration) {
    BfqEntity* next = next_in_service_;
    bool change_without_lookup = false;
    if (new_entity && new_entity != next_in_service_) {
        change_without_lookup = true;
        if (next) {
            const ServiceTree& st = st_[bfq_class_idx(*new_entity)];
            change_without_lookup = bfq_class_idx(*new_entity) == bfq_class_idx(*next) &&
                                    !bfq_gt(new_entity->start, st.vtime) && bfq_gt(next->finish, new_entity->finish);
        }
        if (change_without_lookup)
            next = new_entity;
    }
    if (!change_without_lookup)
        next = bfq_lookup_next_entity(expiration);
    const bool changed = next != next_in_service_;
    next_in_service_ = next;
    return changed;
}

// bfq_get_next_queue(): next_in_service goes into service and off its tree (a queue cannot
// be its own successor).
BfqQueue* Bfq::bfq_get_next_queue() {
    if (busy_queues() == 0 || next_in_service_ == nullptr)
        return nullptr;
    BfqEntity* e = next_in_service_;
    in_service_entity_ = e;
    e->service = 0;
    bfq_active_extract(bfq_entity_service_tree(*e), *e);
    bfq_update_next_in_service(nullptr, false);
    return e->bfqq;
}

// __bfq_bfqd_reset_in_service(): the last step of an expiration.
void Bfq::bfq_bfqd_reset_in_service() {
    in_service_queue_->wait_request = false;
    idle_slice_timer_.cancel();
    in_service_queue_ = nullptr;
    in_service_entity_ = nullptr;
}

// bfq_bfqq_served(): charge service; the class's virtual time advances by service / wsum.
void Bfq::bfq_bfqq_served(BfqQueue* bfqq, int served) {
    if (!bfqq->service_from_backlogged)
        bfqq->first_IO_time = jiffies();
    if (bfqq->wr_coeff > 1)
        bfqq->service_from_wr += static_cast<uint64_t>(served);
    bfqq->service_from_backlogged += static_cast<uint64_t>(served);
    BfqEntity& e = bfqq->entity;
    ServiceTree& st = bfq_entity_service_tree(e);
    e.service += served;
    st.vtime += bfq_delta(static_cast<uint64_t>(served), st.wsum);
    bfq_update_eligible(st);
    bfq_forget_idle(st);
}

// bfq_bfqq_charge_time(): a slow queue is charged the service it would have received at
// the peak rate during its slot (time fairness instead of service fairness): a slot as long
// as the budget timeout or longer costs the whole max_budget. The timeout is the module's
// bfq_timeout (HZ/8), not the queue's timeout_sync tunable, as bfq-wf2q.c has it.
void Bfq::bfq_bfqq_charge_time(BfqQueue* bfqq, int64_t time_ms) {
    BfqEntity& e = bfqq->entity;
    const int64_t timeout_ms = jif_.jiffies_to_msecs(jif_.hz / 8);
    const int64_t bounded_time_ms = std::clamp<int64_t>(time_ms, 0, timeout_ms);
    const int64_t serv_to_charge_for_time = int64_t{max_budget_} * bounded_time_ms / timeout_ms;
    const int64_t tot_serv_to_charge = std::max<int64_t>(serv_to_charge_for_time, e.service);
    // Increase budget to avoid inconsistencies.
    if (tot_serv_to_charge > e.budget)
        e.budget = static_cast<int>(tot_serv_to_charge);
    bfq_bfqq_served(bfqq, static_cast<int>(std::max<int64_t>(0, tot_serv_to_charge - e.service)));
}

void Bfq::bfq_activate_bfqq(BfqQueue* bfqq) {
    bfq_activate_requeue_entity(bfqq->entity, bfqq->non_blocking_wait_rq, false, false);
    bfqq->non_blocking_wait_rq = false;
}

void Bfq::bfq_requeue_bfqq(BfqQueue* bfqq, bool expiration) {
    bfq_activate_requeue_entity(bfqq->entity, false, bfqq == in_service_queue_, expiration);
}

// bfq_del_bfqq_busy(): the queue has no more requests (or expired empty).
void Bfq::bfq_del_bfqq_busy(BfqQueue* bfqq, bool expiration) {
    bfqq->busy = false;
    --busy_queues_[bfqq->ioprio_class - 1];
    if (bfqq->wr_coeff > 1)
        --wr_busy_queues_;
    bfq_deactivate_entity(bfqq->entity, true, expiration);
    if (!bfqq->dispatched)
        bfq_weights_tree_remove(bfqq);
}

// bfq_add_bfqq_busy(): an idle queue got a request.
void Bfq::bfq_add_bfqq_busy(BfqQueue* bfqq) {
    bfq_activate_bfqq(bfqq);
    bfqq->busy = true;
    ++busy_queues_[bfqq->ioprio_class - 1];
    if (!bfqq->dispatched && bfqq->wr_coeff == 1)
        bfq_weights_tree_add(bfqq);
    if (bfqq->wr_coeff > 1)
        ++wr_busy_queues_;
}

// bfq_weights_tree_add() / _remove(): one counter per distinct weight of the queues that
// are busy or have requests in the driver and are not weight-raised. A sorted vector
// (reserved: distinct weights are few) in place of the kernel's rb-tree of counters.
void Bfq::bfq_weights_tree_add(BfqQueue* bfqq) {
    if (bfqq->weight_counter)
        return;
    const int w = bfqq->entity.weight;
    auto it = std::lower_bound(queue_weights_tree_.begin(), queue_weights_tree_.end(), w,
                               [](const WeightCounter& c, int v) { return c.weight < v; });
    if (it == queue_weights_tree_.end() || it->weight != w)
        it = queue_weights_tree_.insert(it, WeightCounter{w, 0});
    ++it->num_active;
    bfqq->weight_counter = w;
}

void Bfq::bfq_weights_tree_remove(BfqQueue* bfqq) {
    if (!bfqq->weight_counter)
        return;
    auto it = std::lower_bound(queue_weights_tree_.begin(), queue_weights_tree_.end(), bfqq->weight_counter,
                               [](const WeightCounter& c, int v) { return c.weight < v; });
    if (--it->num_active == 0)
        queue_weights_tree_.erase(it);
    bfqq->weight_counter = 0;
}

// bfq_asymmetric_scenario(): false if every active queue must get the same share (all the
// same weight and class), or if bfqq must get no more than any other (it has the smallest
// weight). No groups: the cgroup sub-condition never holds.
bool Bfq::bfq_asymmetric_scenario(const BfqQueue* bfqq) const {
    const bool smallest_weight = bfqq && bfqq->weight_counter && !queue_weights_tree_.empty() &&
                                 queue_weights_tree_.front().weight == bfqq->weight_counter;
    const bool varied_queue_weights = !smallest_weight && queue_weights_tree_.size() >= 2;
    const uint32_t* b = busy_queues_;
    const bool multiple_classes_busy = (b[0] && b[1]) || (b[0] && b[2]) || (b[1] && b[2]);
    return varied_queue_weights || multiple_classes_busy;
}

}  // namespace blksim::sched
