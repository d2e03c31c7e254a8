#include "models/device/hdd.h"

#include "models/device/build_cache.h"
#include "models/device/device_kind.h"
#include "models/device/hdd_rpo.h"

#include <algorithm>
#include <stdexcept>

#include "models/result/device_report.h"

namespace blksim::dev {

using sim::Duration;
using sim::Time;

namespace {
constexpr uint8_t IOPRIO_CLASS_RT = 1;
}

template <uint32_t Cap>
void Hdd::CmdQueue<Cap>::push(const Cmd& c) {
    const uint32_t i = n++;
    cyl[i] = static_cast<float>(c.pos.cylinder);
    head[i] = static_cast<float>(c.pos.head);
    angle[i] = static_cast<float>(c.pos.angle_ns);
    write[i] = c.write ? 1.0f : 0.0f;
    high[i] = c.high ? 1.0f : 0.0f;
    arrival[i] = c.arrival_ns;
    if (i < cmd.size())
        cmd[i] = c;
    else
        cmd.push_back(c);
    n_high += c.high;
    if (i == 0 || c.arrival_ns < arrival[oldest])
        oldest = i;
}

template <uint32_t Cap>
void Hdd::CmdQueue<Cap>::refresh(uint32_t i) {
    cyl[i] = static_cast<float>(cmd[i].pos.cylinder);
    head[i] = static_cast<float>(cmd[i].pos.head);
    angle[i] = static_cast<float>(cmd[i].pos.angle_ns);
}

template <uint32_t Cap>
void Hdd::CmdQueue<Cap>::remove(uint32_t i) {
    n_high -= cmd[i].high;
    const uint32_t last = --n;
    if (i != last) {
        cyl[i] = cyl[last];
        head[i] = head[last];
        angle[i] = angle[last];
        write[i] = write[last];
        high[i] = high[last];
        arrival[i] = arrival[last];
        cmd[i] = cmd[last];
    }
    if (oldest == i) {
        oldest = 0;
        for (uint32_t j = 1; j < n; ++j)
            if (arrival[j] < arrival[oldest])
                oldest = j;
    } else if (oldest == last) {
        oldest = i;
    }
}

Hdd::Hdd(sim::EventQueue& eq, const HddConfig& cfg, const HddMechanics& mech)
    : eq_(eq),
      cfg_(cfg),
      mech_(mech),
      prio_(cfg.ncq_prio_enable && cfg.ncq_prio_supported),
      settle_ns_(cfg.write_settle.count()),
      overhead_ns_(cfg.cmd_overhead.count()),
      max_wait_ns_(cfg.max_wait.count()),
      age_weight_(cfg.age_weight) {
    if (cfg.queue_depth == 0 || cfg.queue_depth > kMaxQueue)
        throw std::invalid_argument("hdd: queue_depth must be 1..128 (SATA NCQ: 32, SAS TCQ deeper)");
    if (cfg.cache_segments == 0 || cfg.cache_segments > kMaxSegments)
        throw std::invalid_argument("hdd: cache_segments must be 1..64");
    if (cfg.link_bytes_per_s == 0)
        throw std::invalid_argument("hdd: the link rate must be positive");
    if (!(cfg.age_weight >= 0))
        throw std::invalid_argument("hdd: age_weight must be 0 or more");
    const uint64_t cache_sectors = static_cast<uint64_t>(cfg.cache_mb) << 11;  // MiB → sectors
    // Half the buffer may hold dirty data; destaging takes priority from 3/4 of that on.
    dirty_limit_ = cfg.write_cache ? cache_sectors / 2 : 0;
    dirty_high_ = dirty_limit_ / 4 * 3;
    merge_limit_ = 2048;  // 1 MiB per dirty extent
    seg_.set_count(cfg.cache_segments);
    seg_sectors_ = std::max<uint64_t>(1, (cache_sectors - dirty_limit_) / seg_.n);
    if (cfg.segment_sectors > 0) {
        // A measured drive's segmented buffer: fixed segments, dirty data limited to its
        // write segments.
        seg_sectors_ = cfg.segment_sectors;
        dirty_limit_ = cfg.write_cache ? static_cast<uint64_t>(cfg.segment_sectors) * std::max(1u, cfg.write_segments) : 0;
        dirty_high_ = dirty_limit_ / 4 * 3;
        merge_limit_ = dirty_limit_;
    }
    sector_xfer_ns_ = cfg.sector_xfer.count();
    if (cfg.physical_block_size % 512 != 0)
        throw std::invalid_argument("hdd: physical_block_size must be a multiple of 512");
    // A drive records at least its logical block: blocksize 4096 is a 4Kn drive.
    phys_sectors_ = std::max(cfg.physical_block_size, cfg.blocksize) / 512;
    ra_sectors_ = std::min<uint64_t>(static_cast<uint64_t>(cfg.read_ahead_kb) * 2, seg_sectors_);
    stream_ra_sectors_ = std::min<uint64_t>(static_cast<uint64_t>(cfg.stream_read_ahead_kb) * 2, seg_sectors_);
}

// --- commands ------------------------------------------------------------------------------

void Hdd::set_extent(Cmd& c) const {
    c.pos = mech_.locate(c.lba);
    const uint32_t spt = mech_.zone_sectors_per_track(c.pos.zone);
    if (c.pos.sector + c.nsect <= spt) {  // on one track: the common case
        c.end_cyl = c.pos.cylinder;
        c.end_head = c.pos.head;
        c.media_ns = static_cast<int64_t>(static_cast<uint64_t>(c.nsect) * static_cast<uint64_t>(mech_.revolution_ns()) / spt);
        return;
    }
    const HddPosition e = mech_.locate(c.lba + c.nsect - 1);
    c.end_cyl = e.cylinder;
    c.end_head = e.head;
    c.media_ns = mech_.media_ns(c.lba, c.nsect);
}

Hdd::Cmd Hdd::make_cmd(blkmq::Request* rq, uint64_t lba, uint32_t nsect, bool write, bool high, Time now) const {
    Cmd c;
    c.rq = rq;
    c.lba = lba;
    c.nsect = nsect;
    c.write = write;
    c.high = high;
    c.arrival_ns = now.ns();
    set_extent(c);
    return c;
}

BlkStatus Hdd::queue_rq(blkmq::Request* rq, bool /*last*/, Time now, uint32_t /*cpu*/) {
    // (A FLUSH CACHE in the drive: ata_std_qc_defer holds every command back until it ends.)
    if (in_drive_ >= cfg_.queue_depth || flush_cmd_)
        return BlkStatus::DEV_RESOURCE;  // the tag depth keeps the first from happening
    if (rq->op == blkmq::ReqOp::FLUSH) [[unlikely]]
        return queue_flush(rq, now);
    if (q_)
        q_->start_request(rq, now);
    ++stats_.commands;
    depth_change(now, +1);
    const uint64_t lba = std::min(rq->sector, mech_.capacity_sectors() - 1);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(rq->nr_sectors, mech_.capacity_sectors() - lba));
    const bool write = rq->op == blkmq::ReqOp::WRITE;
    const bool high = prio_ && rq->ioprio_class == IOPRIO_CLASS_RT;
    stats_.high_prio += high;

    const bool after_write = last_write_;
    last_write_ = write;
    seq_ = lba == last_end_;
    last_end_ = lba + n;
    if (!write) {
        if (const int s = find_hit(lba, lba + n, now); s >= 0) {
            serve_hit(rq, s, fw_run(now, overhead_ns(false, true, after_write)));
            return BlkStatus::OK;
        }
        if (stream_hit(rq, lba, lba + n, now, overhead_ns(false, true, after_write)) ||
            ahead_hit(rq, lba, lba + n, now, overhead_ns(false, true, after_write)))
            return BlkStatus::OK;
    } else {
        invalidate(lba, lba + n, now);
        stats_.fua_writes += rq->fua();
        // A destage chosen ahead of data this write replaces is not started yet: back to the
        // dirty extents, so the write merges with it rather than making a second copy.
        const bool released =
            release_next_destage(!rq->fua() && lba < next_.lba + next_.nsect && next_.lba < lba + n);
        if (!rq->fua() && add_dirty(lba, n, now)) {
            // Write back: acknowledged once the data is in the buffer.
            ++stats_.write_back_acks;
            const int64_t ovh = overhead_ns(true, true, after_write);
            if (cfg_.read_hits_on_write_data)
                insert_read(lba, lba + n, now, false);  // the buffer keeps it for reads
            const Time done = sim::max(fw_run(now, ovh), link_free_) + Duration::ns(xfer_ns(n));
            link_free_ = done;
            eq_.at<&Hdd::host_done>(done, this, reinterpret_cast<uint64_t>(rq));
            if (!busy_)
                dispatch(now);  // the head may destage while idle
            else if (released)
                choose_ahead();
            return BlkStatus::OK;
        }
    }
    // A command for the head takes the place of a destage chosen ahead as idle work (not
    // when destages compete with the host's commands, past the high mark, or a flush waits).
    const bool released = release_next_destage(!flush_pending_ && !dirty_high());
    host_.push(make_cmd(rq, lba, n, write, high, now));
    if (!busy_)
        dispatch(now + Duration::ns(overhead_ns(write, false, after_write)));
    else if (released)
        choose_ahead();
    return BlkStatus::OK;
}

// Choose among the queued commands for a head that is free at t_free on (cyl, head).
template <uint32_t Cap>
int Hdd::pick(const CmdQueue<Cap>& q, uint32_t cyl, uint32_t head, Time t_free, float* cost) {
    const bool high_only = prio_ && q.n_high > 0;
    if (cost)
        *cost = 0.0f;
    if (aged(q, t_free)) {
        ++stats_.aged;
        explain_(eq_.now(), "hdd: lba {} waited {} us, past the aging bound: served first among {} queued",
                 q.cmd[q.oldest].lba, (t_free.ns() - q.arrival[q.oldest]) / 1000, q.n);
        return static_cast<int>(q.oldest);
    }
    if (cfg_.sched == HddConfig::Sched::FIFO) {
        if (!high_only)
            return static_cast<int>(q.oldest);
        int best = -1;
        for (uint32_t i = 0; i < q.n; ++i)
            if (q.cmd[i].high && (best < 0 || q.arrival[i] < q.arrival[static_cast<uint32_t>(best)]))
                best = static_cast<int>(i);
        return best;
    }
    // Aged RPO weighs the host's commands by their wait; dirty data has no one waiting on it.
    const float* credit = nullptr;
    if constexpr (Cap == kMaxQueue)
        if (age_weight_ > 0)
            credit = age_credits(q, t_free);
    if (!explain_ || q.n < 2)
        return pick_rpo(q, cyl, head, mech_.phase_ns(t_free), high_only, credit, cost);
    float c = 0.0f;
    const int i = pick_rpo(q, cyl, head, mech_.phase_ns(t_free), high_only, credit, &c);
    if (cost)
        *cost = c;
    explain_(eq_.now(), "hdd: rpo picks {} lba {} among {} queued{}: {} {} us",
             Cap == kMaxQueue ? "command" : "destage", q.cmd[static_cast<uint32_t>(i)].lba, q.n,
             high_only ? " (high priority only)" : "", credit ? "positioning less age credit" : "positioning",
             static_cast<int64_t>(c) / 1000);
    return i;
}

// RPO: the shortest positioning time, seek (or head switch, + write settle) plus the
// rotational wait from where the platter will be after it, computed in float (hdd_rpo.h);
// ties go to the lower index, so the choice is deterministic. The chosen command's timing is
// then worked out exactly, in integer nanoseconds (start_op).
template <uint32_t Cap>
int Hdd::pick_rpo(const CmdQueue<Cap>& q, uint32_t cyl, uint32_t head, int64_t phase0, bool high_only,
                  const float* credit, float* cost_out) const {
    const RpoModel m = rpo_model(mech_, settle_ns_, cyl, head, phase0);
    const RpoCandidates c{q.cyl.data(), q.head.data(), q.angle.data(), q.write.data(), q.high.data(), q.n};
    return rpo_scan(c, m, high_only, credit, cost_out);
}

// Aged RPO's credit of each queued host command at t_free: age_weight times its wait. Ages
// are below max_wait (or the run's length), exact enough in float against positioning
// times of milliseconds.
const float* Hdd::age_credits(const CmdQueue<kMaxQueue>& q, Time t_free) {
    for (uint32_t i = 0; i < q.n; ++i)
        age_credit_[i] = static_cast<float>(age_weight_ * static_cast<double>(t_free.ns() - q.arrival[i]));
    return age_credit_.data();
}

bool Hdd::choose(Time t_free, uint32_t cyl, uint32_t head, Cmd& out) {
    const auto take = [&out](auto& q, int i) {
        out = q.cmd[static_cast<uint32_t>(i)];
        q.remove(static_cast<uint32_t>(i));
        return true;
    };
    if (dirty_.n == 0 && host_.n == 0)
        return false;
    // Destaging: when a flush asks for it, or when the head has nothing else to do.
    if (dirty_.n > 0 && (flush_pending_ || host_.n == 0))
        return take(dirty_, pick(dirty_, cyl, head, t_free, nullptr));
    // Past 3/4 of the dirty limit (in sectors or extents) destages compete with the host's
    // commands: the better positioned goes first, unless a host command has aged.
    if (dirty_.n > 0 && dirty_high() && !aged(host_, t_free)) {
        float ch = 0, cd = 0;
        const int h = pick(host_, cyl, head, t_free, &ch);
        const int d = pick(dirty_, cyl, head, t_free, &cd);
        return cd < ch || cfg_.sched == HddConfig::Sched::FIFO ? take(dirty_, d) : take(host_, h);
    }
    return take(host_, pick(host_, cyl, head, t_free, nullptr));
}

// The destage chosen ahead (seek-ahead), if that is what was chosen and `when`, goes back to
// the dirty extents, not started. Whether it did.
bool Hdd::release_next_destage(bool when) {
    if (!when || !have_next_ || next_.rq)
        return false;
    dirty_.push(next_);
    have_next_ = false;
    return true;
}

// Seek-ahead: the command for when the operation in service ends (op_done_), chosen as it
// starts, and again when the choice was released.
void Hdd::choose_ahead() {
    if (busy_ && cfg_.sched_lookahead > 0 && !have_next_)
        have_next_ = choose(op_done_, head_cyl_, head_head_, next_);
}

// The head is idle; start what there is, from t_free on (now, plus the command overhead
// when a command finds the drive idle).
void Hdd::dispatch(Time t_free) {
    Cmd c;
    while (!busy_ && choose(t_free, head_cyl_, head_head_, c)) {
        // Only read-ahead brings data in while a command waits (the head was idle): the
        // command may be a hit after all, or find its start read already.
        const int ra = ra_seg_;
        if (ra >= 0) {
            if (c.rq && !c.write && seg_.start[static_cast<uint32_t>(ra)] <= c.lba &&
                c.lba + c.nsect <= seg_end(static_cast<uint32_t>(ra), t_free)) {
                serve_hit(c.rq, ra, t_free);
                continue;
            }
            stop_read_ahead(t_free);
            const uint64_t sg_start = seg_.start[static_cast<uint32_t>(ra)], sg_end = seg_.end[static_cast<uint32_t>(ra)];
            if (c.rq && !c.write && sg_start <= c.lba && c.lba < sg_end) {
                // Read only the rest. The buffered head of the request still crosses the
                // host link: it goes first, while the head moves on to the rest.
                const uint64_t cached = sg_end - c.lba;
                link_free_ = sim::max(t_free, link_free_) + Duration::ns(xfer_ns(cached));
                c.nsect = static_cast<uint32_t>(c.lba + c.nsect - sg_end);
                c.lba = sg_end;
                set_extent(c);
            }
        }
        start_op(c, t_free);
    }
}

void Hdd::start_op(const Cmd& cmd, Time t_free) {
    // A host command starts no earlier than it reached the drive: the host's dispatch loop
    // can stamp a command a little ahead of the clock (its ->queue_rq in a round played out
    // inline), and the head freed at an event before that stamp must not serve it early.
    if (cmd.rq)
        t_free = sim::max(t_free, Time::from_ns(cmd.arrival_ns));
    cur_ = cmd;  // (cmd may be next_, which the seek-ahead below overwrites)
    const Cmd& c = cur_;
    int64_t s = mech_.move_ns(head_cyl_, head_head_, c.pos.cylinder, c.pos.head);
    if (c.write && s > 0)
        s += settle_ns_;
    int64_t before = s;
    if (c.write && c.rq) {
        // The data must be in the buffer first, over the host link, which cache-hit
        // transfers and acknowledgements share.
        const Time xfer_end = sim::max(t_free, link_free_) + Duration::ns(xfer_ns(c.nsect));
        link_free_ = xfer_end;
        before = std::max(s, (xfer_end - t_free).count());
    }
    const Time ready = t_free + Duration::ns(before);
    const int64_t w = mech_.rotational_wait_ns(ready, c.pos.angle_ns);
    const Time start = ready + Duration::ns(w);
    if (cfg_.read_free_blocks && c.rq && !c.write) {
        // The head reads the track from where it lands: the sectors before the first
        // requested one that pass in the wait (on this track) go into the segment too.
        const uint64_t spt = mech_.zone_sectors_per_track(c.pos.zone);
        const uint64_t passed = static_cast<uint64_t>(w) * spt / static_cast<uint64_t>(mech_.revolution_ns());
        cur_.free_before = static_cast<uint32_t>(std::min<uint64_t>({passed, c.pos.sector, c.lba}));
    }
    // A write covering part of a physical sector (512e) reads that sector as the head
    // passes and writes the whole of it a revolution later.
    const int64_t rmw = c.write && needs_rmw(c, start) ? mech_.revolution_ns() : 0;
    stats_.rmw_writes += rmw > 0;
    Time done = start + Duration::ns(rmw + c.media_ns);
    if (!c.write)
        done = sim::max(done, start + Duration::ns(xfer_ns(c.nsect) +
                                                 // a slower bus sends each sector once it is read
                                                 (sector_xfer_ns_ > 0 ? c.media_ns / std::max(1u, c.nsect) : 0)));
    // A stream's read reads on into its segment before the head moves to the waiting
    // commands; the request itself is answered once its own data has crossed the link.
    Time op_done = done;
    cur_.ahead = c.rq && !c.write ? stream_ahead(c) : 0;
    if (c.ahead > 0) {
        op_done = sim::max(done, start + Duration::ns(mech_.media_ns(c.lba, c.nsect + c.ahead)));
        ahead_valid_ = true;
        ++stats_.stream_aheads;
        const Time sent = sim::max(done, link_free_ + Duration::ns(xfer_ns(c.nsect)));
        link_free_ = sent;
        eq_.at<&Hdd::host_done>(sent, this, reinterpret_cast<uint64_t>(c.rq));
    }
    cur_start_ = start;
    const uint64_t sector = c.rq ? c.rq->sector : 0;
    // The phases as the statistics below split them: the wait for a write's data over the
    // host link beyond the seek counts as transfer.
    trace_phase("seek", t_free, t_free + Duration::ns(s), sector);
    if (before > s)
        trace_phase("data in", t_free + Duration::ns(s), ready, sector);
    trace_phase("rotation", ready, start, sector);
    if (rmw > 0)
        trace_phase("read-modify-write", start, start + Duration::ns(rmw), sector);
    trace_phase(!c.rq ? "destage" : c.write ? "write" : "read", start + Duration::ns(rmw), done, sector);
    if (op_done > done)
        trace_phase("read-ahead", done, op_done, sector);
    count_op(c, s, w + rmw, (op_done - start).count() + (before - s));
    busy_ = true;
    head_cyl_ = c.end_cyl;
    head_head_ = c.end_head;
    if (c.ahead > 0) {
        const HddPosition e = mech_.locate(c.lba + c.nsect + c.ahead - 1);
        head_cyl_ = e.cylinder;
        head_head_ = e.head;
    }
    op_done_ = op_done;
    eq_.at<&Hdd::op_end>(op_done, this, 0);
    choose_ahead();  // seek-ahead: the next command is chosen now, for when this one ends
}

void Hdd::count_op(const Cmd& c, int64_t seek_ns, int64_t rotation_ns, int64_t transfer_ns) {
    ++stats_.media_ops;
    stats_.seek_ns += seek_ns;
    stats_.rotation_ns += rotation_ns;
    stats_.transfer_ns += transfer_ns;
    if (c.rq)
        (c.write ? stats_.write_through : stats_.read_misses) += 1;
    else {
        ++stats_.destages;
        stats_.destages_over_host += host_.n > 0;  // a destage the head took while a host command waited
    }
}

void Hdd::op_end(uint64_t) {
    const Time now = eq_.now();
    const Cmd fin = cur_;
    busy_ = false;
    if (fin.rq == nullptr) {
        // A destage: the extent is clean now.
        dirty_sectors_ -= fin.nsect;
        if (flush_pending_ && clean()) {
            flush_pending_ = false;
            ++stats_.flushes;
            eq_.schedule(now, flush_fn_, flush_obj_, flush_arg_);
        }
    } else if (!fin.write) {
        insert_read(fin.lba, fin.lba + fin.nsect + (ahead_valid_ ? fin.ahead : 0), now,
                    !have_next_ && host_.n == 0 && dirty_.n == 0);
        if (fin.free_before > 0) {
            for (uint32_t i = 0; i < seg_.n; ++i) {
                if (seg_.start[i] <= fin.lba && fin.lba < seg_.end[i]) {  // the read's segment: extend it back
                    const uint64_t lo = seg_.end[i] > seg_sectors_ ? seg_.end[i] - seg_sectors_ : 0;
                    seg_.start[i] = std::max(lo, std::min(seg_.start[i], fin.lba - fin.free_before));
                    break;
                }
            }
        }
    }
    // The next command: the one chosen ahead, else a choice now.
    if (have_next_) {
        have_next_ = false;
        start_op(next_, now);  // (no read-ahead ran: the head was never idle)
    } else {
        dispatch(now);
    }
    if (fin.rq == nullptr)
        return;
    if (fin.write) {
        complete(fin.rq, now);
        return;
    }
    if (fin.ahead > 0)
        return;  // answered when its own data was read (start_op)
    // A read's data leaves over the host link as it is read; the link is shared with
    // cache-hit transfers, so its last bytes go no earlier than the link has room for them.
    const Time sent = sim::max(now, link_free_ + Duration::ns(xfer_ns(fin.nsect)));
    link_free_ = sent;
    if (sent > now)
        eq_.at<&Hdd::host_done>(sent, this, reinterpret_cast<uint64_t>(fin.rq));
    else
        complete(fin.rq, now);
}

// --- completions ---------------------------------------------------------------------------

void Hdd::host_done(uint64_t rq_addr) { complete(reinterpret_cast<blkmq::Request*>(rq_addr), eq_.now()); }

void Hdd::complete(blkmq::Request* rq, Time now) {
    depth_change(now, -1);
    end_request(q_, rq, now, cfg_.irq_cpu);
}

void Hdd::depth_change(Time now, int delta) {
    stats_.depth_area_ns += static_cast<double>(in_drive_) * static_cast<double>((now - depth_since_).count());
    depth_since_ = now;
    in_drive_ = static_cast<uint32_t>(static_cast<int>(in_drive_) + delta);
    stats_.depth_max = std::max(stats_.depth_max, in_drive_);
}

double Hdd::mean_queue_depth(Time now) const {
    const double area = stats_.depth_area_ns + static_cast<double>(in_drive_) * static_cast<double>((now - depth_since_).count());
    return now.ns() > 0 ? area / static_cast<double>(now.ns()) : 0.0;
}

// FLUSH CACHE from the host: a non-NCQ command, deferred by libata while NCQ commands are
// in the drive; then the drive destages everything dirty and answers.
BlkStatus Hdd::queue_flush(blkmq::Request* rq, Time now) {
    if (in_drive_ > 0)
        return BlkStatus::DEV_RESOURCE;
    if (q_)
        q_->start_request(rq, now);
    ++stats_.commands;
    depth_change(now, +1);
    flush_cmd_ = true;
    flush(now, &Hdd::flush_done, this, reinterpret_cast<uint64_t>(rq));
    return BlkStatus::OK;
}

void Hdd::flush_done(void* self, uint64_t rq_addr) {
    auto* d = static_cast<Hdd*>(self);
    d->flush_cmd_ = false;
    d->complete(reinterpret_cast<blkmq::Request*>(rq_addr), d->eq_.now());
}

void Hdd::flush(Time now, sim::EventFn fn, void* obj, uint64_t arg) {
    if (flush_pending_)
        throw std::logic_error("hdd: a flush is already pending");
    if (clean()) {
        ++stats_.flushes;
        eq_.schedule(now + Duration::ns(overhead_ns_), fn, obj, arg);
        return;
    }
    flush_pending_ = true;
    flush_fn_ = fn;
    flush_obj_ = obj;
    flush_arg_ = arg;
    if (!busy_)
        dispatch(now + Duration::ns(overhead_ns_));
}

// --- cache ---------------------------------------------------------------------------------

uint64_t Hdd::frontier(Time t) const {
    return ra_lba0_ + mech_.sectors_in(ra_lba0_, (t - ra_t0_).count(), ra_limit_ - ra_lba0_);
}

uint64_t Hdd::seg_end(uint32_t i, Time t) const {
    return static_cast<int>(i) == ra_seg_ ? std::max(seg_.end[i], frontier(t)) : seg_.end[i];
}

int Hdd::find_hit(uint64_t lba, uint64_t end, Time t) const {
    // (An empty segment is [0, 0): it holds no range.)
    if (ra_seg_ >= 0 && seg_.start[static_cast<uint32_t>(ra_seg_)] <= lba &&
        end <= seg_end(static_cast<uint32_t>(ra_seg_), t))
        return ra_seg_;
    return seg_.holding(lba, end);
}

void Hdd::serve_hit(blkmq::Request* rq, int seg, Time t) {
    ++stats_.read_hits;
    const uint64_t end = rq->sector + rq->nr_sectors;
    const Time done = sim::max(t, link_free_) + Duration::ns(xfer_ns(rq->nr_sectors));
    link_free_ = done;
    on_hit(seg, end, t);
    eq_.at<&Hdd::host_done>(done, this, reinterpret_cast<uint64_t>(rq));
}

// A read the read-ahead is streaming towards: it starts inside the read-ahead segment, no
// further on than the stream's window, and the stream is still running. The drive
// keeps reading and answers once the last sector is in the buffer (the window slides on
// past it, as for a hit). Without this a sequential read larger than what the stream has
// read since the previous one ended would be a miss, queued behind a stopped head, and
// lose a revolution: sequential reads at queue depth 1 would run at one per revolution
// instead of the media rate, which read-ahead exists to avoid.
bool Hdd::stream_hit(blkmq::Request* rq, uint64_t lba, uint64_t end, Time now, int64_t overhead) {
    if (ra_seg_ < 0 || busy_)
        return false;
    const uint32_t ra = static_cast<uint32_t>(ra_seg_);
    const uint64_t f = frontier(now);
    if (lba < seg_.start[ra] || lba > ra_limit_ || f >= ra_limit_ || end > mech_.capacity_sectors())
        return false;
    ra_limit_ = std::max(ra_limit_, std::min(end + ra_sectors_, mech_.capacity_sectors()));
    const Time ready = ra_t0_ + Duration::ns(mech_.media_ns(ra_lba0_, end - ra_lba0_));
    ++stats_.read_hits;
    ++stats_.stream_hits;
    seg_.last_use[ra] = now.ns();
    const Time done = sim::max(sim::max(fw_run(now, overhead), ready), link_free_) +
                      Duration::ns(xfer_ns(static_cast<uint32_t>(end - lba)));
    link_free_ = done;
    eq_.at<&Hdd::host_done>(done, this, reinterpret_cast<uint64_t>(rq));
    return true;
}

// Whether a write leaves part of a physical sector unwritten (only on a 512e drive: the
// block layer keeps a 4Kn drive's I/O whole) and that sector's other data is not in a read
// segment: then the drive must read it from the media before it can write.
bool Hdd::needs_rmw(const Cmd& c, Time t) const {
    if (phys_sectors_ == 1)
        return false;
    const uint64_t end = c.lba + c.nsect;
    const uint64_t head = c.lba % phys_sectors_, tail = end % phys_sectors_;
    if (head == 0 && tail == 0)
        return false;
    const uint64_t lo = c.lba - head, hi = tail ? end - tail + phys_sectors_ : end;
    const auto cached = [&](uint64_t a, uint64_t b) { return find_hit(a, std::min(b, mech_.capacity_sectors()), t) >= 0; };
    if (head != 0 && tail != 0 && hi - lo == phys_sectors_)  // inside one physical sector
        return !cached(lo, hi);
    return (head != 0 && !cached(lo, lo + phys_sectors_)) || (tail != 0 && !cached(hi - phys_sectors_, hi));
}

// The sectors a read reads on past its own while the drive has other work (other host
// commands, whether queued, in service or being answered from the buffer, or dirty data):
// a read that continues one of the segments (a stream the drive has seen) gets
// stream_read_ahead_kb, unless the stream's next read is queued already (then the head
// reads that next anyway). Alone in the drive, the idle-head read-ahead serves the stream.
// With more interleaved streams than segments, LRU replaces each stream's segment before
// its reader comes back, nothing continues a segment and every read pays its positioning.
uint32_t Hdd::stream_ahead(const Cmd& c) const {
    const uint64_t end = c.lba + c.nsect;
    if (stream_ra_sectors_ == 0 || (in_drive_ < 2 && dirty_.n == 0) || end >= mech_.capacity_sectors())
        return 0;
    // A segment holding data ends past sector 0 (an empty one is [0, 0)), so a read from
    // sector 0 continues none, and otherwise an equal end is enough.
    if (c.lba == 0 || !seg_.continued_by(c.lba))
        return 0;
    for (uint32_t i = 0; i < host_.n; ++i)
        if (!host_.cmd[i].write && host_.cmd[i].lba == end)
            return 0;
    return static_cast<uint32_t>(std::min(stream_ra_sectors_, mech_.capacity_sectors() - end));
}

// A read inside what the head is reading for a stream (the request and its read-ahead):
// answered once its last sector is in the buffer.
bool Hdd::ahead_hit(blkmq::Request* rq, uint64_t lba, uint64_t end, Time now, int64_t overhead) {
    if (!busy_ || cur_.ahead == 0 || !ahead_valid_)
        return false;
    if (lba < cur_.lba || end > cur_.lba + cur_.nsect + cur_.ahead)
        return false;
    const Time ready = cur_start_ + Duration::ns(mech_.media_ns(cur_.lba, end - cur_.lba));
    ++stats_.read_hits;
    ++stats_.stream_hits;
    const Time done = sim::max(sim::max(fw_run(now, overhead), ready), link_free_) +
                      Duration::ns(xfer_ns(static_cast<uint32_t>(end - lba)));
    link_free_ = done;
    eq_.at<&Hdd::host_done>(done, this, reinterpret_cast<uint64_t>(rq));
    return true;
}

// A hit in the read-ahead segment slides the read-ahead window on.
void Hdd::on_hit(int seg, uint64_t end, Time now) {
    seg_.last_use[static_cast<uint32_t>(seg)] = now.ns();
    if (seg != ra_seg_)
        return;
    const uint64_t want = std::min(end + ra_sectors_, mech_.capacity_sectors());
    if (want <= ra_limit_)
        return;
    if (frontier(now) < ra_limit_) {
        ra_limit_ = want;  // still streaming: it just goes on further
        return;
    }
    // Stopped at the window's end: start again when that sector comes round.
    uint64_t& e = seg_.end[static_cast<uint32_t>(seg)];
    e = std::max(e, ra_limit_);
    ra_lba0_ = ra_limit_;
    ra_t0_ = now + Duration::ns(mech_.rotational_wait_ns(now, mech_.locate(ra_lba0_).angle_ns));
    ra_limit_ = want;
}

void Hdd::stop_read_ahead(Time t) {
    if (ra_seg_ < 0)
        return;
    const uint32_t ra = static_cast<uint32_t>(ra_seg_);
    const uint64_t f = frontier(t);
    seg_.end[ra] = std::max(seg_.end[ra], f);
    seg_.keep_last(ra, seg_sectors_);
    // The head is where read-ahead stopped.
    if (f > ra_lba0_) {
        const HddPosition p = mech_.locate(f - 1);
        head_cyl_ = p.cylinder;
        head_head_ = p.head;
    }
    ra_seg_ = -1;
}

void Hdd::insert_read(uint64_t lba, uint64_t end, Time now, bool head_idle) {
    // A read that continues (or overlaps) a segment extends it: a sequential stream.
    // Otherwise it replaces the least recently used segment.
    uint32_t victim;
    int hit = seg_.extended_by(lba, victim);
    bool sequential = false;
    if (hit >= 0) {
        const uint32_t h = static_cast<uint32_t>(hit);
        sequential = seg_.end[h] == lba;
        seg_.end[h] = std::max(seg_.end[h], end);
        seg_.keep_last(h, seg_sectors_);
        seg_.last_use[h] = now.ns();
    } else {
        seg_.set(victim, end - std::min(end - lba, seg_sectors_), end, now.ns());
        hit = static_cast<int>(victim);
    }
    bool any = cfg_.read_ahead_any;
    if (any && cfg_.read_ahead_track_end && end < mech_.capacity_sectors() &&
        seg_sectors_ < mech_.zone_sectors_per_track(mech_.locate(end).zone))
        any = false;  // a segment shorter than a track cannot hold the track ahead: streams only
    if ((sequential || any) && head_idle && ra_sectors_ > 0 && end < mech_.capacity_sectors()) {
        ra_seg_ = hit;
        ra_lba0_ = end;
        ra_t0_ = now;
        ra_limit_ = std::min(end + ra_sectors_, mech_.capacity_sectors());
        if (cfg_.read_ahead_any && !cfg_.read_ahead_over_request)  // until its segment is full
            ra_limit_ = std::min(ra_limit_, seg_.start[static_cast<uint32_t>(hit)] + seg_sectors_);
        if (cfg_.read_ahead_track_end) {
            const HddPosition p = mech_.locate(end);
            uint64_t track_end = end + mech_.zone_sectors_per_track(p.zone) - p.sector;
            if (seg_.start[static_cast<uint32_t>(hit)] + p.sector < end)  // held the track before
                track_end += mech_.zone_sectors_per_track(p.zone);
            ra_limit_ = std::min(ra_limit_, std::min(track_end, mech_.capacity_sectors()));
        }
    }
}

void Hdd::invalidate(uint64_t lba, uint64_t end, Time now) {
    if (busy_ && cur_.ahead > 0 && lba < cur_.lba + cur_.nsect + cur_.ahead && cur_.lba < end)
        ahead_valid_ = false;
    for (uint32_t i = 0; i < seg_.n; ++i) {
        if (seg_.last_use[i] < 0)
            continue;
        const uint64_t se = seg_end(i, now);
        if (lba < se && seg_.start[i] < end) {
            if (static_cast<int>(i) == ra_seg_)
                ra_seg_ = -1;
            seg_.clear(i);
        }
    }
}

bool Hdd::add_dirty(uint64_t lba, uint32_t nsect, Time now) {
    if (dirty_limit_ == 0)
        return false;
    const uint64_t end = lba + nsect;
    // Over dirty data waiting to be destaged: the buffer holds one copy of each sector, so
    // the write and the extents it overlaps become one extent and only the sectors not dirty
    // before count (the extents are disjoint, so one pass finds them all). The size cap of a
    // merge does not apply: splitting would only leave the same sectors in two extents.
    int at = -1;
    uint64_t lo = lba, hi = end, before = 0;
    for (uint32_t i = 0; i < dirty_.n; ++i) {
        const Cmd& c = dirty_.cmd[i];
        if (lba >= c.lba && end <= c.lba + c.nsect)
            return true;  // rewrites dirty data: nothing new
        if (lba < c.lba + c.nsect && c.lba < end) {
            at = at < 0 ? static_cast<int>(i) : at;
            lo = std::min(lo, c.lba);
            hi = std::max(hi, c.lba + c.nsect);
            before += c.nsect;
        }
    }
    if (at >= 0) {
        if (dirty_sectors_ - before + (hi - lo) > dirty_limit_)
            return false;  // full: the write goes through to the media
        for (uint32_t j = dirty_.n; j-- > static_cast<uint32_t>(at) + 1;)  // (remove() moves only higher slots)
            if (lba < dirty_.cmd[j].lba + dirty_.cmd[j].nsect && dirty_.cmd[j].lba < end)
                dirty_.remove(j);
        Cmd& c = dirty_.cmd[static_cast<uint32_t>(at)];
        c.lba = lo;
        c.nsect = static_cast<uint32_t>(hi - lo);
        set_extent(c);
        dirty_.refresh(static_cast<uint32_t>(at));
        dirty_sectors_ = dirty_sectors_ - before + (hi - lo);
        return true;
    }
    // Contiguous with an extent waiting to be destaged: merge.
    for (uint32_t i = 0; i < dirty_.n; ++i) {
        Cmd& c = dirty_.cmd[i];
        if (lba == c.lba + c.nsect && c.nsect + nsect <= merge_limit_ &&
            dirty_sectors_ + nsect <= dirty_limit_) {
            c.nsect += nsect;
            set_extent(c);
            dirty_sectors_ += nsect;
            return true;
        }
    }
    if (dirty_.n == kMaxDirty || dirty_sectors_ + nsect > dirty_limit_)
        return false;  // full: the write goes through to the media
    dirty_.push(make_cmd(nullptr, lba, nsect, true, false, now));
    dirty_sectors_ += nsect;
    return true;
}

// --- report --------------------------------------------------------------------------------

void Hdd::report(result::DeviceReport& r) const {
    const Stats& s = stats_;
    const double ops = s.media_ops ? static_cast<double>(s.media_ops) : 1.0;
    const uint64_t reads = s.read_hits + s.read_misses;
    r.model = "hdd";
    r.add("commands", static_cast<double>(s.commands));
    r.add("media_ops", static_cast<double>(s.media_ops));
    r.add("queue_depth_mean", mean_queue_depth(eq_.now()), 2);
    r.add("queue_depth_max", s.depth_max);
    r.new_line();
    r.add("seek_ms_mean", static_cast<double>(s.seek_ns) / ops / 1e6, 3);
    r.add("rotation_ms_mean", static_cast<double>(s.rotation_ns) / ops / 1e6, 3);
    r.add("transfer_ms_mean", static_cast<double>(s.transfer_ns) / ops / 1e6, 3);
    r.new_line();
    r.add("read_hits", static_cast<double>(s.read_hits));
    r.add("read_misses", static_cast<double>(s.read_misses));
    r.add("read_hit_ratio", reads ? static_cast<double>(s.read_hits) / static_cast<double>(reads) : 0.0, 4);
    r.add("write_back_acks", static_cast<double>(s.write_back_acks));
    r.add("write_through", static_cast<double>(s.write_through));
    r.add("destages", static_cast<double>(s.destages));
    r.new_line();
    r.add("ncq_prio_high", static_cast<double>(s.high_prio));
    r.add("aged_choices", static_cast<double>(s.aged));
    r.add("flushes", static_cast<double>(s.flushes));
    r.add("stream_hits", static_cast<double>(s.stream_hits));
    if (s.fua_writes)  // (only when there were some: a run without FUA has no such field)
        r.add("fua_writes", static_cast<double>(s.fua_writes));
    if (s.rmw_writes)  // (likewise: only 512e drives with partial writes)
        r.add("rmw_writes", static_cast<double>(s.rmw_writes));
    if (s.stream_aheads)  // (likewise: only runs with interleaved streams)
        r.add("stream_read_aheads", static_cast<double>(s.stream_aheads));
}

std::string Hdd::check_idle() const {
    if (in_drive_ != 0)
        return "hdd: " + std::to_string(in_drive_) + " host command(s) never completed";
    if (stats_.depth_max > cfg_.queue_depth)
        return "hdd: " + std::to_string(stats_.depth_max) + " commands at once, above the NCQ depth of " +
               std::to_string(cfg_.queue_depth);
    return {};
}

}  // namespace blksim::dev

// --- the model's descriptor ---

namespace blksim::dev {
namespace {

using C = HddConfig;
constexpr int64_t kBlockSizes[] = {512, 4096};
constexpr std::string_view kSched[] = {"rpo", "fifo"};
#define BLKSIM_TIME_HELP " A time: integer nanoseconds or a string such as \"7400us\"."
constexpr kind::Param<C> kParams[] = {
    kind::integer("gb", &C::size_bytes, 1, 1048576,
                  "Capacity in 10^9 bytes, 1..1048576 (or give sectors). Default: that of sectors.", kind::kGB),
    kind::integer("sectors", &C::size_bytes, 2097152, 281474976710656,
                  "Capacity in 512-byte sectors as the drive reports it (IDENTIFY), overrides gb. Default {default}.", 512),
    kind::one_of("blocksize", &C::blocksize, kBlockSizes,
                 "Logical block size: 512 (512n/512e) or 4096 (4Kn). Default {default}."),
    kind::one_of("physical_block_size", &C::physical_block_size, kBlockSizes,
                 "Physical sector size the drive records: 512 (512n) or 4096 (512e with blocksize 512, 4Kn with "
                 "blocksize 4096); on 512e a write not covering whole physical sectors reads them first, a revolution "
                 "more. Below blocksize it is blocksize (4Kn). Default {default}."),
    kind::integer("rpm", &C::rpm, 3600, 20000, "Spindle speed, revolutions per minute, 3600..20000. Default {default}."),
    kind::integer("heads", &C::heads, 1, 64, "Recording surfaces (tracks per cylinder), 1..64. Default {default}."),
    kind::integer("zones", &C::zones, 1, 1000,
                  "Recording zones of equal radial width (zoned bit recording), 1..1000. Default {default}."),
    kind::integer("outer_mbps", &C::outer_bytes_per_s, 1, 10000,
                  "Sustained media rate of the outer zone (LBA 0), MB/s of 10^6 bytes, head and cylinder switches "
                  "included: the datasheet's maximum sustained transfer rate. 1..10000. Default {default}.", kind::kMB),
    kind::integer("inner_mbps", &C::inner_bytes_per_s, 1, 10000,
                  "Sustained media rate of the innermost zone, MB/s, at most outer_mbps; the rate falls linearly in "
                  "between. Default {default}.", kind::kMB),
    kind::time("seek_track_to_track", &C::seek_track_to_track,
               "Single-track seek, read, settling included (datasheet). Default {default}." BLKSIM_TIME_HELP, 0),
    kind::time("seek_average", &C::seek_average,
               "Average seek, read, settling included: the datasheet's weighted average over all seek lengths. The seek "
               "curve a+b*sqrt(d) / c+e*d is fitted to the three figures. Default {default}." BLKSIM_TIME_HELP, 0),
    kind::time("seek_full_stroke", &C::seek_full_stroke,
               "Full-stroke seek, read (datasheet). Default {default}." BLKSIM_TIME_HELP, 0),
    kind::time("write_settle", &C::write_settle,
               "Extra settling before a write after a head movement. Default {default}." BLKSIM_TIME_HELP, 0),
    kind::time("head_switch", &C::head_switch,
               "Switching to another surface of the same cylinder. Default {default}." BLKSIM_TIME_HELP, 0),
    kind::time("cmd_overhead", &C::cmd_overhead,
               "Firmware time per media command (a read miss, a write through to the media) that finds the drive "
               "idle. Default {default}." BLKSIM_TIME_HELP, 0),
    kind::time("hit_overhead", &C::hit_overhead,
               "Firmware time per read answered from the buffer (a cache hit), one at a time. Default {default}."
               BLKSIM_TIME_HELP, 0),
    kind::time("write_ack_overhead", &C::write_ack_overhead,
               "Firmware time per write acknowledged into the write cache, one at a time. Default {default}."
               BLKSIM_TIME_HELP, 0),
    kind::integer("link_mbps", &C::link_bytes_per_s, 1, 100000,
                  "Host interface rate in MB/s: 600 for SATA 6 Gb/s, 300 for 3 Gb/s, 1200 for SAS 12 Gb/s. Default {default}.",
                  kind::kMB),
    kind::integer("queue_depth", &C::queue_depth, 1, 128,
                  "Command queue depth: commands the drive queues (the tag set's depth; 1 = no queueing). SATA NCQ: "
                  "1..32; SAS tagged queueing: up to 128 here. Default {default}."),
    kind::choice<C>("sched", kSched, {}, [](C& c, int64_t v) { c.sched = v == 1 ? C::Sched::FIFO : C::Sched::RPO; },
                    [](const C& c) -> int64_t { return c.sched == C::Sched::FIFO ? 1 : 0; },
                    "The drive's command scheduling: rpo (rotational position optimisation, shortest positioning time "
                    "first) or fifo. Default {default}."),
    kind::time("max_wait", &C::max_wait,
               "Aging bound: a command that has waited this long is served next, oldest first; also the starvation "
               "guard of NCQ priority. 0 = none. Default {default}." BLKSIM_TIME_HELP, 0),
    kind::number("age_weight", &C::age_weight, 0, 1000,
                 "Aged RPO (ASPTF): a queued command's positioning time is reduced by this weight times its wait "
                 "(ns per ns), so waiting commands gain on better-placed ones gradually; max_wait stays the hard bound. "
                 "0 = pure shortest positioning time first. 0..1000. Default {default}."),
    kind::integer("sched_lookahead", &C::sched_lookahead, 0, 1,
                  "1 = the firmware picks the next command when it starts the current one (seek-ahead), 0 = when the "
                  "current one ends. Default {default}."),
    kind::flag("ncq_prio_supported", &C::ncq_prio_supported,
               "sysfs ncq_prio_supported: the drive honours the NCQ PRIO bit. Default {default}."),
    kind::flag("ncq_prio_enable", &C::ncq_prio_enable,
               "sysfs ncq_prio_enable: libata sends commands of ioprio class RT as high priority. Default {default} (the "
               "kernel's)."),
    kind::integer("cache_mb", &C::cache_mb, 1, 65536,
                  "Drive buffer in MiB, 1..65536; half of it may hold dirty write data. Default {default}."),
    kind::integer("cache_segments", &C::cache_segments, 1, 64, "Read cache segments (LRU), 1..64. Default {default}."),
    kind::integer("read_ahead_kb", &C::read_ahead_kb, 0, 1048576,
                  "Prefetch after a sequential read, KiB (capped at one segment); 0 = off. Default {default}."),
    kind::integer("stream_read_ahead_kb", &C::stream_read_ahead_kb, 0, 1048576,
                  "Prefetch, KiB, a read continuing a stream gets while other commands wait (one stream per cache "
                  "segment; capped at one segment); 0 = prefetch only when the head is idle. Default {default}."),
    kind::flag("write_cache", &C::write_cache,
               "Write cache enabled (WCE; sysfs cache_type \"write back\"): writes are acknowledged from the buffer and "
               "destaged later. Default {default}."),
    kind::flag("fua", &C::fua,
               "FUA writes (WRITE FPDMA QUEUED with FUA, offered by libata): with the write cache on, a FUA write goes "
               "through to the media before it is acknowledged; 0: the block layer sends a flush after it instead. "
               "Default {default}."),
    kind::integer("irq_cpu", &C::irq_cpu, 0, 4095,
                  "The CPU the drive's interrupt (AHCI's single MSI vector) arrives on. Default {default}."),
    kind::object<C>("measured",
                    "A measured drive's description, as blksim import-disksim writes it from DiskSim's files: explicit "
                    "zones with skews, spare and slipped sectors, a seek table, segmented cache, per-outcome overheads, "
                    "bus time per sector (docs/disksim.md). Checked by the loader, key by key."),
};
#undef BLKSIM_TIME_HELP

kind::Problem validate(const C& c, uint32_t nr_cpus) {
    if (c.ncq_prio_enable && !c.ncq_prio_supported)
        return {"ncq_prio_enable",
                "ncq_prio_enable=1 on a drive without NCQ priority (ncq_prio_supported=0): the kernel refuses it",
                "ncq_prio_supported"};
    if (kind::Problem p = kind::check_irq_cpu(c.irq_cpu, nr_cpus)) return p;
    if (c.size_bytes < (1ULL << 30)) return {"", "an HDD needs at least 1 GiB (gb or sectors)"};
    try {
        const HddMechanics mech(c);  // the figures must describe a drive
    } catch (const std::invalid_argument& e) {
        std::string msg = e.what();
        if (msg.starts_with("hdd: ")) msg = msg.substr(5);
        return {"", msg};
    }
    return {};
}

constinit const DeviceKindOf<C> kKind{
    "hdd",
    "SATA hard disk: zoned geometry, fitted seek curve, rotation in time, NCQ with RPO/FIFO, NCQ priority, "
    "read-ahead and write-back cache",
    "The HDD model's parameters (models/device/hdd_config.h); defaults when left out (an enterprise 7200 rpm SATA "
    "drive).",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t, BuildCache& cache) -> std::unique_ptr<Device> {
         return std::make_unique<Hdd>(eq, c, cache.hdd_mechanics(c));
     },
     .geometry = [](const C& c) { return DeviceGeometry{c.size_bytes / 512 * 512, c.blocksize, 1, c.queue_depth}; },
     .validate = validate,
     .may_be_member = true}};

}  // namespace

const DeviceKind& hdd_kind() { return kKind; }

}  // namespace blksim::dev
