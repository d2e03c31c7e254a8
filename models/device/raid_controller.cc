#include "models/device/raid_controller.h"

#include "models/device/build_cache.h"
#include "models/device/device_kind.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "models/blkmq/hw_queue.h"
#include "models/result/device_report.h"

namespace blksim::dev {

using sim::Duration;
using sim::Time;

namespace {
const char* level_name(RaidConfig::Level l) {
    switch (l) {
    case RaidConfig::Level::RAID0: return "raid0";
    case RaidConfig::Level::RAID1: return "raid1";
    case RaidConfig::Level::RAID10: return "raid10";
    case RaidConfig::Level::RAID5: return "raid5";
    }
    return "?";
}

uint64_t member_config_sectors(const RaidMember& m) { return m.model.kind().geometry(m.model).capacity_bytes / 512; }

uint32_t data_members_of(RaidConfig::Level l, uint32_t n) {
    switch (l) {
    case RaidConfig::Level::RAID0: return n;
    case RaidConfig::Level::RAID1: return 1;
    case RaidConfig::Level::RAID10: return n / 2;
    case RaidConfig::Level::RAID5: return n - 1;
    }
    return n;
}
}  // namespace

uint64_t raid_capacity_sectors(const RaidConfig& cfg) {
    if (cfg.members.empty() || cfg.strip_kb == 0)
        return 0;
    uint64_t smallest = ~0ULL;
    for (const RaidMember& m : cfg.members)
        smallest = std::min(smallest, member_config_sectors(m));
    const uint64_t strip = cfg.strip_kb * 2ULL;
    return smallest / strip * strip * data_members_of(cfg.level, static_cast<uint32_t>(cfg.members.size()));
}

std::string RaidController::check_config(const RaidConfig& cfg) {
    const auto n = static_cast<uint32_t>(cfg.members.size());
    const char* lvl = level_name(cfg.level);
    const uint32_t need = cfg.level == RaidConfig::Level::RAID0 ? 1 : cfg.level == RaidConfig::Level::RAID1 ? 2
                          : cfg.level == RaidConfig::Level::RAID10 ? 4 : 3;
    if (n < need)
        return fmt::format("{} needs at least {} members, got {}", lvl, need, n);
    if (cfg.level == RaidConfig::Level::RAID10 && n % 2 != 0)
        return fmt::format("raid10 needs an even number of members, got {}", n);
    if (cfg.level == RaidConfig::Level::RAID1 && n != 2)
        return fmt::format("raid1 mirrors exactly 2 members, got {} (use raid10)", n);
    if (cfg.cache_line_kb < 4 || cfg.strip_kb % cfg.cache_line_kb != 0)
        return fmt::format("strip_kb ({}) must be a multiple of cache_line_kb ({}, at least 4)", cfg.strip_kb,
                           cfg.cache_line_kb);
    if (cfg.queue_depth < 1 || cfg.fw_cores < 1 || cfg.member_queue_depth < 1)
        return "queue_depth, fw_cores and member_queue_depth must be at least 1";
    if (cfg.cache_mb < 1 || cfg.dirty_pct < 1 || cfg.dirty_pct > 90 || cfg.destage_pct >= cfg.dirty_pct)
        return "need cache_mb >= 1, 1 <= dirty_pct <= 90 and destage_pct < dirty_pct";
    if (static_cast<uint64_t>(cfg.cache_mb) * 1024 / cfg.cache_line_kb < 64)
        return "the cache must hold at least 64 lines (cache_mb * 1024 / cache_line_kb)";
    for (const RaidMember& m : cfg.members) {
        if (m.model.empty() || !m.model.kind().may_be_member())
            return "members must be hdd or sata_ssd devices";
        if (m.model.kind().geometry(m.model).logical_block_size > cfg.blocksize)
            return fmt::format("member '{}' has a larger logical block than the volume's {} B", m.name, cfg.blocksize);
        if (member_config_sectors(m) < cfg.strip_kb * 2ULL)
            return fmt::format("member '{}' is smaller than one strip", m.name);
    }
    return {};
}

RaidController::RaidController(sim::EventQueue& eq, const RaidConfig& cfg, uint32_t nr_cpus, BuildCache* cache)
    : eq_(eq), cfg_(cfg), nr_hw_queues_(cfg.nr_hw_queues ? std::min(cfg.nr_hw_queues, nr_cpus) : nr_cpus) {
    if (const std::string err = check_config(cfg); !err.empty())
        throw std::invalid_argument("raid: " + err);
    strip_sectors_ = cfg.strip_kb * 2;
    line_sectors_ = cfg.cache_line_kb * 2;

    uint64_t smallest = ~0ULL;
    uint32_t total_depth = 0;
    BuildCache own;
    for (const RaidMember& m : cfg.members) {
        Member mem;
        mem.dev = m.model.kind().make(m.model, eq, nr_cpus, cache != nullptr ? *cache : own);
        mem.dev->set_completion_sink(&RaidController::member_done_sink, this);
        mem.depth = std::min(cfg.member_queue_depth, mem.dev->queue_depth());
        total_depth += mem.depth;
        smallest = std::min({smallest, mem.dev->capacity_sectors(), member_config_sectors(m)});
        members_.push_back(std::move(mem));
    }
    member_sectors_ = smallest / strip_sectors_ * strip_sectors_;
    capacity_ = member_sectors_ * data_members();

    fw_free_.assign(cfg.fw_cores, Time::zero());
    cmds_.resize(cfg.queue_depth);
    for (uint32_t i = cfg.queue_depth; i-- > 0;) {
        cmds_[i].next_free = cmd_free_;
        cmd_free_ = i;
    }
    const uint64_t nr_lines = static_cast<uint64_t>(cfg.cache_mb) * 1024 / cfg.cache_line_kb;
    lines_.resize(nr_lines);
    uint32_t buckets = 1;
    while (buckets < 2 * nr_lines) {
        buckets <<= 1;
        ++hash_shift_;
    }
    buckets_.assign(buckets, kNone);
    hash_shift_ = 64 - hash_shift_;
    dirty_max_ = nr_lines * cfg.dirty_pct / 100;
    destage_start_ = nr_lines * cfg.destage_pct / 100;
    destage_depth_ = static_cast<uint32_t>(members_.size()) * 4;
    op_rqs_.resize(total_depth);
    rq_op_.assign(total_depth, kNone);
    for (uint32_t i = total_depth; i-- > 0;)
        rq_free_.push_back(i);
    pieces_.reserve(64);
}

RaidController::~RaidController() {
    dirty_.clear();  // unlink the intrusive hooks before the lines go
}

uint32_t RaidController::data_members() const {
    return data_members_of(cfg_.level, static_cast<uint32_t>(members_.size()));
}

// The pieces of VD extent [sector, sector + nsect) on the members, split at strip
// boundaries. RAID 1/10: a read goes to the mirror with the fewer commands outstanding
// (the firmware's load balancing), a write to both. RAID 5: data pieces only.
uint32_t RaidController::map(uint64_t sector, uint32_t nsect, Piece* out, bool for_write) {
    const uint32_t dm = data_members();
    uint32_t k = 0;
    while (nsect > 0) {
        const uint64_t strip = sector / strip_sectors_;
        const auto in_strip = static_cast<uint32_t>(sector % strip_sectors_);
        const uint32_t len = std::min(nsect, strip_sectors_ - in_strip);
        const uint64_t row = strip / dm;
        const auto col = static_cast<uint32_t>(strip % dm);
        const uint64_t lba = row * strip_sectors_ + in_strip;
        switch (cfg_.level) {
        case RaidConfig::Level::RAID0:
            out[k++] = {col, lba, len};
            break;
        case RaidConfig::Level::RAID1:
        case RaidConfig::Level::RAID10: {
            const uint32_t a = col * 2, b = a + 1;
            if (for_write) {
                out[k++] = {a, lba, len};
                out[k++] = {b, lba, len};
            } else {
                const Member& ma = members_[a];
                const Member& mb = members_[b];
                out[k++] = {ma.in_flight <= mb.in_flight ? a : b, lba, len};
            }
            break;
        }
        case RaidConfig::Level::RAID5: {
            const auto n = static_cast<uint32_t>(members_.size());
            const auto parity = static_cast<uint32_t>(n - 1 - row % n);  // left-symmetric
            out[k++] = {(parity + 1 + col) % n, lba, len};
            break;
        }
        }
        sector += len;
        nsect -= len;
    }
    return k;
}

// RAID 5: the parity of a data piece's row lives on the rotating parity disk, same offsets.
RaidController::Piece RaidController::parity_of(const Piece& p) const {
    const auto n = static_cast<uint32_t>(members_.size());
    const uint64_t row = p.lba / strip_sectors_;
    return {static_cast<uint32_t>(n - 1 - row % n), p.lba, p.nsect};
}

// --- firmware -------------------------------------------------------------------------

Time RaidController::fw_run(Time now, Duration cost) {
    auto it = std::min_element(fw_free_.begin(), fw_free_.end());
    const Time start = sim::max(now, *it);
    *it = start + cost;
    stats_.fw_busy_ns += cost.count();
    return *it;
}

BlkStatus RaidController::queue_rq(blkmq::Request* rq, bool /*last*/, Time now, uint32_t /*cpu*/) {
    if (cmd_free_ == kNone)
        return BlkStatus::DEV_RESOURCE;  // the tag depth keeps this from happening
    if (q_)
        q_->start_request(rq, now);
    const uint32_t slot = cmd_free_;
    HostCmd& c = cmds_[slot];
    cmd_free_ = c.next_free;
    c.rq = rq;
    c.pending = 0;
    c.write = rq->op == blkmq::ReqOp::WRITE;
    const Time t = fw_run(now, cfg_.cmd_overhead + (c.write ? cfg_.write_overhead : Duration()));
    eq_.at<&RaidController::fw_done>(t, this, slot);
    return BlkStatus::OK;
}

void RaidController::fw_done(uint64_t slot) {
    const auto s = static_cast<uint32_t>(slot);
    if (cmds_[s].write)
        start_write(s, eq_.now());
    else
        start_read(s, eq_.now());
}

void RaidController::start_read(uint32_t slot, Time now) {
    HostCmd& c = cmds_[slot];
    const auto [sector, nsect, l0, l1] = extent_of(*c.rq);
    ++stats_.reads;

    // Count what is missing first: without room for it, the read goes around the cache.
    // The read's own evictable lines (`own`) are not room for it: a fill must not evict a
    // line the same read still needs (it would find it gone further on, and no line left).
    uint64_t missing = 0, own = 0;
    bool all_valid = true;
    for (uint64_t no = l0; no < l1; ++no) {
        const Line* l = lookup(no);
        if (!l || !l->valid) {
            all_valid = false;
            missing += (l == nullptr);
        }
        own += (l != nullptr && l->in_lru);
    }
    if (all_valid) {
        ++stats_.read_hits;
        for (uint64_t no = l0; no < l1; ++no)
            lru_touch(static_cast<uint32_t>(lookup(no) - lines_.data()));
    } else {
        ++stats_.read_misses;
        if (!cfg_.read_ahead || missing + own > lines_available()) {
            // No read-ahead (rdcache=nora): a miss reads just the sectors asked for.
            stats_.uncached_reads += cfg_.read_ahead;
            const uint32_t g = new_group(Group::Kind::HOST_READ);
            groups_[g].host = slot;
            c.pending = 1;
            pieces_.resize(2 * (nsect / strip_sectors_ + 2));
            const uint32_t k = map(sector, nsect, pieces_.data(), false);
            for (uint32_t i = 0; i < k; ++i)
                issue(g, pieces_[i], false, now);
        } else {
            // Fill the missing lines, one group per run of them inside one strip; wait for
            // lines another fill is bringing in. The read's own lines go to the LRU's young
            // end first, so the fills evict older lines (there are enough, counted above).
            for (uint64_t no = l0; no < l1; ++no)
                if (const Line* l = lookup(no))
                    lru_touch(static_cast<uint32_t>(l - lines_.data()));
            uint64_t run0 = 0;
            uint32_t run = 0;
            uint32_t last_group = kNone;
            for (uint64_t no = l0; no <= l1; ++no) {
                Line* l = no < l1 ? lookup(no) : nullptr;
                const bool absent = no < l1 && (l == nullptr || (!l->valid && !l->filling));
                const bool same_strip = run > 0 && (no * line_sectors_) / strip_sectors_ == (run0 * line_sectors_) / strip_sectors_;
                if (run > 0 && (!absent || !same_strip)) {
                    fill_lines(run0, run, slot, now);
                    run = 0;
                }
                if (no == l1)
                    break;
                if (absent) {
                    if (run == 0)
                        run0 = no;
                    ++run;
                } else if (l->filling && l->fill_group != last_group) {
                    add_waiter(l->fill_group, slot);
                    last_group = l->fill_group;
                } else if (l->valid) {
                    lru_touch(static_cast<uint32_t>(l - lines_.data()));
                }
            }
        }
    }
    if (cfg_.read_ahead)
        prefetch(sector, nsect, now);
    if (c.pending == 0)
        host_finish(slot, now);
}

// The part of the VD a host command covers (clipped at its end) and its cache lines.
RaidController::Extent RaidController::extent_of(const blkmq::Request& rq) const {
    Extent e;
    e.sector = std::min(rq.sector, capacity_ - 1);
    e.nsect = static_cast<uint32_t>(std::min<uint64_t>(rq.nr_sectors, capacity_ - e.sector));
    e.l0 = e.sector / line_sectors_;
    e.l1 = (e.sector + e.nsect - 1) / line_sectors_ + 1;
    return e;
}

// Room for `lines` more dirty lines now: within dirty_pct, and that many lines free or clean.
bool RaidController::write_fits(uint64_t lines) const {
    return nr_dirty_ + lines <= dirty_max_ && lines <= lines_available();
}

void RaidController::start_write(uint32_t slot, Time now) {
    HostCmd& c = cmds_[slot];
    const auto [sector, nsect, l0, l1] = extent_of(*c.rq);
    // A write needing more lines than may ever be dirty at once could wait for room
    // forever: it goes through to the disks instead, like a write-through one.
    if (cfg_.write_back && l1 - l0 <= dirty_max_) {
        if (!write_fits(l1 - l0)) {
            // No room yet: the write waits for a destage or a fill to end (resume_stalled).
            ++stats_.write_stalls;
            c.next_stalled = kNone;
            if (stalled_tail_ == kNone)
                stalled_head_ = slot;
            else
                cmds_[stalled_tail_].next_stalled = slot;
            stalled_tail_ = slot;
            maybe_destage(now);
            return;
        }
        ++stats_.writes;
        for (uint64_t no = l0; no < l1; ++no) {
            Line* l = get_line(no, now);
            const uint64_t base = no * line_sectors_;
            const auto lo = static_cast<uint32_t>(std::max(sector, base) - base);
            const auto hi = static_cast<uint32_t>(std::min(sector + nsect, base + line_sectors_) - base);
            mark_dirty(*l, lo, hi, now);
        }
        host_finish(slot, now);
        maybe_destage(now);
        return;
    }
    // Write through (or too large for the cache): the data goes to the disks now; cached
    // copies stay valid (updated; a dirty one is destaged with the new data later).
    ++stats_.writes;
    pieces_.resize(2 * (nsect / strip_sectors_ + 2));
    const uint32_t k = map(sector, nsect, pieces_.data(), true);
    if (cfg_.level != RaidConfig::Level::RAID5) {
        const uint32_t g = new_group(Group::Kind::HOST_WRITE);
        groups_[g].host = slot;
        c.pending = 1;
        for (uint32_t i = 0; i < k; ++i)
            issue(g, pieces_[i], true, now);
        return;
    }
    for (uint32_t i = 0; i < k; ++i) {
        // RAID 5 small write: read old data and parity, then write both.
        const Piece p = pieces_[i];
        const uint32_t g = new_group(Group::Kind::HOST_WRITE);
        Group& gr = groups_[g];
        gr.host = slot;
        gr.rmw = true;
        gr.rmw_member = p.member;
        gr.rmw_lba = p.lba;
        gr.rmw_nsect = p.nsect;
        gr.rmw_parity = parity_of(p).member;
        ++c.pending;
        ++stats_.rmw;
        issue(g, p, false, now);
        issue(g, parity_of(p), false, now);
    }
}

// The data crosses PCIe (one transfer at a time), then the completion interrupt.
void RaidController::host_finish(uint32_t slot, Time now) {
    HostCmd& c = cmds_[slot];
    blkmq::Request* rq = c.rq;
    const auto xfer = static_cast<int64_t>(rq->bytes() * 1'000'000'000ULL / cfg_.link_bytes_per_s);
    const Time done = sim::max(now, link_free_) + Duration::ns(xfer);
    link_free_ = done;
    c.rq = nullptr;
    c.next_free = cmd_free_;
    cmd_free_ = slot;
    eq_.at<&RaidController::host_complete>(done, this, reinterpret_cast<uint64_t>(rq));
}

// The reply goes to the request's reply queue: with several, the one megaraid_sas chose by
// the request's hctx (megasas_get_msix_index: blk_mq_unique_tag_to_hwq), whose vector's
// managed affinity is that hctx's CPUs; with one, the single vector on irq_cpu.
void RaidController::host_complete(uint64_t rq_addr) {
    auto* rq = reinterpret_cast<blkmq::Request*>(rq_addr);
    const uint32_t cpu = q_ && q_->nr_hw_queues() > 1 ? q_->hctx_first_cpu(rq->mq_hctx->queue_num()) : cfg_.irq_cpu;
    end_request(q_, rq, eq_.now(), cpu);
}

// --- cache ----------------------------------------------------------------------------

RaidController::Line* RaidController::lookup(uint64_t no) {
    for (uint32_t i = buckets_[(no * 0x9E3779B97F4A7C15ULL) >> hash_shift_]; i != kNone; i = lines_[i].hash_next)
        if (lines_[i].no == no)
            return &lines_[i];
    return nullptr;
}

RaidController::Line* RaidController::get_line(uint64_t no, Time /*now*/) {
    if (Line* l = lookup(no))
        return l;
    uint32_t i;
    if (lines_used_ < lines_.size()) {
        i = lines_used_++;
    } else {
        if (lru_head_ == kNone)
            return nullptr;
        i = lru_head_;
        evict(i);
    }
    Line& l = lines_[i];
    l = Line{};
    l.no = no;
    l.used = true;
    uint32_t& b = buckets_[(no * 0x9E3779B97F4A7C15ULL) >> hash_shift_];
    l.hash_next = b;
    b = i;
    return &l;
}

void RaidController::evict(uint32_t i) {
    lru_unlink(i);
    uint32_t* p = &buckets_[(lines_[i].no * 0x9E3779B97F4A7C15ULL) >> hash_shift_];
    while (*p != i)
        p = &lines_[*p].hash_next;
    *p = lines_[i].hash_next;
    lines_[i].used = false;
}

void RaidController::lru_unlink(uint32_t i) {
    Line& l = lines_[i];
    if (!l.in_lru)
        return;
    (l.lru_prev == kNone ? lru_head_ : lines_[l.lru_prev].lru_next) = l.lru_next;
    (l.lru_next == kNone ? lru_tail_ : lines_[l.lru_next].lru_prev) = l.lru_prev;
    l.lru_prev = l.lru_next = kNone;
    l.in_lru = false;
    --lru_len_;
}

void RaidController::lru_touch(uint32_t i) {
    if (!lines_[i].in_lru)
        return;
    lru_unlink(i);
    lru_update(i);
}

// A line can be evicted when nothing depends on it: clean, not being filled or destaged
// (a partly written line, once destaged, holds nothing worth keeping but is evictable too).
void RaidController::lru_update(uint32_t i) {
    Line& l = lines_[i];
    const bool evictable = l.used && !l.filling && !l.destaging && !l.dirty();
    if (evictable == l.in_lru)
        return;
    if (!evictable) {
        lru_unlink(i);
        return;
    }
    l.lru_prev = lru_tail_;
    l.lru_next = kNone;
    (lru_tail_ == kNone ? lru_head_ : lines_[lru_tail_].lru_next) = i;
    lru_tail_ = i;
    l.in_lru = true;
    ++lru_len_;
}

void RaidController::add_waiter(uint32_t group, uint32_t cmd) {
    uint32_t w;
    if (waiter_free_ != kNone) {
        w = waiter_free_;
        waiter_free_ = waiters_[w].next;
    } else {
        w = static_cast<uint32_t>(waiters_.size());
        waiters_.push_back({});
    }
    waiters_[w] = {cmd, groups_[group].waiters};
    groups_[group].waiters = w;
    ++cmds_[cmd].pending;
}

// Lines [no0, no0 + n) (inside one strip) are read from a disk; `waiter` (a host read, or
// kNone for read-ahead) waits for them.
void RaidController::fill_lines(uint64_t no0, uint32_t n, uint32_t waiter, Time now) {
    const uint32_t g = new_group(Group::Kind::FILL);
    groups_[g].line0 = no0;
    groups_[g].nlines = n;
    for (uint32_t j = 0; j < n; ++j) {
        Line* l = get_line(no0 + j, now);
        l->filling = true;
        l->fill_group = g;
        lru_update(static_cast<uint32_t>(l - lines_.data()));
    }
    if (waiter != kNone)
        add_waiter(g, waiter);
    Piece p;
    map(no0 * line_sectors_, n * line_sectors_, &p, false);
    stats_.lines_filled += n;
    issue(g, p, false, now);
}

// Read-ahead (rdcache=ra): a read continuing a recent stream keeps read_ahead_kb filled
// ahead of it, topped up when the stream has used half of it.
void RaidController::prefetch(uint64_t sector, uint32_t nsect, Time now) {
    const uint64_t end = sector + nsect;
    Stream* st = nullptr;
    for (Stream& s : streams_)
        if (s.last_use >= 0 && sector + line_sectors_ >= s.next && sector <= s.next + line_sectors_) {
            st = &s;
            break;
        }
    if (!st) {
        // A new stream replaces the least recently used one; no read-ahead yet.
        st = &*std::min_element(streams_.begin(), streams_.end(),
                                [](const Stream& a, const Stream& b) { return a.last_use < b.last_use; });
        *st = {end, end, now.ns()};
        return;
    }
    st->last_use = now.ns();
    st->next = std::max(st->next, end);
    const uint64_t ra = static_cast<uint64_t>(cfg_.read_ahead_kb) * 2;
    if (st->ra_end >= end + ra / 2)
        return;
    const uint64_t from = std::max(st->ra_end, end), to = std::min(end + ra, capacity_);
    st->ra_end = to;
    uint64_t run0 = 0;
    uint32_t run = 0;
    const uint64_t l0 = from / line_sectors_, l1 = (to + line_sectors_ - 1) / line_sectors_;
    for (uint64_t no = l0; no <= l1; ++no) {
        const Line* l = no < l1 ? lookup(no) : nullptr;
        const bool absent = no < l1 && l == nullptr;
        const bool same_strip = run > 0 && (no * line_sectors_) / strip_sectors_ == (run0 * line_sectors_) / strip_sectors_;
        if (run > 0 && (!absent || !same_strip)) {
            if (run > lines_available())
                return;
            stats_.lines_prefetched += run;
            fill_lines(run0, run, kNone, now);
            run = 0;
        }
        if (absent) {
            if (run == 0)
                run0 = no;
            ++run;
        }
    }
}

void RaidController::mark_dirty(Line& l, uint32_t lo, uint32_t hi, Time now) {
    const auto i = static_cast<uint32_t>(&l - lines_.data());
    if (!l.dirty()) {
        l.dirty_lo = lo;
        l.dirty_hi = hi;
        l.dirty_since = now.ns();
        ++nr_dirty_;
        stats_.dirty_lines_max = std::max(stats_.dirty_lines_max, nr_dirty_);
    } else {
        l.dirty_lo = std::min(l.dirty_lo, lo);
        l.dirty_hi = std::max(l.dirty_hi, hi);
    }
    if (lo == 0 && hi == line_sectors_)
        l.valid = true;  // a full-line write brings the whole line in
    if (l.destaging)
        l.redirtied = true;
    else if (!l.in_dirty_set) {
        dirty_.insert(l);
        l.in_dirty_set = true;
    }
    lru_update(i);
    if (!flush_armed_) {
        flush_armed_ = true;
        eq_.at<&RaidController::flush_timer>(now + cfg_.flush_interval, this);
    }
}

// The cache flush interval: whatever is dirty then is written out.
void RaidController::flush_timer(uint64_t) {
    flush_armed_ = false;
    if (nr_dirty_ == 0)
        return;
    flushing_ = true;
    maybe_destage(eq_.now());
    flush_armed_ = true;
    eq_.at<&RaidController::flush_timer>(eq_.now() + cfg_.flush_interval, this);
}

void RaidController::maybe_destage(Time now) {
    while (destaging_ < destage_depth_ && !dirty_.empty() &&
           (flushing_ || nr_dirty_ > destage_start_ || stalled_head_ != kNone))
        if (!destage_one(now))
            break;
    if (dirty_.empty())
        flushing_ = false;
}

// Destages the next dirty run at or after the sweep's cursor (wrapping to the lowest):
// contiguous dirty data inside one strip as one disk write (RAID 1/10: one per mirror;
// RAID 5: a read-modify-write, or the whole row when all of it is dirty).
bool RaidController::destage_one(Time now) {
    auto it = dirty_.lower_bound(destage_cursor_);
    if (it == dirty_.end())
        it = dirty_.begin();
    if (cfg_.level == RaidConfig::Level::RAID5 && destage_full_stripe(it->no, now))
        return true;
    Line* first = &*it;
    const uint64_t strip_of_first = first->no * line_sectors_ / strip_sectors_;
    uint32_t n = 1;
    Line* last = first;
    for (auto nx = std::next(it); nx != dirty_.end(); ++nx) {
        Line& l = *nx;
        if (l.no != last->no + 1 || l.no * line_sectors_ / strip_sectors_ != strip_of_first ||
            last->dirty_hi != line_sectors_ || l.dirty_lo != 0)
            break;
        last = &l;
        ++n;
    }
    const uint64_t s0 = first->no * line_sectors_ + first->dirty_lo;
    const uint64_t s1 = last->no * line_sectors_ + last->dirty_hi;
    const uint32_t g = begin_destage(first->no, n);
    Piece p[2];
    const uint32_t k = map(s0, static_cast<uint32_t>(s1 - s0), p, true);
    if (cfg_.level == RaidConfig::Level::RAID5) {
        Group& gr = groups_[g];
        gr.rmw = true;
        gr.rmw_member = p[0].member;
        gr.rmw_lba = p[0].lba;
        gr.rmw_nsect = p[0].nsect;
        gr.rmw_parity = parity_of(p[0]).member;
        ++stats_.rmw;
        issue(g, p[0], false, now);
        issue(g, parity_of(p[0]), false, now);
        return true;
    }
    for (uint32_t i = 0; i < k; ++i)
        issue(g, p[i], true, now);
    return true;
}

// RAID 5 full-stripe write: when every line of the row holding line `no` is dirty from end
// to end, the row's data and its parity, computed by the firmware, are written without
// reading anything. False (nothing done) when the row is not wholly dirty.
bool RaidController::destage_full_stripe(uint64_t no, Time now) {
    const uint64_t row_lines = static_cast<uint64_t>(data_members()) * strip_sectors_ / line_sectors_;
    const uint64_t r0 = no / row_lines * row_lines;
    for (uint64_t i = r0; i < r0 + row_lines; ++i) {
        const Line* l = lookup(i);
        if (!(l && l->in_dirty_set && l->dirty_lo == 0 && l->dirty_hi == line_sectors_))
            return false;
    }
    const uint32_t g = begin_destage(r0, static_cast<uint32_t>(row_lines));
    ++stats_.full_stripe_writes;
    pieces_.resize(data_members() + 1);
    const uint32_t k = map(r0 * line_sectors_, static_cast<uint32_t>(row_lines * line_sectors_), pieces_.data(), true);
    const Piece parity = parity_of(pieces_[0]);
    fw_run(now, cfg_.xor_per_kb * static_cast<int64_t>(row_lines * cfg_.cache_line_kb));
    for (uint32_t i = 0; i < k; ++i)
        issue(g, pieces_[i], true, now);
    issue(g, {parity.member, parity.lba - parity.lba % strip_sectors_, strip_sectors_}, true, now);
    return true;
}

// Takes lines no0 .. no0 + n - 1 out of the dirty set into a new destage group (they stay
// cached, marked destaging until its disk writes end) and moves the sweep's cursor past them.
uint32_t RaidController::begin_destage(uint64_t no0, uint32_t n) {
    const uint32_t g = new_group(Group::Kind::DESTAGE);
    groups_[g].line0 = no0;
    groups_[g].nlines = n;
    for (uint64_t no = no0; no < no0 + n; ++no) {
        Line* l = lookup(no);
        dirty_.erase(dirty_.iterator_to(*l));
        l->in_dirty_set = false;
        l->destaging = true;
    }
    ++destaging_;
    stats_.lines_destaged += n;
    destage_cursor_ = no0 + n;
    return g;
}

void RaidController::resume_stalled(Time now) {
    while (stalled_head_ != kNone) {
        const uint32_t slot = stalled_head_;
        const HostCmd& c = cmds_[slot];
        const Extent e = extent_of(*c.rq);
        if (!write_fits(e.l1 - e.l0))
            return;
        stalled_head_ = c.next_stalled;
        if (stalled_head_ == kNone)
            stalled_tail_ = kNone;
        start_write(slot, now);
    }
}

// --- disk commands ---------------------------------------------------------------------

uint32_t RaidController::new_group(Group::Kind k) {
    uint32_t g;
    if (group_free_ != kNone) {
        g = group_free_;
        group_free_ = groups_[g].next_free;
    } else {
        g = static_cast<uint32_t>(groups_.size());
        groups_.push_back({});
    }
    groups_[g] = Group{};
    groups_[g].kind = k;
    return g;
}

void RaidController::issue(uint32_t group, const Piece& p, bool write, Time now) {
    uint32_t o;
    if (op_free_ != kNone) {
        o = op_free_;
        op_free_ = ops_[o].next;
    } else {
        o = static_cast<uint32_t>(ops_.size());
        ops_.push_back({});
    }
    ops_[o] = {group, p.member, kNone, p.lba, p.nsect, write};
    ++groups_[group].pending;
    if (write)
        ++stats_.member_writes;
    else
        ++stats_.member_reads;
    // The firmware builds the disk command; simplified: the disk sees it at once (the few
    // microseconds are charged to the firmware, delaying the host commands behind it).
    fw_run(now, cfg_.member_io_overhead);
    Member& m = members_[p.member];
    if (m.fifo_tail == kNone)
        m.fifo_head = o;
    else
        ops_[m.fifo_tail].next = o;
    m.fifo_tail = o;
    member_kick(p.member, now);
}

void RaidController::member_kick(uint32_t mi, Time now) {
    Member& m = members_[mi];
    while (m.in_flight < m.depth && m.fifo_head != kNone) {
        const uint32_t o = m.fifo_head;
        const uint32_t ri = rq_free_.back();
        rq_free_.pop_back();
        blkmq::Request& rq = op_rqs_[ri];
        rq.sector = ops_[o].lba;
        rq.nr_sectors = ops_[o].nsect;
        rq.op = ops_[o].write ? blkmq::ReqOp::WRITE : blkmq::ReqOp::READ;
        rq.ioprio_class = 0;
        rq_op_[ri] = o;
        if (m.dev->queue_rq(&rq, true, now, cfg_.irq_cpu) != BlkStatus::OK) {
            rq_free_.push_back(ri);  // the disk is full after all: wait for a completion
            return;
        }
        m.fifo_head = ops_[o].next;
        if (m.fifo_head == kNone)
            m.fifo_tail = kNone;
        m.in_flight_max = std::max(m.in_flight_max, ++m.in_flight);
    }
}

void RaidController::member_done_sink(void* obj, blkmq::Request* rq, Time now) {
    static_cast<RaidController*>(obj)->member_done(rq, now);
}

void RaidController::member_done(blkmq::Request* rq, Time now) {
    const auto ri = static_cast<uint32_t>(rq - op_rqs_.data());
    const uint32_t o = rq_op_[ri];
    rq_op_[ri] = kNone;
    rq_free_.push_back(ri);
    const uint32_t mi = ops_[o].member;
    const uint32_t g = ops_[o].group;
    ops_[o].next = op_free_;
    op_free_ = o;
    --members_[mi].in_flight;
    if (--groups_[g].pending == 0)
        group_done(g, now);
    member_kick(mi, now);
}

void RaidController::group_done(uint32_t g, Time now) {
    Group& gr = groups_[g];
    if (gr.rmw) {
        // RAID 5: old data and parity are in; XOR, then write data and new parity.
        gr.rmw = false;
        fw_run(now, cfg_.xor_per_kb * static_cast<int64_t>(gr.rmw_nsect / 2 + 1));
        const Piece d{gr.rmw_member, gr.rmw_lba, gr.rmw_nsect};
        const Piece p{gr.rmw_parity, gr.rmw_lba, gr.rmw_nsect};
        issue(g, d, true, now);
        issue(g, p, true, now);
        return;
    }
    const Group done = gr;
    gr.next_free = group_free_;
    group_free_ = g;
    switch (done.kind) {
    case Group::Kind::FILL: {
        for (uint64_t no = done.line0; no < done.line0 + done.nlines; ++no) {
            Line* l = lookup(no);
            l->filling = false;
            l->valid = true;
            l->fill_group = kNone;
            lru_update(static_cast<uint32_t>(l - lines_.data()));
        }
        for (uint32_t w = done.waiters; w != kNone;) {
            const uint32_t next = waiters_[w].next;
            const uint32_t c = waiters_[w].cmd;
            waiters_[w].next = waiter_free_;
            waiter_free_ = w;
            if (--cmds_[c].pending == 0)
                host_finish(c, now);
            w = next;
        }
        // The filled lines are evictable now: a write waiting for lines may fit.
        resume_stalled(now);
        break;
    }
    case Group::Kind::HOST_READ:
    case Group::Kind::HOST_WRITE:
        if (--cmds_[done.host].pending == 0)
            host_finish(done.host, now);
        break;
    case Group::Kind::DESTAGE:
        for (uint64_t no = done.line0; no < done.line0 + done.nlines; ++no) {
            Line* l = lookup(no);
            l->destaging = false;
            if (l->redirtied) {
                l->redirtied = false;
                dirty_.insert(*l);
                l->in_dirty_set = true;
            } else {
                l->dirty_lo = l->dirty_hi = 0;
                --nr_dirty_;
            }
            lru_update(static_cast<uint32_t>(l - lines_.data()));
        }
        --destaging_;
        resume_stalled(now);
        maybe_destage(now);
        break;
    }
}

void RaidController::report(result::DeviceReport& r) const {
    const Stats& s = stats_;
    const uint64_t reads = s.read_hits + s.read_misses;
    r.model = "raid";
    r.add("level", static_cast<double>(static_cast<int>(cfg_.level == RaidConfig::Level::RAID5 ? 5
                                                          : cfg_.level == RaidConfig::Level::RAID10 ? 10
                                                          : cfg_.level == RaidConfig::Level::RAID1 ? 1 : 0)));
    r.add("members", static_cast<double>(members_.size()));
    r.add("reads", static_cast<double>(s.reads));
    r.add("writes", static_cast<double>(s.writes));
    r.add("fw_busy_pct", eq_.now().ns() > 0 ? 100.0 * static_cast<double>(s.fw_busy_ns) /
                                                  (static_cast<double>(eq_.now().ns()) * cfg_.fw_cores) : 0.0, 1);
    r.new_line();
    r.add("read_hits", static_cast<double>(s.read_hits));
    r.add("read_misses", static_cast<double>(s.read_misses));
    r.add("read_hit_ratio", reads ? static_cast<double>(s.read_hits) / static_cast<double>(reads) : 0.0, 4);
    r.add("lines_filled", static_cast<double>(s.lines_filled));
    r.add("lines_prefetched", static_cast<double>(s.lines_prefetched));
    r.new_line();
    r.add("lines_destaged", static_cast<double>(s.lines_destaged));
    r.add("dirty_lines_max", static_cast<double>(s.dirty_lines_max));
    r.add("write_stalls", static_cast<double>(s.write_stalls));
    r.add("full_stripe_writes", static_cast<double>(s.full_stripe_writes));
    r.add("rmw", static_cast<double>(s.rmw));
    r.new_line();
    r.add("member_reads", static_cast<double>(s.member_reads));
    r.add("member_writes", static_cast<double>(s.member_writes));
    r.add("uncached_reads", static_cast<double>(s.uncached_reads));
    // Each member's own figures (seek/rotation split, its cache), keys prefixed m<i>_.
    for (std::size_t i = 0; i < members_.size(); ++i) {
        result::DeviceReport mr;
        members_[i].dev->report(mr);
        for (const auto& line : mr.lines) {
            r.new_line();
            for (const auto& f : line)
                r.add(fmt::format("m{}_{}", i, f.key), f.value, f.decimals);
        }
    }
}

std::vector<std::string> RaidController::series_columns() const {
    std::vector<std::string> c = {"dirty_lines", "destaging"};
    for (const RaidMember& m : cfg_.members)
        c.push_back(m.name + ".queued");
    return c;
}

void RaidController::series_sample(std::span<double> out) const {
    out[0] = static_cast<double>(nr_dirty_);
    out[1] = destaging_;
    for (std::size_t i = 0; i < members_.size(); ++i)
        out[2 + i] = members_[i].in_flight;
}

std::string RaidController::check_idle() const {
    uint32_t free_slots = 0;
    for (uint32_t i = cmd_free_; i != kNone; i = cmds_[i].next_free)
        ++free_slots;
    if (free_slots != cfg_.queue_depth)
        return fmt::format("raid: {} host command(s) never completed", cfg_.queue_depth - free_slots);
    for (std::size_t i = 0; i < members_.size(); ++i) {
        const Member& m = members_[i];
        if (m.in_flight_max > m.depth)
            return fmt::format("raid: member {} held {} commands at once, above its depth of {}", i,
                               m.in_flight_max, m.depth);
        if (std::string why = m.dev->check_idle(); !why.empty() && m.in_flight == 0)
            return fmt::format("raid: member {}: {}", i, why);
    }
    return {};
}

}  // namespace blksim::dev

// --- the model's descriptor ---

namespace blksim::dev {
namespace {

using C = RaidConfig;
constexpr std::string_view kLevels[] = {"raid0", "raid1", "raid10", "raid5"};
constexpr int64_t kBlockSizes[] = {512, 4096};
constexpr kind::Param<C> kParams[] = {
    kind::choice<C>("level", kLevels, {}, [](C& c, int64_t v) { c.level = static_cast<C::Level>(v); },
                    [](const C& c) { return static_cast<int64_t>(c.level); },
                    "RAID level: raid0, raid1 (2 members), raid10 (even, >= 4) or raid5 (>= 3). Default {default}."),
    kind::integer("strip_kb", &C::strip_kb, 8, 1024,
                  "Strip size per member, KiB (storcli strip=), a multiple of cache_line_kb. Default {default}."),
    kind::integer("queue_depth", &C::queue_depth, 1, 4096,
                  "The virtual drive's queue depth as Linux sees it (tag set depth). Default {default}."),
    kind::one_of("blocksize", &C::blocksize, kBlockSizes, "Logical block size of the virtual drive. Default {default}."),
    kind::integer("fw_cores", &C::fw_cores, 1, 16, "Firmware processors serving host commands in parallel. Default {default}."),
    kind::time("cmd_overhead", &C::cmd_overhead,
               "Firmware time per host command. Default {default}. A time: integer nanoseconds or a string such as \"10us\".", 0),
    kind::time("write_overhead", &C::write_overhead,
               "Extra firmware time per host write (cache allocation, mirroring the data to the battery-backed copy). "
               "Default {default}. A time: integer nanoseconds or a string such as \"10us\".", 0),
    kind::time("member_io_overhead", &C::member_io_overhead,
               "Firmware time per command it sends to a member disk. Default {default}. A time: integer nanoseconds or a "
               "string such as \"10us\".", 0),
    kind::time("xor_per_kb", &C::xor_per_kb,
               "RAID 5 parity engine time per KiB. Default {default}. A time: integer nanoseconds or a string such as \"10us\".", 0),
    kind::integer("link_mbps", &C::link_bytes_per_s, 100, 100000, "Host link (PCIe) rate, MB/s. Default {default} (PCIe 3.0 x8).",
                  kind::kMB),
    kind::integer("cache_mb", &C::cache_mb, 1, 65536, "Cache size, MiB. Default {default}."),
    kind::integer("cache_line_kb", &C::cache_line_kb, 4, 1024, "Cache line, KiB. Default {default}."),
    kind::flag("write_back", &C::write_back,
               "Write policy: 1 = write back (wrcache=wb, battery-backed), 0 = write through. Default {default}."),
    kind::flag("read_ahead", &C::read_ahead, "Read policy: 1 = read ahead (rdcache=ra), 0 = no read ahead. Default {default}."),
    kind::integer("read_ahead_kb", &C::read_ahead_kb, 0, 1048576,
                  "How far ahead of a sequential stream the firmware reads, KiB. Default {default}."),
    kind::integer("dirty_pct", &C::dirty_pct, 1, 90, "Writes wait while this percentage of the cache is dirty. Default {default}."),
    kind::integer("destage_pct", &C::destage_pct, 0, 89,
                  "Destaging runs while more than this percentage is dirty (below dirty_pct). Default {default}."),
    kind::time("flush_interval", &C::flush_interval,
               "Dirty data older than this (the cache flush interval) is written out. Default {default}. A time: integer "
               "nanoseconds or a string such as \"10us\".", 0),
    kind::integer("member_queue_depth", &C::member_queue_depth, 1, 256,
                  "Commands the firmware keeps in each member disk. Default {default}."),
    kind::integer("nr_hw_queues", &C::nr_hw_queues, 0, 1024,
                  "Hardware queues (hctxs) megaraid_sas registers: with more than one (host_tagset_enable=1, kernels "
                  "from 5.11) they share one host-wide tag space and each has its reply queue, interrupting the hctx's "
                  "first CPU; 1 = one queue, interrupts on irq_cpu (host_tagset_enable=0, or kernels before 5.11); 0 = "
                  "one per CPU. Capped at the number of CPUs. Default {default}."),
    kind::integer("irq_cpu", &C::irq_cpu, 0, 4095, "CPU the completion interrupt goes to. Default {default}."),
};

class RaidKind final : public DeviceKindOf<C> {
public:
    using DeviceKindOf<C>::DeviceKindOf;
    std::string check_complete(const ModelParams& p) const override { return RaidController::check_config(of(p)); }
    bool has_members() const override { return true; }
    void add_member(ModelParams& p, std::string name, ModelParams member) const override {
        std::any_cast<C&>(p.config()).members.push_back({std::move(name), std::move(member)});
    }
};

constinit const RaidKind kKind{
    "raid",
    "hardware RAID controller (MegaRAID SAS3508 class) exporting one VD over member disks: firmware cores, "
    "LRU cache with read-ahead, write back with C-SCAN destage, RAID 0/1/10/5, megaraid_sas's hctxs",
    "The hardware RAID controller model's parameters (models/device/raid_config.h RaidConfig); defaults: a "
    "MegaRAID SAS3508-class card.",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t nr_cpus, BuildCache& cache) -> std::unique_ptr<Device> {
         return std::make_unique<RaidController>(eq, c, nr_cpus, &cache);
     },
     .geometry = [](const C& c) {
         return DeviceGeometry{raid_capacity_sectors(c) * 512, c.blocksize, c.nr_hw_queues, c.queue_depth};
     },
     .validate = [](const C& c, uint32_t nr_cpus) {
         if (kind::Problem p = kind::check_irq_cpu(c.irq_cpu, nr_cpus)) return p;
         if (c.flush_interval.count() <= 0) return kind::Problem{"flush_interval", "flush_interval must be > 0"};
         return kind::Problem{};
     }}};

}  // namespace

const DeviceKind& raid_kind() { return kKind; }

}  // namespace blksim::dev
