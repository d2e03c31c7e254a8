// BFQ queue merging: cooperating processes (block/bfq-iosched.c, bfq_setup_cooperator() and
// around). Processes doing interleaved I/O on the same area (a reader and a writer of the
// same file, the threads of one application) would each get a queue that looks seeky or
// empty most of the time; bfq redirects their requests into one shared queue, served in the
// best order for throughput and without idling between them:
//  - early merge: a new request or bio close (BFQQ_CLOSE_THR) to the in-service queue's last
//    position, or to another queue's next request (bfqd->rq_pos_tree), schedules a merge
//    (bfq_setup_merge) that bfq_merge_bfqqs() carries out: the process's bic is pointed at
//    the other queue, which becomes shared (coop). Only on rotational or non-queueing
//    devices, and only for queues created at most HZ/10 before their first service.
//  - stable merge: a queue created within bfq_burst_interval of the previous one, with the
//    same priority, is merged with it at once on a non-rotational queueing device, else
//    after bfq_late_stable_merging ms unless idling pays for it by then.
//  - split: a shared queue found seeky at expiration is split at the next request of each
//    of its processes, which gets back its own queue and saved state.
// blksim: one sync queue per process (bic = pid); processes never exit, so a queue that
// lost all its processes lives on (never freed) with no process references.
#include "models/sched/bfq.h"

#include <algorithm>

namespace blksim::sched {

using blkmq::Bio;
using blkmq::Request;

namespace {
constexpr uint64_t BFQQ_CLOSE_THR = 8 * 1024;              // sectors
constexpr int64_t bfq_activation_stable_merging_ms = 600;  // queues created this close merge stably
constexpr int64_t bfq_late_stable_merging_ms = 600;        // a delayed stable merge waits this long

bool bfq_rq_close_to_sector(uint64_t pos, uint64_t sector) {
    return (pos > sector ? pos - sector : sector - pos) <= BFQQ_CLOSE_THR;
}
}  // namespace

// The process's bic, made on its first request.
BfqIoCq* Bfq::bfq_bic_lookup(uint32_t pid) {
    if (BfqIoCq* bic = bfq_bic_find(pid))
        return bic;
    BfqIoCq& bic = bics_[pid];
    bic.pid = pid;
    bic_hint_[pid % kBicHint] = {pid, &bic};
    return &bic;
}

// The process's bic if it has one (no request yet: null).
BfqIoCq* Bfq::bfq_bic_find(uint32_t pid) {
    BicHint& hint = bic_hint_[pid % kBicHint];
    if (hint.bic && hint.pid == pid)
        return hint.bic;
    const auto it = bics_.find(pid);
    if (it == bics_.end())
        return nullptr;
    hint = {pid, &it->second};
    return &it->second;
}

// bic_set_bfqq(): point the process at bfqq (null: none yet), cancelling a stable merge
// with that very queue (it would otherwise merge with itself after a split).
void Bfq::bic_set_bfqq(BfqIoCq* bic, BfqQueue* bfqq) {
    BfqQueue*& slot = bic->bfqq;
    if (slot && slot->bic == bic)
        slot->bic = nullptr;
    slot = bfqq;
    if (bfqq && bic->stable_merge_bfqq == bfqq)
        bic->stable_merge_bfqq = nullptr;
}

// bfq_too_late_for_merging(): true cooperators start their I/O together; a queue served
// for more than HZ/10 already is left alone.
bool Bfq::bfq_too_late_for_merging(const BfqQueue* bfqq) const {
    return bfqq->service_from_backlogged > 0 && bfqq->first_IO_time + jif_.hz / 10 < jiffies();
}

// bfq_pos_tree_add_move(): (re)position bfqq by its next request; a queue whose next
// request starts where another's does stays out of the tree.
void Bfq::bfq_pos_tree_add_move(BfqQueue* bfqq) {
    bfq_pos_tree_remove(bfqq);
    if (bfq_too_late_for_merging(bfqq) || bfqq->ioprio_class == 3 || !bfqq->next_rq)
        return;
    rq_pos_tree_.insert(*bfqq);  // insert_unique: nothing when the sector is taken
}

void Bfq::bfq_pos_tree_remove(BfqQueue* bfqq) {
    if (bfqq->pos_node.is_linked())
        rq_pos_tree_.erase(rq_pos_tree_.iterator_to(*bfqq));
}

// bfqq_find_close(): the queue whose next request starts at `sector`, else the parent of
// the empty leaf where `sector` would go (the nearest queue on one side), else the nearest
// on the other side, whichever is within BFQQ_CLOSE_THR first.
BfqQueue* Bfq::bfqq_find_close(uint64_t sector) {
    if (rq_pos_tree_.empty())
        return nullptr;
    const auto succ = rq_pos_tree_.lower_bound(sector);
    if (succ != rq_pos_tree_.end() && succ->next_rq->sector == sector)
        return &*succ;
    BfqQueue* pred = succ == rq_pos_tree_.begin() ? nullptr : &*std::prev(succ);
    BfqQueue* next = succ == rq_pos_tree_.end() ? nullptr : &*succ;
    // In a binary search tree the empty leaf hangs from the predecessor when that has no
    // right child, else from the successor.
    const bool parent_is_pred =
        pred && (!next || !PosTree::node_traits::get_right(PosTree::value_traits::to_node_ptr(*pred)));
    BfqQueue* parent = parent_is_pred ? pred : next;
    BfqQueue* other = parent_is_pred ? next : pred;
    if (bfq_rq_close_to_sector(parent->next_rq->sector, sector))
        return parent;
    if (other && bfq_rq_close_to_sector(other->next_rq->sector, sector))
        return other;
    return nullptr;
}

// bfq_may_be_close_cooperator(): same class (not idle), neither seeky, both sync.
bool Bfq::bfq_may_be_close_cooperator(const BfqQueue* bfqq, const BfqQueue* new_bfqq) const {
    if (bfq_too_late_for_merging(new_bfqq))
        return false;
    if (bfqq->ioprio_class == 3 || new_bfqq->ioprio_class == 3 || bfqq->ioprio_class != new_bfqq->ioprio_class)
        return false;
    if (bfqq_seeky(bfqq) || bfqq_seeky(new_bfqq))
        return false;
    return bfqq->sync && new_bfqq->sync;
}

// bfq_setup_merge(): schedule bfqq's processes to move to the end of new_bfqq's chain,
// which takes their process references in advance.
BfqQueue* Bfq::bfq_setup_merge(BfqQueue* bfqq, BfqQueue* new_bfqq) {
    if (new_bfqq->process_refs == 0)
        return nullptr;
    while (BfqQueue* next = new_bfqq->new_bfqq) {  // no circular chain, skip interim merges
        if (next == bfqq)
            return nullptr;
        new_bfqq = next;
    }
    const int process_refs = bfqq->process_refs;
    if (process_refs == 0 || new_bfqq->process_refs == 0)
        return nullptr;
    explain_(now_, "bfq{}S scheduling merge with queue {}", bfqq->pid, new_bfqq->pid);
    bfqq->new_bfqq = new_bfqq;
    new_bfqq->process_refs += process_refs;
    return new_bfqq;
}

// The delayed stable merge branch of bfq_setup_cooperator() (rotational or non-queueing
// devices): after bfq_late_stable_merging ms, merge unless idling pays for bfqq.
BfqQueue* Bfq::bfq_setup_stable_merge(BfqQueue* bfqq, BfqIoCq* bic) {
    BfqQueue* stable_merge_bfqq = bic->stable_merge_bfqq;
    const int proc_ref = std::min(bfqq->process_refs, stable_merge_bfqq->process_refs);
    bic->stable_merge_bfqq = nullptr;  // done or aborted here
    if (idling_boosts_thr_without_issues(bfqq) || proc_ref <= 0)
        return nullptr;
    BfqQueue* new_bfqq = bfq_setup_merge(bfqq, stable_merge_bfqq);
    if (new_bfqq) {
        bic->stably_merged = true;
        if (new_bfqq->bic)
            new_bfqq->bic->stably_merged = true;
    }
    return new_bfqq;
}

// bfq_setup_cooperator(): the queue bfqq's I/O at `sector` should go to, or null. sector
// null: no bio or request to judge by.
BfqQueue* Bfq::bfq_setup_cooperator(BfqQueue* bfqq, const uint64_t* sector, BfqIoCq* bic) {
    if (BfqQueue* new_bfqq = bfqq->new_bfqq) {  // a merge is already scheduled
        while (new_bfqq->new_bfqq)
            new_bfqq = new_bfqq->new_bfqq;
        return new_bfqq;
    }
    const int64_t late = jif_.msecs_to_jiffies(bfq_late_stable_merging_ms);
    if (!nonrot_with_queueing() && bfqq->sync && bic->stable_merge_bfqq && !bfqq->just_created &&
        bfqq->split_time + late < jiffies() && bfqq->creation_time + late < jiffies())
        return bfq_setup_stable_merge(bfqq, bic);
    // A queueing SSD reorders interleaved I/O itself: no merging.
    if (nonrot_with_queueing() || bfq_too_late_for_merging(bfqq) || !sector || busy_queues() == 1)
        return nullptr;
    BfqQueue* in_service_bfqq = in_service_queue_;
    if (in_service_bfqq && in_service_bfqq != bfqq && bfq_rq_close_to_sector(*sector, in_serv_last_pos_) &&
        bfq_may_be_close_cooperator(bfqq, in_service_bfqq)) {
        if (BfqQueue* new_bfqq = bfq_setup_merge(bfqq, in_service_bfqq))
            return new_bfqq;
    }
    // bfq_find_close_cooperator().
    BfqQueue* new_bfqq = bfqq_find_close(*sector);
    if (new_bfqq && new_bfqq != bfqq && bfq_may_be_close_cooperator(bfqq, new_bfqq))
        return bfq_setup_merge(bfqq, new_bfqq);
    return nullptr;
}

// bfq_bfqq_save_state(): what the owning process gets back if split again.
void Bfq::bfq_bfqq_save_state(BfqQueue* bfqq) {
    BfqIoCq* bic = bfqq->bic;
    if (!bic)
        return;  // already shared or redirected: saved then
    bic->saved_last_serv_time_ns = bfqq->last_serv_time_ns;
    bic->saved_inject_limit = bfqq->inject_limit;
    bic->saved_decrease_time_jif = bfqq->decrease_time_jif;
    bic->saved_weight = bfqq->entity.orig_weight;
    bic->saved_ttime = bfqq->ttime;
    bic->saved_has_short_ttime = bfqq->has_short_ttime;
    bic->saved_IO_bound = bfqq->IO_bound;
    bic->saved_io_start_time = bfqq->io_start_time;
    bic->saved_tot_idle_time = bfqq->tot_idle_time;
    bic->saved_in_large_burst = bfqq->in_large_burst;
    bic->was_in_burst_list = bfqq->in_burst_list;
    if (bfqq->just_created && !bfqq->in_large_burst && t_.low_latency) {
        // Merged before its first request: keep the interactive raising it would have had.
        bic->saved_wr_coeff = BFQ_WR_COEFF;
        bic->saved_wr_start_at_switch_to_srt = bfq_smallest_from_now();
        bic->saved_wr_cur_max_time = bfq_wr_duration();
        bic->saved_last_wr_start_finish = jiffies();
    } else {
        bic->saved_wr_coeff = bfqq->wr_coeff;
        bic->saved_wr_start_at_switch_to_srt = bfqq->wr_start_at_switch_to_srt;
        bic->saved_service_from_wr = bfqq->service_from_wr;
        bic->saved_last_wr_start_finish = bfqq->last_wr_start_finish;
        bic->saved_wr_cur_max_time = bfqq->wr_cur_max_time;
    }
}

// bfq_bfqq_resume_state(): a queue just split off gets its process's saved state back.
void Bfq::bfq_bfqq_resume_state(BfqQueue* bfqq, BfqIoCq* bic, bool bfqq_already_existing) {
    const bool busy = bfqq_already_existing && bfqq->busy;
    unsigned int old_wr_coeff = 1;
    bfqq->has_short_ttime = bic->saved_has_short_ttime;
    bfqq->IO_bound = bic->saved_IO_bound;
    bfqq->last_serv_time_ns = bic->saved_last_serv_time_ns;
    bfqq->inject_limit = bic->saved_inject_limit;
    bfqq->decrease_time_jif = bic->saved_decrease_time_jif;
    bfqq->entity.new_weight = bic->saved_weight;
    bfqq->ttime = bic->saved_ttime;
    bfqq->io_start_time = bic->saved_io_start_time;
    bfqq->tot_idle_time = bic->saved_tot_idle_time;
    if (t_.low_latency) {
        old_wr_coeff = bfqq->wr_coeff;
        bfqq->wr_coeff = bic->saved_wr_coeff;
    }
    bfqq->service_from_wr = bic->saved_service_from_wr;
    bfqq->wr_start_at_switch_to_srt = bic->saved_wr_start_at_switch_to_srt;
    bfqq->last_wr_start_finish = bic->saved_last_wr_start_finish;
    bfqq->wr_cur_max_time = bic->saved_wr_cur_max_time;
    if (bfqq->wr_coeff > 1 &&
        (bfqq->in_large_burst || bfqq->last_wr_start_finish + bfqq->wr_cur_max_time < jiffies())) {
        if (bfqq->wr_cur_max_time == bfq_wr_rt_max_time_ && !bfqq->in_large_burst &&
            bfqq->wr_start_at_switch_to_srt + bfq_wr_duration() >= jiffies())
            switch_back_to_interactive_wr(bfqq);
        else
            bfqq->wr_coeff = 1;
    }
    bfqq->entity.prio_changed = true;
    if (!busy)
        return;
    if (old_wr_coeff == 1 && bfqq->wr_coeff > 1)
        ++wr_busy_queues_;
    else if (old_wr_coeff > 1 && bfqq->wr_coeff == 1)
        --wr_busy_queues_;
}

// bfq_release_process_ref(): a queue no process will feed any more leaves the busy set if
// empty (it would otherwise keep a place it cannot use).
void Bfq::bfq_release_process_ref(BfqQueue* bfqq) {
    if (bfqq->busy && bfqq->sort_list.empty() && bfqq != in_service_queue_)
        bfq_del_bfqq_busy(bfqq, false);
    if (last_bfqq_created_ == bfqq)  // bfq_reassign_last_bfqq(bfqq, NULL)
        last_bfqq_created_ = nullptr;
    --bfqq->process_refs;
}

// bfq_merge_bfqqs(): carry out bfqq's scheduled merge for the process of bic: new_bfqq
// inherits the I/O-bound flag and weight raising and becomes shared.
BfqQueue* Bfq::bfq_merge_bfqqs(BfqIoCq* bic, BfqQueue* bfqq) {
    BfqQueue* new_bfqq = bfqq->new_bfqq;
    explain_(now_, "bfq{}S merging with queue {}", bfqq->pid, new_bfqq->pid);
    ++stats_.queue_merges;
    bfq_bfqq_save_state(bfqq);
    bfq_bfqq_save_state(new_bfqq);
    if (bfqq->IO_bound)
        new_bfqq->IO_bound = true;
    bfqq->IO_bound = false;
    // bfqq's processes cooperate with new_bfqq's: let bfqq's waker inject for them all.
    if (bfqq->waker_bfqq && !new_bfqq->waker_bfqq && bfqq->waker_bfqq != new_bfqq)
        bfq_inherit_waker(new_bfqq, bfqq->waker_bfqq);
    if (new_bfqq->wr_coeff == 1 && bfqq->wr_coeff > 1) {
        new_bfqq->wr_coeff = bfqq->wr_coeff;
        new_bfqq->wr_cur_max_time = bfqq->wr_cur_max_time;
        new_bfqq->last_wr_start_finish = bfqq->last_wr_start_finish;
        new_bfqq->wr_start_at_switch_to_srt = bfqq->wr_start_at_switch_to_srt;
        if (new_bfqq->busy)
            ++wr_busy_queues_;
        new_bfqq->entity.prio_changed = true;
    }
    if (bfqq->wr_coeff > 1) {  // bfqq gave its raising to new_bfqq
        bfqq->wr_coeff = 1;
        bfqq->entity.prio_changed = true;
        if (bfqq->busy)
            --wr_busy_queues_;
    }
    bic_set_bfqq(bic, new_bfqq);
    new_bfqq->coop = true;
    new_bfqq->bic = nullptr;  // shared: owned by no single process
    bfqq->bic = nullptr;
    if (last_bfqq_created_ == bfqq)  // bfq_reassign_last_bfqq()
        last_bfqq_created_ = new_bfqq;
    bfq_release_process_ref(bfqq);
    return new_bfqq;
}

// bfq_put_cooperator(): drop the references a scheduled merge took on bfqq's chain.
void Bfq::bfq_put_cooperator(BfqQueue* bfqq) {
    for (BfqQueue* q = bfqq->new_bfqq; q && q != bfqq; q = q->new_bfqq)
        --q->process_refs;
}

// bfq_split_bfqq(): the process leaves a shared queue gone seeky. The last process keeps
// the queue (no longer shared); otherwise null: the caller makes it a new one.
BfqQueue* Bfq::bfq_split_bfqq(BfqIoCq* bic, BfqQueue* bfqq) {
    explain_(now_, "bfq{}S splitting queue", bfqq->pid);
    ++stats_.queue_splits;
    if (bfqq->process_refs == 1 && !bfqq->new_bfqq) {
        bfqq->pid = bic->pid;
        bfqq->coop = bfqq->split_coop = false;
        return bfqq;
    }
    bic_set_bfqq(bic, nullptr);
    bfq_put_cooperator(bfqq);
    bfq_release_process_ref(bfqq);
    return nullptr;
}

// bfq_allow_bio_merge() (through elv_bio_merge_ok()): a bio merges only into a request of
// the queue it would join; first, an early merge of its process's queue may be done.
bool Bfq::bfq_allow_bio_merge(const Bio& bio) {
    if (!bio_bfqq_)
        return false;
    const uint64_t sector = bio.sector;
    if (BfqQueue* new_bfqq = bfq_setup_cooperator(bio_bfqq_, &sector, bio_bic_)) {
        while (bio_bfqq_ != new_bfqq)
            bio_bfqq_ = bfq_merge_bfqqs(bio_bic_, bio_bfqq_);
    }
    return true;  // the caller compares bio_bfqq_ with the request's queue
}

// The cooperator step of __bfq_insert_request(): rq moves to the shared queue (and its
// process with it, if still on rq's queue). Returns the queue rq is inserted into.
BfqQueue* Bfq::bfq_insert_cooperator(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    BfqIoCq* bic = bfq_bic_lookup(rq->pid);
    const uint64_t sector = rq->sector;
    BfqQueue* new_bfqq = bfq_setup_cooperator(bfqq, &sector, bic);
    if (!new_bfqq)
        return bfqq;
    BfqQueue* old_bfqq = bfqq;
    ++new_bfqq->entity.allocated;  // the request's reference moves to the shared queue
    --old_bfqq->entity.allocated;
    if (bic->bfqq == bfqq) {
        while (bfqq != new_bfqq)
            bfqq = bfq_merge_bfqqs(bic, bfqq);
    }
    old_bfqq->just_created = false;
    rq->elv_priv = new_bfqq;
    return bfqq;
}

// The part of bfq_get_queue() after the allocation: bfq_do_or_sched_stable_merge(). A queue
// created soon (bfq_burst_interval) after the previous one, with its priority, merges with
// it: now on a queueing SSD, else possibly later (bfq_setup_cooperator()).
BfqQueue* Bfq::bfq_do_or_sched_stable_merge(BfqQueue* bfqq, BfqIoCq* bic) {
    BfqQueue* last = last_bfqq_created_;
    if (!last || last->creation_time + jif_.msecs_to_jiffies(bfq_activation_stable_merging_ms) < bfqq->creation_time ||
        bfqq->ioprio != last->ioprio || bfqq->ioprio_class != last->ioprio_class) {
        last_bfqq_created_ = bfqq;
    } else if (last->creation_time + bfq_burst_interval_ >= bfqq->creation_time) {
        if (nonrot_with_queueing()) {
            // bfq_do_early_stable_merge().
            BfqQueue* new_bfqq = bfq_setup_merge(bfqq, last);
            if (!new_bfqq)
                return bfqq;
            if (new_bfqq->bic)
                new_bfqq->bic->stably_merged = true;
            bic->stably_merged = true;
            bfqq->bic = bic;
            return bfq_merge_bfqqs(bic, bfqq);
        }
        bic->stable_merge_bfqq = last;  // tentative: decided in bfq_setup_cooperator()
    }
    return bfqq;
}

// bfq_get_bfqq_handle_split(): the process's queue, a new one if it has none (first
// request, or just split off a shared queue: then with its burst state back).
BfqQueue* Bfq::bfq_get_bfqq_handle_split(BfqIoCq* bic, Request* rq, bool split, bool* new_queue) {
    if (BfqQueue* bfqq = bic->bfqq)
        return bfqq;
    if (new_queue)
        *new_queue = true;
    BfqQueue* bfqq = bfq_alloc_queue(rq);
    if (!split)
        bfqq = bfq_do_or_sched_stable_merge(bfqq, bic);
    bic_set_bfqq(bic, bfqq);
    if (split) {
        if ((bic->was_in_burst_list && large_burst_) || bic->saved_in_large_burst) {
            bfqq->in_large_burst = true;
        } else {
            bfqq->in_large_burst = false;
            if (bic->was_in_burst_list && !bfqq->in_burst_list) {
                burst_list_.push_back(bfqq);
                bfqq->in_burst_list = true;
            }
        }
        bfqq->split_time = jiffies();
    }
    return bfqq;
}

// bfq_init_rq()'s choice of queue: the bic's, split off a shared queue gone seeky, with the
// process's saved state resumed when the queue is its own again.
BfqQueue* Bfq::bfq_rq_bic_queue(BfqIoCq* bic, Request* rq) {
    bool new_queue = false, split = false, bfqq_already_existing = false;
    BfqQueue* bfqq = bfq_get_bfqq_handle_split(bic, rq, false, &new_queue);
    if (!new_queue && bfqq->coop && bfqq->split_coop && !bic->stably_merged) {
        BfqQueue* waker_bfqq = bfq_waker_bfqq(bfqq);
        if (bfqq->in_large_burst)
            bic->saved_in_large_burst = true;
        bfqq = bfq_split_bfqq(bic, bfqq);
        split = true;
        if (!bfqq)
            bfqq = bfq_get_bfqq_handle_split(bic, rq, true, nullptr);
        else
            bfqq_already_existing = true;
        if (!bfqq_already_existing)  // a new queue: the shared queue's waker still wakes it
            bfq_inherit_waker(bfqq, waker_bfqq);
    }
    if (!bfqq->new_bfqq && bfqq->process_refs == 1) {
        bfqq->bic = bic;
        if (split)
            bfq_bfqq_resume_state(bfqq, bic, bfqq_already_existing);
    }
    return bfqq;
}

}  // namespace blksim::sched
