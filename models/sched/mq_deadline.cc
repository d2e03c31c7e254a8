// mq-deadline: see mq_deadline.h for the policy, the jiffies clock and the lock.
#include "models/sched/mq_deadline.h"
#include "models/sched/scheduler_kind.h"

#include <algorithm>
#include <climits>
#include <iterator>
#include <optional>

namespace blksim::sched {

using blkmq::Bio;
using blkmq::Request;

namespace {

using T = MqDeadlineTunables;
constexpr Tunable<T> kTunables[] = {
    // Kernel attributes in deadline_attrs[] order, with the kernel's store ranges.
    {"read_expire", &T::read_expire, 0, INT_MAX, TunableUnit::MSEC,
     "deadline added to a read at insert; checked only when a batch starts (soft)"},
    {"write_expire", &T::write_expire, 0, INT_MAX, TunableUnit::MSEC, "same for writes"},
    {"writes_starved", &T::writes_starved, INT_MIN, INT_MAX, TunableUnit::COUNT,
     "read batches allowed while writes wait before a write batch is forced "
     "(compared as unsigned, as the kernel does: a negative value never forces writes)"},
    {"front_merges", &T::front_merges, 0, 1, TunableUnit::BOOL, "look up front merges in the sector tree"},
    {"async_depth", &T::async_depth, 0, INT_MAX, TunableUnit::REQUESTS,
     "scheduler tags usable by writes and async reads; 0 = nr_requests (the v6.11+ default)"},
    {"fifo_batch", &T::fifo_batch, 0, INT_MAX, TunableUnit::COUNT,
     "requests per batch before deadlines and direction are looked at again"},
    {"prio_aging_expire", &T::prio_aging_expire, 0, INT_MAX, TunableUnit::MSEC,
     "a lower-priority request waiting this long is served despite higher-priority work"},
    {"hz", &T::hz, 100, 1000, TunableUnit::HERTZ,
     "CONFIG_HZ (100, 250, 300, 1000): expire times are whole jiffies of 1/HZ s"},
    // Seed-patch options.
    {"nr_sched_batch", &T::nr_sched_batch, 0, 2048, TunableUnit::REQUESTS,
     "E1: requests one dispatch round pulls from the scheduler; 0 = nr_requests (mainline)"},
    {"head_on_wrap", &T::head_on_wrap, 0, 1, TunableUnit::BOOL,
     "E1: with nothing expired and nothing above the position, restart at the lowest sector"},
    {"next_rq", &T::next_rq, 0, 1, TunableUnit::BOOL,
     "kernels before ~6.5 (E1's 5.19): the sweep continues at the successor the last dispatched "
     "request had when dispatched (per_prio->next_rq), not at the first request >= latest_pos"},
    {"direct_dispatch", &T::direct_dispatch, 0, 1, TunableUnit::BOOL,
     "E3: issue a request straight to the driver when that cannot change the decision"},
    {"direct_dispatch_if_empty", &T::direct_dispatch_if_empty, 0, 1, TunableUnit::BOOL,
     "E3 condition: no request waits in any priority level"},
    {"direct_dispatch_if_no_higher_prio", &T::direct_dispatch_if_no_higher_prio, 0, 1, TunableUnit::BOOL,
     "E3 condition: no higher priority level owns a request (waiting or in the device)"},
    {"direct_dispatch_if_hctx_idle", &T::direct_dispatch_if_hctx_idle, 0, 1, TunableUnit::BOOL,
     "E3 condition: hctx->dispatch is empty and the hctx is not dispatch_busy"},
};

}  // namespace

std::span<const Tunable<MqDeadlineTunables>> mq_deadline_tunables() { return kTunables; }

const Tunable<MqDeadlineTunables>* find_mq_deadline_tunable(std::string_view name) { return find_tunable(mq_deadline_tunables(), name); }

static constinit const SchedulerKindOf<MqDeadlineTunables> kMqDeadlineKind{
    "mq-deadline", "block/mq-deadline.c: per-priority sector-sorted and FIFO lists, batches, expiry, one lock",
    kTunables, [](const MqDeadlineTunables& t, const ElevatorContext& ctx) -> std::unique_ptr<Elevator> {
        auto e = std::make_unique<MqDeadline>(t);
        e->set_noxmerges(ctx.nomerges == 1);
        return e;
    }};
const SchedulerKind& mq_deadline_kind() { return kMqDeadlineKind; }

MqDeadline::MqDeadline(const MqDeadlineTunables& t) { set_tunables(t); }

// dd_exit_sched(): the kernel warns when requests are still queued. Here the intrusive
// containers unlink whatever is left, so the Requests (which must outlive us) come back
// with clean hooks.
MqDeadline::~MqDeadline() = default;

void MqDeadline::set_tunables(const MqDeadlineTunables& t) {
    t_ = t;
    if (t_.hz <= 0)
        t_.hz = 250;
    jif_.hz = t_.hz;
    fifo_expire_j_[DD_READ] = msecs_to_jiffies(t_.read_expire);
    fifo_expire_j_[DD_WRITE] = msecs_to_jiffies(t_.write_expire);
    prio_aging_expire_j_ = msecs_to_jiffies(t_.prio_aging_expire);
}


// --- helpers -------------------------------------------------------------------------------

// ioprio_class_to_prio[]: NONE is served as BE; the level inside a class is ignored.
DdPrio MqDeadline::ioprio_class_to_prio(uint8_t ioprio_class) {
    switch (ioprio_class) {
    case 1: return DD_RT_PRIO;
    case 3: return DD_IDLE_PRIO;
    default: return DD_BE_PRIO;  // NONE (0), BE (2)
    }
}

uint64_t MqDeadline::dd_queued(DdPrio prio) const {
    const IoStatsPerPrio& s = per_prio_[prio].stats;
    return s.inserted - s.completed;
}

uint64_t MqDeadline::owned_by_driver(DdPrio prio) const {
    const IoStatsPerPrio& s = per_prio_[prio].stats;
    return s.dispatched + s.merged - s.requeued - s.completed;
}

uint64_t MqDeadline::nr_waiting(DdPrio prio) const {
    const DdPerPrio& pp = per_prio_[prio];
    return pp.dispatch.size() + pp.fifo_list[DD_READ].size() + pp.fifo_list[DD_WRITE].size();
}

uint64_t MqDeadline::queued() const {
    uint64_t n = 0;
    for (const DdPerPrio& pp : per_prio_)
        n += pp.stats.inserted + pp.stats.requeued - pp.stats.dispatched - pp.stats.merged;
    return n;
}

// Each level's lists hold what its counters say, and every request waiting for a batch is
// in both its FIFO and its sort list.
std::string MqDeadline::audit() const {
    uint64_t linked = 0;
    for (uint32_t p = 0; p < DD_PRIO_COUNT; ++p)
        linked += nr_waiting(static_cast<DdPrio>(p));
    if (linked != waiting_)
        return fmt::format("mq-deadline: {} requests in its lists, has_work counts {}", linked, waiting_);
    for (uint32_t p = 0; p < DD_PRIO_COUNT; ++p) {
        const DdPerPrio& pp = per_prio_[p];
        const uint64_t held = pp.stats.inserted + pp.stats.requeued - pp.stats.dispatched - pp.stats.merged;
        if (nr_waiting(static_cast<DdPrio>(p)) != held)
            return fmt::format("mq-deadline level {}: {} requests in its lists, its counters say {} "
                               "(inserted {} + requeued {} - dispatched {} - merged {})", p,
                               nr_waiting(static_cast<DdPrio>(p)), held, pp.stats.inserted,
                               pp.stats.requeued, pp.stats.dispatched, pp.stats.merged);
        for (uint32_t d = 0; d < DD_DIR_COUNT; ++d)
            if (pp.next_rq[d] && (!pp.next_rq[d]->rb_node.is_linked() || rq_data_dir(*pp.next_rq[d]) != d))
                return fmt::format("mq-deadline level {} {}: next_rq points at a request not in the sort tree", p,
                                   d == DD_READ ? "reads" : "writes");
        for (uint32_t d = 0; d < DD_DIR_COUNT; ++d)
            if (pp.sort_list[d].size() != pp.fifo_list[d].size())
                return fmt::format("mq-deadline level {} {}: {} requests sorted, {} in the FIFO", p,
                                   d == DD_READ ? "reads" : "writes", pp.sort_list[d].size(),
                                   pp.fifo_list[d].size());
    }
    return {};
}

// The first request of the level and direction with start sector >= pos.
Request* MqDeadline::deadline_from_pos(DdPerPrio& pp, DdDataDir dir, uint64_t pos) {
    auto it = pp.sort_list[dir].lower_bound(pos);
    return it == pp.sort_list[dir].end() ? nullptr : &*it;
}

// Where the sweep continues: the next request at or after the last dispatched position.
Request* MqDeadline::deadline_next_request(DdPerPrio& pp, DdDataDir dir) {
    if (t_.next_rq)
        return pp.next_rq[dir];
    return deadline_from_pos(pp, dir, pp.latest_pos[dir]);
}

// The oldest request (the FIFO is in deadline order: one expire value per direction).
Request* MqDeadline::deadline_fifo_request(DdPerPrio& pp, DdDataDir dir) {
    return pp.fifo_list[dir].empty() ? nullptr : &pp.fifo_list[dir].front();
}

// E1 deadline_head_request(): the lowest-sector request, where a C-SCAN sweep restarts.
Request* MqDeadline::deadline_head_request(DdPerPrio& pp, DdDataDir dir) {
    return pp.sort_list[dir].empty() ? nullptr : &*pp.sort_list[dir].begin();
}

// Has the oldest request's deadline passed? Requires a non-empty FIFO.
bool MqDeadline::deadline_check_fifo(DdPerPrio& pp, DdDataDir dir, int64_t now_j) const {
    return now_j >= jiffies(pp.fifo_list[dir].front().fifo_time);
}

// Take rq off its FIFO, the sector tree and the merge hash.
void MqDeadline::deadline_remove_request(DdPerPrio& pp, Request* rq) {
    const DdDataDir dir = rq_data_dir(*rq);
    if (rq->queuelist.is_linked()) {
        pp.fifo_list[dir].erase(pp.fifo_list[dir].iterator_to(*rq));
        --waiting_;
    }
    // Not on the tree when this is an insert merge of a request never inserted.
    if (rq->rb_node.is_linked()) {
        if (pp.next_rq[dir] == rq)  // deadline_del_rq_rb(): the pointer moves to the successor
            pp.next_rq[dir] = next_request(rq);
        pp.sort_list[dir].erase(pp.sort_list[dir].iterator_to(*rq));
    }
    ElvRqHash::del(*rq);
    if (last_merge_ == rq)
        last_merge_ = nullptr;
}

// Was rq inserted after latest_start (in jiffies)? The insertion tick is recovered as
// fifo_time - expire[dir] with the *current* expire value. At-head requests carry their
// insertion tick as fifo_time, so they count as inserted `expire` earlier than they were:
// the kernel does the same subtraction for them.
bool MqDeadline::started_after(const Request& rq, int64_t latest_start) const {
    const int64_t start = jiffies(rq.fifo_time) - fifo_expire_j_[rq_data_dir(rq)];
    return start > latest_start;
}

// --- insert --------------------------------------------------------------------------------

// dd_insert_request(). The kernel first tries an insert merge (blk_mq_sched_try_insert_merge);
// in blksim the core does that before calling us (bio_merge() with rq's range, then
// requests_merged()), because splicing bios is the core's business.
void MqDeadline::insert_request(Request* rq, bool at_head, sim::Time now) {
    DdPerPrio& pp = per_prio_of(*rq);
    const DdDataDir dir = rq_data_dir(*rq);
    const int64_t now_j = jiffies(now);

    if (!rq->elv_counted) {
        pp.stats.inserted++;
        rq->elv_counted = true;
    } else {
        pp.stats.requeued++;
    }

    if (at_head) {
        pp.dispatch.push_front(*rq);
        rq->fifo_time = jiffies_to_time(now_j);
    } else {
        pp.sort_list[dir].insert(*rq);
        hash_.add(*rq);  // every blksim request is rq_mergeable()
        if (!last_merge_)
            last_merge_ = rq;
        // Set the expire time and add to the FIFO.
        rq->fifo_time = jiffies_to_time(now_j + fifo_expire_j_[dir]);
        pp.fifo_list[dir].push_back(*rq);
    }
    ++waiting_;
}

// --- dispatch ------------------------------------------------------------------------------

// __dd_dispatch_request(): the best request of one priority level according to batching,
// read/write preference and the deadlines; nullptr if the level has nothing, or if the
// choice was inserted after latest_start (the aging cut-off). Like the kernel, a call that
// returns nullptr because of the cut-off has already updated starved / last_dir / batching.
// (The kernel's gotos are unrolled into the three helpers below.)
Request* MqDeadline::dd_dispatch_from_prio(DdPerPrio& pp, int64_t latest_start, int64_t now_j) {
    // Requests inserted at head (requeues) go first, outside any batch.
    if (!pp.dispatch.empty()) {
        Request* rq = &pp.dispatch.front();
        if (started_after(*rq, latest_start))
            return nullptr;
        pp.dispatch.pop_front();
        --waiting_;
        return dd_account_dispatch(pp, rq);
    }

    // Batches are reads XOR writes: continue the current one while it is entitled to.
    // No deadline is checked inside a batch.
    Request* rq = deadline_next_request(pp, last_dir_);
    if (!rq || batching_ >= static_cast<uint32_t>(t_.fifo_batch)) {
        // Not running a batch: select the direction, then the request to start with.
        const std::optional<DdDataDir> data_dir = deadline_choose_dir(pp);
        if (!data_dir)
            return nullptr;
        rq = deadline_batch_start(pp, *data_dir, now_j);
        last_dir_ = *data_dir;
        batching_ = 0;
    }

    if (started_after(*rq, latest_start))
        return nullptr;
    batching_++;
    // deadline_move_request() (next_rq kernels): the sweep's next stop is rq's successor now.
    if (t_.next_rq)
        pp.next_rq[rq_data_dir(*rq)] = next_request(rq);
    deadline_remove_request(pp, rq);
    return dd_account_dispatch(pp, rq);
}

// Reads are preferred, but each read batch chosen while writes wait counts towards
// writes_starved (post-increment; the comparison is unsigned in the kernel). Choosing
// writes resets the count.
std::optional<DdDataDir> MqDeadline::deadline_choose_dir(DdPerPrio& pp) {
    const uint32_t prio = static_cast<uint32_t>(&pp - per_prio_);
    if (!pp.fifo_list[DD_READ].empty()) {
        if (!deadline_fifo_request(pp, DD_WRITE)) {
            explain_(now_, "mq-deadline: prio {} read batch, no writes waiting{}", prio, switching(DD_READ));
            return DD_READ;
        }
        if (starved_++ < static_cast<uint32_t>(t_.writes_starved)) {
            explain_(now_, "mq-deadline: prio {} reads preferred, writes starved {}/{}{}", prio, starved_,
                     t_.writes_starved, switching(DD_READ));
            return DD_READ;
        }
        explain_(now_, "mq-deadline: prio {} writes starved {}/{}{}", prio, starved_ - 1, t_.writes_starved,
                 switching(DD_WRITE));
        starved_ = 0;
        return DD_WRITE;
    }
    // Either there are no reads or writes have been starved.
    if (!pp.fifo_list[DD_WRITE].empty()) {
        explain_(now_, "mq-deadline: prio {} write batch, no reads waiting{}", prio, switching(DD_WRITE));
        starved_ = 0;
        return DD_WRITE;
    }
    return std::nullopt;
}

// How a batch in `to` changes the direction, for explain_.
const char* MqDeadline::switching(DdDataDir to) const {
    if (to == last_dir_)
        return "";
    return to == DD_READ ? ", switching to reads" : ", switching to writes";
}

// The first request of a new batch in `data_dir` (whose FIFO is not empty).
Request* MqDeadline::deadline_batch_start(DdPerPrio& pp, DdDataDir data_dir, int64_t now_j) {
    if (deadline_check_fifo(pp, data_dir, now_j)) {
        // A deadline has expired: start again from the oldest request.
        Request* rq = deadline_fifo_request(pp, data_dir);
        explain_(now_, "mq-deadline: {} FIFO head expired ({}_expire {} ms), batch starts there: sector {}",
                 data_dir == DD_READ ? "read" : "write", data_dir == DD_READ ? "read" : "write",
                 (data_dir == DD_READ ? t_.read_expire : t_.write_expire).count() / 1'000'000, rq->sector);
        return rq;
    }
    if (Request* next_rq = deadline_next_request(pp, data_dir))
        return next_rq;  // nothing expired: continue in sector order from the position
    // Out of higher-sectored requests: mainline restarts at the oldest request, E1's
    // head_on_wrap at the lowest sector (a true C-SCAN).
    return t_.head_on_wrap ? deadline_head_request(pp, data_dir) : deadline_fifo_request(pp, data_dir);
}

// The `done:` tail of __dd_dispatch_request: remember the position, count it.
Request* MqDeadline::dd_account_dispatch(DdPerPrio& pp, Request* rq) {
    pp.latest_pos[rq_data_dir(*rq)] = rq->sector;
    pp.stats.dispatched++;
    return rq;
}

// dd_dispatch_prio_aged_requests(): when at least two levels own requests, serve a BE or
// IDLE request that has waited prio_aging_expire, whatever the higher levels hold.
Request* MqDeadline::dd_dispatch_prio_aged_requests(int64_t now_j) {
    // Two levels cannot own requests while the RT and IDLE levels never had one (no I/O
    // priority in use): the same answer as the count below, without it on every dispatch.
    if ((per_prio_[DD_RT_PRIO].stats.inserted | per_prio_[DD_IDLE_PRIO].stats.inserted) == 0)
        return nullptr;
    const int prio_cnt = !!dd_queued(DD_RT_PRIO) + !!dd_queued(DD_BE_PRIO) + !!dd_queued(DD_IDLE_PRIO);
    if (prio_cnt < 2)
        return nullptr;
    for (uint32_t prio = DD_BE_PRIO; prio < DD_PRIO_COUNT; prio++) {
        Request* rq = dd_dispatch_from_prio(per_prio_[prio], now_j - prio_aging_expire_j_, now_j);
        if (rq) {
            explain_(now_, "mq-deadline: prio aging, prio {} sector {} waited past prio_aging_expire {} ms: served first",
                     prio, rq->sector, t_.prio_aging_expire.count() / 1'000'000);
            return rq;
        }
    }
    return nullptr;
}

// dd_dispatch_request(). May return a request for another hctx: mq-deadline's state is
// shared by all hardware queues of the request queue.
Request* MqDeadline::dispatch_request(sim::Time now) {
    now_ = now;
    const int64_t now_j = jiffies(now);
    Request* rq = dd_dispatch_prio_aged_requests(now_j);
    if (rq)
        return rq;
    // Strict priority: stop at the first level that has a request *or still owns one*
    // (dd_queued counts requests in the device), so a lower level waits for a higher
    // level's in-flight requests to complete, not only for its queued ones.
    // A level with nothing in its lists gives nothing and changes nothing (no batch or
    // direction is chosen for it), so it is not asked: without priorities in use, that is
    // the RT level's sort-tree lookup on every dispatch.
    for (uint32_t prio = 0; prio < DD_PRIO_COUNT; prio++) {
        if (nr_waiting(static_cast<DdPrio>(prio)) != 0)
            rq = dd_dispatch_from_prio(per_prio_[prio], now_j, now_j);
        if (rq || dd_queued(static_cast<DdPrio>(prio)))
            break;
    }
    return rq;
}

// --- merging -------------------------------------------------------------------------------

// elv_bio_merge_ok() / blk_rq_merge_ok(): same operation and the same ioprio value.
bool MqDeadline::elv_bio_merge_ok(const Request& rq, const Bio& bio) {
    return rq.op == bio.op && rq.ioprio_class == bio.ioprio_class && rq.ioprio_level == bio.ioprio_level;
}

// elv_merge() with dd_request_merge(), plus the size check of bio_attempt_*_merge(): a
// candidate that would exceed max_sectors means no merge at all (the kernel does not
// fall back to another candidate either).
// elv_rqhash_find(): the newest request ending at `sector`.
Request* MqDeadline::insert_merge_find(uint64_t sector) {
    return hash_.find(sector);
}

ElvMerge MqDeadline::bio_merge(const Bio& bio, uint32_t max_sectors, Request** out) {
    auto fits = [&](const Request& rq) { return uint64_t{rq.nr_sectors} + bio.nr_sectors <= max_sectors; };

    // First try the one-hit cache: blk_try_merge() checks both ends, so front_merges=0 does
    // not stop a front merge into q->last_merge (as in the kernel).
    if (last_merge_ && elv_bio_merge_ok(*last_merge_, bio)) {
        ElvMerge type = ElvMerge::NO_MERGE;
        if (last_merge_->end_sector() == bio.sector)
            type = ElvMerge::BACK_MERGE;
        else if (bio.end_sector() == last_merge_->sector)
            type = ElvMerge::FRONT_MERGE;
        if (type != ElvMerge::NO_MERGE) {
            if (!fits(*last_merge_))
                return ElvMerge::NO_MERGE;
            *out = last_merge_;
            return type;
        }
    }

    if (noxmerges_)
        return ElvMerge::NO_MERGE;

    // The hash: a request ending where the bio starts (a back merge).
    if (Request* rq = hash_.find(bio.sector); rq && elv_bio_merge_ok(*rq, bio)) {
        if (!fits(*rq))
            return ElvMerge::NO_MERGE;
        *out = rq;
        return ElvMerge::BACK_MERGE;
    }

    // dd_request_merge(): a request starting where the bio ends, in the bio's level and
    // direction (a front merge).
    if (!t_.front_merges)
        return ElvMerge::NO_MERGE;
    DdPerPrio& pp = per_prio_[ioprio_class_to_prio(bio.ioprio_class)];
    const DdDataDir dir = blkmq::op_is_write(bio.op) ? DD_WRITE : DD_READ;
    Request* rq = deadline_from_pos(pp, dir, bio.end_sector());
    if (rq && rq->sector == bio.end_sector() && elv_bio_merge_ok(*rq, bio)) {
        if (!fits(*rq))
            return ElvMerge::NO_MERGE;
        *out = rq;
        return ElvMerge::FRONT_MERGE;
    }
    return ElvMerge::NO_MERGE;
}

// dd_request_merged() + elv_merged_request(): the core has grown rq (its key already
// changed; unlinking a node needs no comparison, so erase-then-insert is safe).
void MqDeadline::request_merged(Request* rq, ElvMerge type) {
    if (type == ElvMerge::FRONT_MERGE && rq->rb_node.is_linked()) {
        // A front merge moved the start sector: reposition in the sort tree.
        SortList& sl = per_prio_of(*rq).sort_list[rq_data_dir(*rq)];
        sl.erase(sl.iterator_to(*rq));
        sl.insert(*rq);
    }
    if (type == ElvMerge::BACK_MERGE && rq->hash_node.is_linked()) {
        hash_.reposition(*rq);
    }
    last_merge_ = rq;
}

// elv_rb_former_request / elv_rb_latter_request.
Request* MqDeadline::former_request(Request* rq) {
    if (!rq->rb_node.is_linked())
        return nullptr;
    SortList& sl = per_prio_of(*rq).sort_list[rq_data_dir(*rq)];
    auto it = sl.iterator_to(*rq);
    return it == sl.begin() ? nullptr : &*std::prev(it);
}

Request* MqDeadline::next_request(Request* rq) {
    if (!rq->rb_node.is_linked())
        return nullptr;
    SortList& sl = per_prio_of(*rq).sort_list[rq_data_dir(*rq)];
    auto it = std::next(sl.iterator_to(*rq));
    return it == sl.end() ? nullptr : &*it;
}

// dd_merged_requests() + elv_merge_requests(): next has been appended to rq.
void MqDeadline::requests_merged(Request* rq, Request* next) {
    DdPerPrio& pp = per_prio_of(*next);
    if (!next->elv_counted) {
        // An insert merge: dd_insert_request() counts the request before trying to merge it.
        pp.stats.inserted++;
        next->elv_counted = true;
    }
    pp.stats.merged++;

    // If next expires before rq, rq takes over its deadline and its place in the FIFO.
    if (rq->queuelist.is_linked() && next->queuelist.is_linked() && next->fifo_time < rq->fifo_time) {
        FifoList& fifo = per_prio_of(*rq).fifo_list[rq_data_dir(*rq)];
        fifo.erase(fifo.iterator_to(*rq));
        fifo.insert(fifo.iterator_to(*next), *rq);
        rq->fifo_time = next->fifo_time;
    }

    // Kill knowledge of next, this one is a goner.
    deadline_remove_request(pp, next);

    if (rq->hash_node.is_linked()) {  // rq grew at its back: elv_rqhash_reposition()
        hash_.reposition(*rq);
    }
    last_merge_ = rq;
}

// dd_finish_request(): an atomic increment in the kernel, no dd->lock. Requests that
// bypassed the scheduler were never counted.
void MqDeadline::finish_request(Request* rq, sim::Time /*now*/) {
    if (!rq->elv_counted)
        return;
    per_prio_of(*rq).stats.completed++;
    rq->elv_counted = false;  // what dd_prepare_request() does when the slot is reused
}

// --- depth, dispatch rounds, direct dispatch -----------------------------------------------

// dd_limit_depth(): synchronous reads are never limited; everything else may use at most
// async_depth scheduler tags.
uint32_t MqDeadline::limit_depth(bool is_sync_read, uint32_t nr_requests) const {
    if (is_sync_read || t_.async_depth <= 0)
        return nr_requests;
    return std::min<uint32_t>(static_cast<uint32_t>(t_.async_depth), nr_requests);
}

// The seed patches' switches as the patched kernel sees them: E1 patch 1's q->nr_sched_batch
// replaces nr_requests as the per-round maximum (the core's dispatch round bounds it by
// nr_requests); E3's insert path asks this policy before inserting.
void MqDeadline::init_sched(ElevatorQueueAttrs& q) {
    q.nr_sched_batch = t_.nr_sched_batch > 0 ? static_cast<uint32_t>(t_.nr_sched_batch) : 0;
    q.bypass = t_.direct_dispatch ? this : nullptr;
}

// E3: true when issuing rq now, without insert, gives the driver the same request that
// insert + dispatch would: (i) nothing waits in any level (else a waiting request, or
// the batch/deadline logic, could come first), (i') no higher level owns a request (else
// strict priority would hold rq back until those complete), (ii) the hctx would run the
// dispatch at once (nothing ahead of it in hctx->dispatch, not dispatch_busy). Each is
// switchable so that the unknown real patch can be matched.
bool MqDeadline::may_direct_dispatch(const Request& rq, bool hctx_idle) const {
    if (!t_.direct_dispatch)
        return false;
    if (t_.direct_dispatch_if_empty && has_work())
        return false;
    if (t_.direct_dispatch_if_no_higher_prio) {
        const DdPrio prio = ioprio_class_to_prio(rq.ioprio_class);
        for (uint32_t p = 0; p < prio; p++)
            if (dd_queued(static_cast<DdPrio>(p)))
                return false;
    }
    if (t_.direct_dispatch_if_hctx_idle && !hctx_idle)
        return false;
    return true;
}

// The accounting a bypass must keep (docs/references.md §8c): inserted and dispatched for the
// level (else dd_queued(), aging and strict priority go wrong) and latest_pos (else the next
// sweep starts from a stale position). The batch state is left alone: the request is not part
// of a batch.
void MqDeadline::direct_dispatched(Request* rq, sim::Time /*now*/) {
    DdPerPrio& pp = per_prio_of(*rq);
    if (!rq->elv_counted) {
        pp.stats.inserted++;
        rq->elv_counted = true;
    } else {
        pp.stats.requeued++;
    }
    pp.stats.dispatched++;
    pp.latest_pos[rq_data_dir(*rq)] = rq->sector;
}

}  // namespace blksim::sched
