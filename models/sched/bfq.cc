// BFQ: see bfq.h for the policy and what is simplified. This file: tunables, queues,
// requests and their choice inside a queue, insert and merging. Dispatch (queue selection,
// expiration, budget feedback, idling) and completion are in bfq_dispatch.cc, B-WF2Q+ in
// bfq_wf2q.cc, the peak rate, weight raising and bursts in bfq_wr.cc, queue merging of
// cooperating processes in bfq_coop.cc.
#include "models/sched/bfq.h"
#include "models/sched/scheduler_kind.h"

#include <algorithm>
#include <climits>


namespace blksim::sched {

using blkmq::Bio;
using blkmq::Request;

namespace {

// bfq_back_max's unit: KiB, two sectors each.
constexpr uint64_t SECTORS_PER_KIB = 2;
// bfq_sample_valid(): think-time samples needed before they count.
constexpr uint64_t BFQ_TTIME_SAMPLES_VALID = 80;
// The sysfs default of timeout_sync is the build constant HZ / 8 jiffies; a value written
// through sysfs goes through msecs_to_jiffies().
constexpr sim::Duration kDefaultTimeoutSync = sim::Duration::ns(125'000'000);

using T = BfqTunables;
constexpr Tunable<T> kTunables[] = {
    // bfq_attrs[] order, with the kernel's store ranges (the kernel clamps; blksim refuses).
    {"fifo_expire_sync", &T::fifo_expire_sync, 1, INT_MAX, TunableUnit::MSEC,
     "age after which a queue's oldest request is served next (checked once per service slot)"},
    {"fifo_expire_async", &T::fifo_expire_async, 1, INT_MAX, TunableUnit::MSEC,
     "the same for async requests; blksim has none (every request is REQ_SYNC), so it never applies"},
    {"back_seek_max", &T::back_seek_max, 0, INT_MAX, TunableUnit::COUNT,
     "KiB a queue's next request may lie behind the head and still be chosen by distance"},
    {"back_seek_penalty", &T::back_seek_penalty, 1, INT_MAX, TunableUnit::COUNT,
     "a backward seek counts this many times its distance"},
    {"slice_idle", &T::slice_idle, 0, INT_MAX, TunableUnit::MSEC,
     "how long an emptied sync queue keeps the device waiting for its next request; 0 = no idling"},
    {"slice_idle_us", &T::slice_idle, 0, UINT_MAX, TunableUnit::USEC, "slice_idle in microseconds (the same setting)"},
    {"max_budget", &T::max_budget, 0, INT_MAX, TunableUnit::COUNT,
     "largest budget, sectors; 0 = auto: what the estimated peak rate serves in timeout_sync"},
    {"timeout_sync", &T::timeout_sync, 1, INT_MAX, TunableUnit::MSEC,
     "budget timeout: the in-service queue expires after this (x30 while weight-raised)"},
    {"strict_guarantees", &T::strict_guarantees, 0, 1, TunableUnit::BOOL,
     "always idle, one request in the device at a time; raises slice_idle to at least 8 ms"},
    {"low_latency", &T::low_latency, 0, 1, TunableUnit::BOOL,
     "weight raising: interactive (x30) and soft real-time (x3000) queues"},
    {"hz", &T::hz, 100, 1000, TunableUnit::HERTZ,
     "CONFIG_HZ (100, 250, 300, 1000): budget timeouts and weight-raising periods are whole jiffies"},
};


}  // namespace

std::span<const Tunable<BfqTunables>> bfq_tunables() { return kTunables; }

const Tunable<BfqTunables>* find_bfq_tunable(std::string_view name) { return find_tunable(bfq_tunables(), name); }

// slice_idle and slice_idle_us: the later sysfs write would win, a JSON object has no order.
static constexpr std::array<std::string_view, 2> kBfqSameSetting[] = {{"slice_idle", "slice_idle_us"}};

static constinit const SchedulerKindOf<BfqTunables> kBfqKind{
    "bfq", "block/bfq-iosched.c: per-process queues, budgets in sectors, B-WF2Q+ by weight, strict classes, "
           "idling for sync queues, budget feedback, weight raising (low_latency), one lock",
    kTunables,
    [](const BfqTunables& t, const ElevatorContext& c) -> std::unique_ptr<Elevator> {
        auto e = std::make_unique<Bfq>(t, c.eq, c.rotational);
        e->set_noxmerges(c.nomerges == 1);
        return e;
    },
    kBfqSameSetting};
const SchedulerKind& bfq_kind() { return kBfqKind; }

// bfq_init_queue().
Bfq::Bfq(const BfqTunables& t, sim::EventQueue& eq, bool rotational)
    : rotational_(rotational), eq_(eq), idle_slice_timer_(eq, &Bfq::idle_timer_fired, this) {
    max_budget_ = bfq_default_max_budget;
    set_tunables(t);
    // Begin by assuming, optimistically, that the device peak rate is 2/3 of the highest
    // reference rate (14000 / 33000 sectors/us << BFQ_RATE_SHIFT, rotational / not), with
    // the reference weight-raising durations of 7 s / 2.5 s.
    const int64_t ref_rate = nonrot() ? 33000 : 14000;
    const int64_t ref_wr_duration = jif_.msecs_to_jiffies(nonrot() ? 2500 : 7000);
    rate_dur_prod_ = ref_rate * ref_wr_duration;
    peak_rate_ = static_cast<uint32_t>(ref_rate * 2 / 3);
    queue_weights_tree_.reserve(16);
    burst_list_.reserve(8);
}

// The trees link entities of queues_, which is destroyed first: unlink them before.
Bfq::~Bfq() {
    active_list_.clear();
    for (ServiceTree& st : st_) {
        st.eligible.clear();
        st.ineligible.clear();
        st.idle.clear();
    }
    rq_pos_tree_.clear();
}

// The sysfs stores: slice_idle / slice_idle_us in ns, timeout_sync in jiffies (HZ / 8 by
// default), max_budget 0 = auto, strict_guarantees raising slice_idle to 8 ms, low_latency
// 0 ending every weight-raising period.
void Bfq::set_tunables(const BfqTunables& t) {
    const bool end_wr = t_.low_latency && !t.low_latency && !queues_.empty();
    t_ = t;
    jif_.hz = t_.hz > 0 ? t_.hz : 250;
    if (t_.strict_guarantees && t_.slice_idle < sim::Duration::ns(8 * BFQ_NSEC_PER_MSEC))
        t_.slice_idle = sim::Duration::ns(8 * BFQ_NSEC_PER_MSEC);
    bfq_slice_idle_ = t_.slice_idle.count();
    fifo_expire_[0] = t_.fifo_expire_async.count();
    fifo_expire_[1] = t_.fifo_expire_sync.count();
    bfq_timeout_ = t_.timeout_sync == kDefaultTimeoutSync ? jif_.hz / 8
                                                          : jif_.msecs_to_jiffies(t_.timeout_sync.count() / BFQ_NSEC_PER_MSEC);
    bfq_timeout_ = std::max<int64_t>(bfq_timeout_, 1);
    user_max_budget_ = t_.max_budget;
    if (user_max_budget_ > 0)
        max_budget_ = user_max_budget_;
    else if (!queues_.empty())
        max_budget_ = bfq_calc_max_budget();  // a store of 0 at run time recomputes it
    bfq_wr_rt_max_time_ = jif_.msecs_to_jiffies(300);
    bfq_wr_min_idle_time_ = jif_.msecs_to_jiffies(2000);
    bfq_wr_min_inter_arr_async_ = jif_.msecs_to_jiffies(500);
    bfq_burst_interval_ = jif_.msecs_to_jiffies(180);
    if (end_wr)
        bfq_end_wr();
}

const BfqQueue* Bfq::queue_of(uint32_t pid) const { return bfq_get_queue(pid); }

// --- queues ---------------------------------------------------------------------------------

// bfq_set_next_ioprio_data(): class and weight from the task's io_context priority; class
// NONE inherits the CPU nice value (nice 0: best effort, level 4).
void Bfq::bfq_set_next_ioprio_data(BfqQueue* bfqq, uint8_t ioprio_class, uint8_t ioprio_level) {
    switch (ioprio_class) {
    case 1:  // IOPRIO_CLASS_RT
    case 2:  // IOPRIO_CLASS_BE
        bfqq->new_ioprio = std::min<uint8_t>(ioprio_level, 7);
        bfqq->new_ioprio_class = ioprio_class;
        break;
    case 3:  // IOPRIO_CLASS_IDLE
        bfqq->new_ioprio = 7;
        bfqq->new_ioprio_class = 3;
        break;
    default:  // IOPRIO_CLASS_NONE: task_nice_ioprio() / task_nice_ioclass() of a nice-0 task
        bfqq->new_ioprio = 4;
        bfqq->new_ioprio_class = 2;
        break;
    }
    bfqq->entity.new_weight = bfq_ioprio_to_weight(bfqq->new_ioprio);
    bfqq->entity.prio_changed = true;
}

// bfq_init_bfqq() + bfq_init_entity().
void Bfq::bfq_init_bfqq(BfqQueue* bfqq, uint32_t pid) {
    const int64_t now_j = jiffies();
    bfqq->pid = pid;
    bfqq->entity.bfqq = bfqq;
    // Tentatively short think time (no idle-class check yet: the class is set below).
    bfqq->has_short_ttime = true;
    bfqq->sync = true;
    bfqq->just_created = true;
    // End of the last request: "minus infinity from now" (now + 1, read as a u64 distance).
    bfqq->ttime.last_end_request = now_ns() + 1;
    bfqq->io_start_time = now_ns();
    bfqq->IO_bound = true;
    // Tentative initial value to trade off between throughput and latency.
    bfqq->max_budget = (2 * bfq_max_budget()) / 3;
    bfqq->budget_timeout = bfq_smallest_from_now();
    bfqq->wr_coeff = 1;
    bfqq->last_wr_start_finish = now_j;
    bfqq->wr_start_at_switch_to_srt = bfq_smallest_from_now();
    bfqq->split_time = bfq_smallest_from_now();
    bfqq->soft_rt_next_start = now_j;
    bfqq->seek_history = 1;  // the first request is almost certainly seeky
    bfqq->creation_time = now_j;
    BfqEntity& e = bfqq->entity;
    e.weight = e.orig_weight = e.new_weight;
    bfqq->ioprio = bfqq->new_ioprio;
    bfqq->ioprio_class = bfqq->new_ioprio_class;
}

// bfq_get_queue() for a sync request: the task's queue, created on its first request. The
// io_context priority is read then; fio sets it once per job (ioprio_set), so the kernel's
// bfq_check_ioprio_change() never finds a change.
BfqQueue* Bfq::bfq_get_queue(uint32_t pid) const {
    const BfqIoCq* bic = bic_of(pid);
    return bic ? bic->bfqq : nullptr;
}

// bfq_get_queue()'s allocation of a sync queue for rq's task.
BfqQueue* Bfq::bfq_alloc_queue(Request* rq) {
    queues_.push_back(std::make_unique<BfqQueue>());
    BfqQueue* bfqq = queues_.back().get();
    const Bio* bio = rq->bio;
    bfq_set_next_ioprio_data(bfqq, bio ? bio->task_ioprio_class : 0, bio ? bio->task_ioprio_level : 4);
    bfq_init_bfqq(bfqq, rq->pid);
    ++stats_.queues_created;
    return bfqq;
}

// bfq_init_rq(): the request joins its task's queue (which is created if needed, and may be
// shared with cooperating tasks, see bfq_coop.cc) when it is inserted; large-burst
// detection looks at every new queue.
BfqQueue* Bfq::bfq_init_rq(Request* rq) {
    if (BfqQueue* q = RQ_BFQQ(rq))
        return q;
    BfqIoCq* bic = bfq_bic_lookup(rq->pid);
    BfqQueue* bfqq = bfq_rq_bic_queue(bic, rq);
    ++bfqq->entity.allocated;  // bfqq_request_allocated()
    ++bic->requests;
    rq->elv_priv = bfqq;
    rq->elv_icq = bic;
    if (bfqq->just_created && (burst_size_ > 0 || busy_queues() == 0))
        bfq_handle_burst(bfqq);
    return bfqq;
}

void Bfq::prepare_request(Request* rq) {
    rq->elv_priv = nullptr;
    rq->elv_icq = nullptr;
    rq->elv_counted = false;
}

// --- request choice inside a queue ---------------------------------------------------------

// bfq_choose_req() (lifted from AS/CFQ): the request closer to the head `last`; one behind
// it counts back_seek_penalty times its distance and only within back_seek_max, and two
// that both lie behind go furthest back first (one backward seek). Sync before async and
// metadata first do not apply: every blksim request is sync and none is metadata.
Request* Bfq::bfq_choose_req(Request* rq1, Request* rq2, uint64_t last) const {
    if (!rq1 || rq1 == rq2)
        return rq2;
    if (!rq2)
        return rq1;
    const uint64_t s1 = rq1->sector, s2 = rq2->sector;
    const uint64_t back_max = static_cast<uint64_t>(t_.back_seek_max) * SECTORS_PER_KIB;
    const auto penalty = static_cast<uint64_t>(t_.back_seek_penalty);
    // The cost of reaching sector s from the head; `wrap`: behind it beyond back_max.
    auto distance = [&](uint64_t s, bool& wrap) -> uint64_t {
        wrap = false;
        if (s >= last)
            return s - last;
        if (s + back_max >= last)
            return (last - s) * penalty;
        wrap = true;
        return 0;
    };
    bool wrap1, wrap2;
    const uint64_t d1 = distance(s1, wrap1), d2 = distance(s2, wrap2);

    if (!wrap1 && !wrap2) {
        if (d1 < d2)
            return rq1;
        if (d2 < d1)
            return rq2;
        return s1 >= s2 ? rq1 : rq2;
    }
    if (wrap2 && !wrap1)
        return rq1;
    if (wrap1 && !wrap2)
        return rq2;
    // Both wrapped: start with the one further behind the head.
    return s1 <= s2 ? rq1 : rq2;
}

// bfq_check_fifo(): once per service slot, the oldest request if it has expired.
Request* Bfq::bfq_check_fifo(BfqQueue* bfqq, const Request* last) {
    if (bfqq->fifo_expire)
        return nullptr;
    bfqq->fifo_expire = true;
    Request* rq = &bfqq->fifo.front();
    if (rq == last || now_ < rq->fifo_time)
        return nullptr;
    return rq;
}

// bfq_find_next_rq(): after `last` leaves, the expired FIFO head, else the better of its
// two neighbours in sector order (the first request when last was the highest).
Request* Bfq::bfq_find_next_rq(BfqQueue* bfqq, Request* last) {
    if (Request* next = bfq_check_fifo(bfqq, last))
        return next;
    BfqQueue::SortList& sl = bfqq->sort_list;
    const auto it = sl.iterator_to(*last);
    Request* prev = it == sl.begin() ? nullptr : &*std::prev(it);
    Request* next = nullptr;
    if (auto n = std::next(it); n != sl.end())
        next = &*n;
    else if (&*sl.begin() != last)
        next = &*sl.begin();
    return bfq_choose_req(next, prev, last->sector);
}

// bfq_serv_to_charge(): a sync request is charged its size (async ones would be charged 3x;
// blksim has none).
int Bfq::bfq_serv_to_charge(const Request* rq, const BfqQueue* /*bfqq*/) const {
    return static_cast<int>(rq->nr_sectors);
}

// bfq_updated_next_req(): a queue waiting for service must have budget for its next request.
void Bfq::bfq_updated_next_req(BfqQueue* bfqq) {
    const Request* next_rq = bfqq->next_rq;
    if (!next_rq || bfqq == in_service_queue_)
        return;  // budgets cannot change after an entity has been selected
    BfqEntity& e = bfqq->entity;
    const int new_budget = std::max({bfqq->max_budget, bfq_serv_to_charge(next_rq, bfqq), e.service});
    if (e.budget != new_budget) {
        e.budget = new_budget;
        bfq_requeue_bfqq(bfqq, false);
    }
}

// --- per-request statistics of a queue ------------------------------------------------------

// bfq_update_io_thinktime(): only a queue that was idle (nothing queued or in flight)
// gives a sample: the time from its last completion to this request, at most 2 slice_idle.
void Bfq::bfq_update_io_thinktime(BfqQueue* bfqq) {
    if (bfqq->dispatched || bfqq->busy)
        return;
    BfqTtime& tt = bfqq->ttime;
    const int64_t since = now_ns() - tt.last_end_request;  // negative: "minus infinity"
    const auto cap = static_cast<uint64_t>(2 * bfq_slice_idle_);
    const uint64_t elapsed = since < 0 ? cap : std::min(static_cast<uint64_t>(since), cap);
    tt.ttime_samples = (7 * tt.ttime_samples + 256) / 8;
    tt.ttime_total = (7 * tt.ttime_total + 256 * elapsed) / 8;
    tt.ttime_mean = (tt.ttime_total + 128) / tt.ttime_samples;
}

void Bfq::bfq_update_io_seektime(BfqQueue* bfqq, const Request* rq) {
    bfqq->seek_history <<= 1;
    bfqq->seek_history |= bfq_rq_seeky(bfqq->last_request_pos, rq) ? 1u : 0u;
    // A totally seeky queue is not soft real-time.
    if (bfqq->wr_coeff > 1 && bfqq->wr_cur_max_time == bfq_wr_rt_max_time_ && bfqq->seek_history == ~0u) {
        if (jiffies() > bfqq->wr_start_at_switch_to_srt + bfq_wr_duration()) {
            bfq_bfqq_end_wr(bfqq);
        } else {
            switch_back_to_interactive_wr(bfqq);
            bfqq->entity.prio_changed = true;
        }
    }
}

// bfq_update_has_short_ttime(): a mean think time above slice_idle / 2 (once enough samples
// exist) means idling would mostly wait in vain.
void Bfq::bfq_update_has_short_ttime(BfqQueue* bfqq) {
    if (!bfqq->sync || bfqq->ioprio_class == 3 || bfq_slice_idle_ == 0)
        return;
    if (jiffies() <= bfqq->split_time + bfq_wr_min_idle_time_)
        return;  // idle window just restored, statistics are meaningless
    bool has_short_ttime = true;
    if (bfqq->ttime.ttime_samples > BFQ_TTIME_SAMPLES_VALID &&
        bfqq->ttime.ttime_mean > static_cast<uint64_t>(bfq_slice_idle_ >> 1))
        has_short_ttime = false;
    const bool state_changed = has_short_ttime != bfqq->has_short_ttime;
    bfqq->has_short_ttime = has_short_ttime;
    // Without a baseline the inject limit follows the think time (bfq_reset_inject_limit);
    // not back to short within 100 ms of the last update, lest it oscillate.
    if (state_changed && bfqq->last_serv_time_ns == 0 &&
        (jiffies() >= bfqq->decrease_time_jif + jif_.msecs_to_jiffies(100) || !has_short_ttime))
        bfq_reset_inject_limit(bfqq);
}

// bfq_update_io_intensity(): I/O bound = busy at least ~80 % of a window of up to 200 ms.
// (The kernel's u64 "now - last_end_request" is -1 when a queue's first request arrives at
// its creation instant, as the plug's cached clock makes it, and wraps; the intent, and
// blksim, count no idle time then.)
void Bfq::bfq_update_io_intensity(BfqQueue* bfqq) {
    const int64_t now = now_ns();
    const int64_t tot_io_time = std::max<int64_t>(now - bfqq->io_start_time, 0);
    if (bfqq->sort_list.empty() && bfqq->dispatched == 0)
        bfqq->tot_idle_time += std::max<int64_t>(now - bfqq->ttime.last_end_request, 0);
    if (bfqq->just_created)
        return;
    bfqq->IO_bound = !(bfqq->tot_idle_time * 5 > tot_io_time);
    if (tot_io_time > 200 * BFQ_NSEC_PER_MSEC) {
        bfqq->io_start_time = now - (tot_io_time >> 1);
        bfqq->tot_idle_time >>= 1;
    }
}

// --- insert ---------------------------------------------------------------------------------

// bfq_add_request().
void Bfq::bfq_add_request(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    const unsigned int old_wr_coeff = bfqq->wr_coeff;
    bool interactive = false;
    bfqq->queued[1]++;
    ++queued_;
    bfq_add_request_inject(bfqq, rq);  // waker detection, inject limit (bfq_inject.cc)
    bfq_update_io_intensity(bfqq);
    bfqq->sort_list.insert(*rq);

    // Is this request a better next-serve candidate?
    Request* prev = bfqq->next_rq;
    bfqq->next_rq = bfq_choose_req(bfqq->next_rq, rq, last_position_);
    if (prev != bfqq->next_rq)
        bfq_pos_tree_update(bfqq);  // cooperator search: the queue's position moved

    if (!bfqq->busy) {
        bfq_bfqq_handle_idle_busy_switch(bfqq, old_wr_coeff, &interactive);
    } else if (prev != bfqq->next_rq) {
        bfq_updated_next_req(bfqq);
    }
    // For a queue not weight-raised, last_wr_start_finish holds the last arrival.
    if (t_.low_latency && (old_wr_coeff == 1 || bfqq->wr_coeff == 1 || interactive))
        bfqq->last_wr_start_finish = jiffies();
}

// bfq_rq_enqueued(): a request for the queue being idled for ends the idling, except a
// lone small request while idling for throughput (the block layer may still grow it).
void Bfq::bfq_rq_enqueued(BfqQueue* bfqq, Request* rq) {
    bfqq->last_request_pos = rq->end_sector();
    if (bfqq != in_service_queue_ || !bfqq->wait_request)
        return;
    const bool small_req = bfqq->queued[1] == 1 && rq->nr_sectors < 32;
    const bool budget_timeout = bfq_bfqq_budget_timeout(bfqq);
    if (small_req && idling_boosts_thr_without_issues(bfqq) && !budget_timeout)
        return;
    bfqq->wait_request = false;
    idle_slice_timer_.cancel();
    explain_(now_, "bfq{}{} idling ends: a request came, sector {}", bfqq->pid, bfqq->sync ? 'S' : 'A', rq->sector);
    // The queue is not empty now, so it can safely expire for the budget timeout.
    if (budget_timeout)
        bfq_bfqq_expire(bfqq, false, BFQQE_BUDGET_TIMEOUT);
}

// __bfq_insert_request().
void Bfq::bfq_insert_bfqq_request(Request* rq) {
    BfqQueue* bfqq = bfq_insert_cooperator(rq);  // rq may move to a shared queue
    bfq_update_io_thinktime(bfqq);
    bfq_update_has_short_ttime(bfqq);
    bfq_update_io_seektime(bfqq, rq);
    bfq_add_request(rq);
    rq->fifo_time = now_ + sim::Duration::ns(fifo_expire_[1]);
    bfqq->fifo.push_back(*rq);
    bfq_rq_enqueued(bfqq, rq);
}

// bfq_insert_request(). The kernel tries an insert merge first (blk_mq_sched_try_insert_
// merge); in blksim the core does that before calling us, with insert_merge_last() /
// insert_merge_find() and requests_merged().
void Bfq::insert_request(Request* rq, bool at_head, sim::Time now) {
    now_ = now;
    bfq_init_rq(rq);
    ++stats_.inserted;
    if (at_head) {
        dispatch_.push_front(*rq);
        return;
    }
    bfq_insert_bfqq_request(rq);
    hash_.add(*rq);  // every blksim request is rq_mergeable()
    if (!last_merge_)
        last_merge_ = rq;
}

bool Bfq::has_work() const { return !dispatch_.empty() || queued_ > 0; }

uint64_t Bfq::queued() const { return queued_ + dispatch_.size(); }

// bfq_remove_request(): rq leaves its queue (dispatched, or merged into another request).
void Bfq::bfq_remove_request(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    if (bfqq->next_rq == rq) {
        bfqq->next_rq = bfq_find_next_rq(bfqq, rq);
        bfq_updated_next_req(bfqq);
    }
    if (rq->queuelist.is_linked())
        bfqq->fifo.erase(bfqq->fifo.iterator_to(*rq));
    bfqq->queued[1]--;
    --queued_;
    bfqq->sort_list.erase(bfqq->sort_list.iterator_to(*rq));
    ElvRqHash::del(*rq);
    if (last_merge_ == rq)
        last_merge_ = nullptr;
    if (bfqq->sort_list.empty()) {
        bfqq->next_rq = nullptr;
        if (bfqq->busy && bfqq != in_service_queue_) {
            bfq_del_bfqq_busy(bfqq, false);
            // Emptied out of service: reset service and budget for consistency.
            bfqq->entity.budget = bfqq->entity.service = 0;
        }
        bfq_pos_tree_remove(bfqq);
    } else {
        bfq_pos_tree_update(bfqq);
    }
}

// --- merging --------------------------------------------------------------------------------

// elv_merge() as bfq_bio_merge() runs it: the one-hit cache, the hash (back merge), then
// bfq_request_merge() (front merge, in the bio's own queue). Every candidate must pass
// elv_bio_merge_ok(): same op and priority, and bfq_allow_bio_merge(), the bio's task's
// queue. A candidate that would exceed max_sectors means no merge at all (the kernel does
// not fall back to another one either).
ElvMerge Bfq::bio_merge(const Bio& bio, uint32_t max_sectors, Request** out) {
    // A process with a queue has its bic (bic_set_bfqq); without one, nothing of the
    // task's to merge with.
    bio_bic_ = bfq_bic_find(bio.pid);
    bio_bfqq_ = bio_bic_ ? bio_bic_->bfqq : nullptr;
    if (bio_bfqq_ == nullptr)
        return ElvMerge::NO_MERGE;
    // bfq_allow_bio_merge() may first merge the task's queue with a cooperator's.
    auto merge_ok = [&](const Request& rq) {
        return rq.op == bio.op && rq.ioprio_class == bio.ioprio_class && rq.ioprio_level == bio.ioprio_level &&
               bfq_allow_bio_merge(bio) && RQ_BFQQ(&rq) == bio_bfqq_;
    };
    auto fits = [&](const Request& rq) { return uint64_t{rq.nr_sectors} + bio.nr_sectors <= max_sectors; };
    auto take = [&](Request* rq, ElvMerge type) {
        if (!fits(*rq))
            return ElvMerge::NO_MERGE;
        *out = rq;
        return type;
    };
    if (last_merge_ && merge_ok(*last_merge_)) {
        if (last_merge_->end_sector() == bio.sector)
            return take(last_merge_, ElvMerge::BACK_MERGE);
        if (bio.end_sector() == last_merge_->sector)
            return take(last_merge_, ElvMerge::FRONT_MERGE);
    }
    if (noxmerges_)
        return ElvMerge::NO_MERGE;  // queue/nomerges=1: elv_merge() stops at the one-hit cache
    if (Request* rq = insert_merge_find(bio.sector); rq && merge_ok(*rq))
        return take(rq, ElvMerge::BACK_MERGE);
    // bfq_find_rq_fmerge(): elv_rb_find() in the bio's queue.
    const auto it = bio_bfqq_->sort_list.find(bio.end_sector());
    if (it != bio_bfqq_->sort_list.end() && merge_ok(*it))
        return take(const_cast<Request*>(&*it), ElvMerge::FRONT_MERGE);
    return ElvMerge::NO_MERGE;
}

// elv_rqhash_find(): the newest request ending at `sector`.
Request* Bfq::insert_merge_find(uint64_t sector) {
    return hash_.find(sector);
}

// bfq_request_merged() + elv_merged_request(): a front merge that moved rq before its
// predecessor repositions it and may make it the queue's next request.
void Bfq::request_merged(Request* rq, ElvMerge type) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    if (type == ElvMerge::FRONT_MERGE && bfqq && rq->rb_node.is_linked()) {
        BfqQueue::SortList& sl = bfqq->sort_list;
        const auto it = sl.iterator_to(*rq);
        if (it != sl.begin() && rq->sector < std::prev(it)->sector) {
            sl.erase(it);
            sl.insert(*rq);
            Request* prev = bfqq->next_rq;
            bfqq->next_rq = bfq_choose_req(bfqq->next_rq, rq, last_position_);
            if (prev != bfqq->next_rq) {
                bfq_updated_next_req(bfqq);
                bfq_pos_tree_update(bfqq);
            }
        }
    }
    if (type == ElvMerge::BACK_MERGE && rq->hash_node.is_linked()) {
        hash_.reposition(*rq);
    }
    last_merge_ = rq;
}

// elv_rb_former_request / elv_rb_latter_request: neighbours in rq's queue.
Request* Bfq::former_request(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    if (!bfqq || !rq->rb_node.is_linked())
        return nullptr;
    const auto it = bfqq->sort_list.iterator_to(*rq);
    return it == bfqq->sort_list.begin() ? nullptr : &*std::prev(it);
}

Request* Bfq::next_request(Request* rq) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    if (!bfqq || !rq->rb_node.is_linked())
        return nullptr;
    const auto it = std::next(bfqq->sort_list.iterator_to(*rq));
    return it == bfqq->sort_list.end() ? nullptr : &*it;
}

// bfq_requests_merged() + elv_merge_requests(): next was appended to rq and goes away. In
// the same queue rq inherits next's age; across queues it keeps its own FIFO place.
void Bfq::requests_merged(Request* rq, Request* next) {
    BfqQueue* bfqq = RQ_BFQQ(rq);
    BfqQueue* next_bfqq = RQ_BFQQ(next);
    if (bfqq) {
        if (bfqq == next_bfqq && rq->queuelist.is_linked() && next->queuelist.is_linked() &&
            next->fifo_time < rq->fifo_time) {
            bfqq->fifo.erase(bfqq->fifo.iterator_to(*rq));
            bfqq->fifo.insert(bfqq->fifo.iterator_to(*next), *rq);
            rq->fifo_time = next->fifo_time;
        }
        if (bfqq->next_rq == next)
            bfqq->next_rq = rq;
    }
    if (next->rb_node.is_linked()) {
        bfq_remove_request(next);
        ++stats_.merged;
    }
    if (rq->hash_node.is_linked()) {
        hash_.reposition(*rq);
    }
    last_merge_ = rq;
}

}  // namespace blksim::sched
