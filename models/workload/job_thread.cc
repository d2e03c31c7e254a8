#include "models/workload/job_thread.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "models/workload/job_options.h"

namespace blksim::workload {

using sim::Duration;
using sim::Time;

// fio's io_u_mark_submit/io_u_mark_complete buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64.
static unsigned batch_bucket(uint32_t nr) {
    if (nr == 0) return 0;
    if (nr <= 4) return 1;
    if (nr <= 8) return 2;
    if (nr <= 16) return 3;
    if (nr <= 32) return 4;
    if (nr <= 64) return 5;
    return 6;
}
// fio's io_u_mark_depth buckets over td->cur_depth: 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64
// (printed 1 2 4 8 16 32 >=64).
static unsigned depth_bucket(uint32_t depth) {
    return std::min<unsigned>(6, std::max<unsigned>(1, static_cast<unsigned>(std::bit_width(depth))) - 1);
}

static std::string stream_name(const JobConfig& cfg, uint32_t clone, const char* what) {
    return fmt::format("job/{}/{}/{}", cfg.name, clone, what);
}

static sim::Rng job_stream(const JobConfig& cfg, uint32_t clone, uint64_t seed, const char* what) {
    return sim::Rng(cfg.randseed.value_or(seed), stream_name(cfg, clone, what));
}

// The CPUs a thread may run on, increasing: cpus_allowed (with cpus_allowed_policy=split
// the one Machine placed it on), else all (empty).
static std::vector<uint32_t> allowed_cpus(const JobConfig& cfg, const cpu::Cpu& placed) {
    if (cfg.cpus_split)
        return {placed.id()};
    std::vector<uint32_t> allowed = cfg.cpus_allowed;
    std::sort(allowed.begin(), allowed.end());
    allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
    return allowed;
}

// Random offsets' alignment per direction: fio's blockalign, else the smallest block size.
static std::array<uint64_t, 3> offset_align(const JobConfig& cfg) {
    std::array<uint64_t, 3> a{};
    for (unsigned d = 0; d < 3; ++d)
        a[d] = cfg.blockalign[d] ? cfg.blockalign[d] : cfg.min_bs(d);
    return a;
}

JobThread::JobThread(sim::EventQueue& eq, const JobConfig& cfg, uint32_t clone, uint64_t seed,
                     cpu::Cpu& cpu, blkmq::RequestQueue& q, const cpu::HostConfig& host,
                     result::JobResult& result, Duration bw_avg_time, cpu::Cpu* sq_cpu)
    : eq_(eq), cfg_(cfg), cpu_(&cpu), q_(q), costs_(host.costs), res_(result),
      engine_(make_engine(cfg, host)), replay_(cfg.replay.get()),
      slat_(engine_->slat()), prio_clat_(cfg.uses_prio()),
      lat_percentiles_(cfg.percentiles.lat), slat_percentiles_(cfg.percentiles.slat),
      rw_(cfg.rw), random_(cfg.random()), time_based_(cfg.time_based), sync_writes_(cfg.sync_writes),
      rate_caps_(cfg.rate.caps()), min_rate_on_(cfg.rate.has_min()), think_on_(cfg.thinktime.enabled()),
      sync_blocks_((cfg.fsync_blocks | cfg.fdatasync_blocks) != 0),
      dist_set_(cfg.random_dist.kind != RandomDistConfig::Kind::RANDOM), number_ios_(cfg.number_ios),
      plug_(result.pid), os_noise_(host.os_noise), align_(offset_align(cfg)),
      rng_offsets_(job_stream(cfg, clone, seed, "offsets")),
      buflen_{Buflen(cfg, 0, q.logical_block_size(), job_stream(cfg, clone, seed, "bs.read")),
              Buflen(cfg, 1, q.logical_block_size(), job_stream(cfg, clone, seed, "bs.write")),
              Buflen(cfg, 2, q.logical_block_size(), job_stream(cfg, clone, seed, "bs.trim"))},
      cmdprio_(cfg), allowed_(allowed_cpus(cfg, cpu)), rng_ddir_(job_stream(cfg, clone, seed, "ddir")),
      rng_prio_(job_stream(cfg, clone, seed, "prio")), rng_noise_(seed, stream_name(cfg, clone, "os_noise")),
      rate_(cfg, job_stream(cfg, clone, seed, "rate.read"), job_stream(cfg, clone, seed, "rate.write")),
      min_rate_(cfg), think_(cfg.thinktime),
      slice_(sched_slice(host.nr_cpus)), bw_avg_time_(bw_avg_time) {
    new_task();
    sync_trim_ = cfg.trims() && !engine_->blocks() && !engine_->diskless();
    const uint32_t depth = engine_->depth();
    ious_.resize(depth);
    if (cfg.sqthread_poll && sq_cpu) {
        sq_ = std::make_unique<SqThread>(eq, *sq_cpu, q, host, *this, result.pid);
        sq_ring_.resize(depth);
    }
    free_ious_.reserve(depth);
    for (uint32_t i = depth; i-- > 0;)
        free_ious_.push_back(i);
    batch_.reserve(depth);
    // fio sizes its io_u buffers for the largest block; here that is the split pieces of the
    // largest bio, made once so that no I/O allocates.
    const uint64_t max_sectors = std::max({cfg.max_bs(0), cfg.max_bs(1), cfg.trims() ? cfg.max_bs(2) : 0}) >> 9;
    for (IoU& io : ious_)
        io.submit.reserve(max_sectors, q.split_sectors());

    const uint64_t capacity = q.capacity_sectors() << 9;
    // fio numbers the clones' subjobs backwards: the job 0, its clones numjobs-1 down to 1
    // (init.c add_job()'s subjob_number).
    region_start_ = cfg.offset + (clone ? cfg.numjobs - clone : 0) * cfg.offset_increment;
    if (cfg.offset_increment_align) {
        const uint64_t bs = std::min(cfg.min_bs(0), cfg.min_bs(1));
        region_start_ = (region_start_ + bs - 1) / bs * bs;
    }
    region_len_ = cfg.size ? cfg.size : capacity - std::min(capacity, region_start_);
    io_limit_ = cfg.io_size ? cfg.io_size : region_len_;
    // do_io(): "in trimwrite mode, each byte is trimmed and then written", twice the bytes.
    if (cfg.rw == RwPattern::TRIMWRITE || cfg.rw == RwPattern::RANDTRIMWRITE)
        io_limit_ *= 2;
    if (cfg.random_dist.kind != RandomDistConfig::Kind::RANDOM) {
        // __init_rand_distribution(): the region in blocks of the smallest size.
        const uint64_t bs = std::min(cfg.min_bs(0), cfg.min_bs(1));
        dist_.emplace(cfg.random_dist, (region_len_ + bs - 1) / bs, bs, rng_offsets_);
    }
    next_seq_offset_[0] = next_seq_offset_[1] = next_seq_offset_[2] = region_start_;
    // A time_based job ends by its runtime, which leaves no read-back (fio's terminate).
    checksum_ = cfg.verify.on;
    record_writes_ = cfg.verify.on && cfg.verify.read_back && !cfg.time_based && !replay_ && cfg.writes();

    res_.name = cfg.name;
    res_.groupid = cfg.groupid;
    res_.options = job_options(cfg);
    // lat_percentiles / slat_percentiles: their histograms.
    for (result::DirResult& d : res_.dir) {
        if (cfg.percentiles.lat)
            d.lat_hist.emplace();
        if (cfg.percentiles.slat)
            d.slat_hist.emplace();
    }
    // fio's clat_prio order: the job's priority first, then the cmdprio ones.
    if (cfg.uses_prio()) {
        if (cfg.reads())
            cmdprio_.seed(res_.dir[0], 0);
        if (cfg.writes())
            cmdprio_.seed(res_.dir[1], 1);
    }
}

double JobThread::progress(Time now) const {
    if (state_ == State::EXITED)
        return 1.0;
    if (state_ == State::NEW)
        return 0.0;
    double f = 0.0;
    if (end_time_ != Time::never() && end_time_ > start_time_)
        f = static_cast<double>((now - start_time_).count()) / static_cast<double>((end_time_ - start_time_).count());
    if (!cfg_.time_based) {
        if (io_limit_ > 0)
            f = std::max(f, static_cast<double>(kernel_bytes_[0] + kernel_bytes_[1] + kernel_bytes_[2]) / static_cast<double>(io_limit_));
        if (cfg_.number_ios > 0)
            f = std::max(f, static_cast<double>(completed_) / static_cast<double>(cfg_.number_ios));
    }
    return std::clamp(f, 0.0, 1.0);
}

void JobThread::start(Time t, uint32_t* live) {
    live_ = live;
    start_time_ = t;
    rate_.reset(t);
    think_.start(t);
    replay_origin_ = replay_last_issue_ = t;
    ramp_end_ = t + cfg_.ramp_time;
    rusage_cleared_ = cfg_.ramp_time.count() == 0;
    end_time_ = cfg_.runtime.count() > 0 ? ramp_end_ + cfg_.runtime : Time::never();
    for (unsigned d = 0; d < 3; ++d) {
        bw_[d] = sim::IntervalSampler(ramp_end_, bw_avg_time_);
        iops_[d] = sim::IntervalSampler(ramp_end_, bw_avg_time_);
    }
    if (terminated_) {
        finish(t);
        return;
    }
    state_ = State::RUNNING;
    eq_.at<&JobThread::wakeup_event>(t, this);
    if (sq_)
        sq_->start(t);
}

bool JobThread::done_issuing(Time now) const {
    if (now >= end_time_ || aborted_)
        return true;
    if (replay_)
        return replay_pos_ >= replay_->entries.size() ||
               (cfg_.number_ios != 0 && issued_ios_ >= cfg_.number_ios);
    if (!time_based_ && issued_bytes_ >= io_limit_)
        return true;
    return number_ios_ != 0 && issued_ios_ >= number_ios_;
}

Time JobThread::replay_due() const {
    if (replay_pos_ >= replay_->entries.size() || cfg_.replay_no_stall)
        return replay_origin_;
    const ReplayEntry& e = replay_->entries[replay_pos_];
    switch (replay_->timing) {
    case ReplayTiming::ABSOLUTE:
        return replay_origin_ + Duration::ns(e.time_ns);
    case ReplayTiming::GAP:
        if (replay_pos_ == 0)
            return replay_origin_;
        return replay_last_issue_ + Duration::ns(e.time_ns - replay_->entries[replay_pos_ - 1].time_ns);
    case ReplayTiming::NONE:
        break;
    }
    return replay_origin_;
}

void JobThread::schedule_wakeup(Time when) {
    woken_ = true;
    state_ = State::RUNNING;
    eq_.at<&JobThread::wakeup_event>(when, this, wake_gen_);
}

// The scheduler places the woken thread (select_idle_sibling): on its CPU unless another
// task has it, then on an idle one it may use.
void JobThread::wakeup_event(uint64_t gen) {
    if (gen != wake_gen_)
        return;
    const Time now = eq_.now();
    const bool tag_woken = tag_woken_;
    tag_woken_ = false;
    if (allowed_.size() != 1 && !cpu_->has_task(this, now)) {
        const std::span<const std::unique_ptr<cpu::Cpu>> cpus = q_.cpus();
        const uint32_t prev = cpu_->id();
        cpu_ = cpus[cpu::select_idle_sibling(cpus, prev, this, allowed_, now)].get();
        if (tag_woken && cpu_->id() != prev)
            q_.tag_wake_moved(prev, cpu_->id(), now);
    }
    cpu_->wake(this, now);
}

void JobThread::terminate(Time now) {
    if (terminated_ || state_ == State::EXITED)
        return;
    terminated_ = true;
    if (state_ == State::NEW)
        return;
    end_time_ = sim::min(end_time_, now);  // done_issuing() from now on
    if (state_ != State::SLEEP_TIMER)
        return;  // it sees the end at its next pass
    // usec_sleep(): a sleep of u >= 1 s first sleeps 1 s + (u mod 1 s), then 1 s at a time.
    const Duration second = Duration::ns(1'000'000'000);
    const Duration u = sleep_to_ - sleep_from_;
    if (u < second)
        return;
    Time slice_end = sleep_from_ + second + Duration::ns(u.count() % second.count());
    if (now > slice_end)
        slice_end = slice_end + Duration::ns((now - slice_end + second - Duration::ns(1)).count() /
                                             second.count() * second.count());
    if (slice_end >= sleep_to_)
        return;
    ++wake_gen_;
    schedule_wakeup(slice_end);
    state_ = State::SLEEP_TIMER;
}

// One pass of fio's do_io() loop on the CPU, starting at `start` (the core is ours): back
// from a sleep, then (unless still inside a submission that slept for a tag) completions and
// the next batch, then into the kernel with it.
void JobThread::run_step(Time start) {
    state_ = State::RUNNING;
    Step s{start, {}, {}};
    resume(s);
    if (batch_pos_ >= batch_.size() && !next_batch(s))
        return;  // the thread sleeps, pauses or exits
    if (enter_submit(s) && !submit_bios(s))
        return;  // the submissions happen at their instant: submit_event()
    end_step(s);
}

// A step's submissions reached their instant (submit_bios() deferred them): go on with them.
void JobThread::submit_event(uint64_t) {
    Step s = deferred_;
    if (submit_bios(s))
        end_step(s);
}

// The step is played out: its CPU time is booked, and step_done() follows at its end.
[[gnu::always_inline]] inline void JobThread::end_step(Step& s) {
    const Duration c = charge(s);
    // OS noise holds the CPU too, but it is not the thread's own time (fio's usr/sys).
    const Duration held = os_noise_ > Duration{} ? c + os_noise_delay() : c;
    eq_.at<&JobThread::step_done>(cpu_->book(s.start, held), this);
}

// The step's CPU time goes to the job's usr/sys; returns it. fio's reset_all_stats() at the
// end of ramp_time clears the thread's rusage (clear_rusage_stat(): usr, sys, ctx), so they
// count from the first step that starts after it, as fio's from the loop that sees it over.
[[gnu::always_inline]] inline Duration JobThread::charge(const Step& s) {
    if (!rusage_cleared_ && s.start >= ramp_end_) [[unlikely]] {
        rusage_cleared_ = true;
        res_.cpu_busy = res_.cpu_sys = Duration();
        res_.ctx = 0;
    }
    const Duration c = s.sys + s.usr;
    res_.cpu_busy += c;
    res_.cpu_sys += s.sys;
    return c;
}

// Back from a sleep the scheduler switches us in, and the syscall the thread slept in
// returns; an fsync that ended meanwhile returns too.
[[gnu::always_inline]] inline void JobThread::resume(Step& s) {
    if (woken_) {
        woken_ = false;
        if (!polled_) {
            s.sys += costs_.context_switch;
            ++res_.ctx;
            slice_start_ = s.start;
        }
        polled_ = false;
        s.sys += engine_->wake_cost(tag_wait_ || batch_pos_ < batch_.size());
    }
    if (sync_done_ >= 0) {
        IoU& io = ious_[static_cast<uint32_t>(sync_done_)];
        sync_done_ = -1;
        if (io.ddir == DDIR_SYNC)
            account_sync(io, s.start + s.sys);
        else
            account_sync_trim(io, s.start + s.sys);
    }
}

// A new pass of the loop: completions first, then the job's end, a pause, or a new batch
// (end_fsync's fsync, or io_us). False when the thread sleeps, pauses or exits instead.
[[gnu::always_inline]] inline bool JobThread::next_batch(Step& s) {
    bool finishing = done_issuing(s.start);
    const bool full = free_ious_.empty();
    // A pause waits for everything in flight first, as the job's end does.
    bool draining = finishing || pause_ != Pause::NONE;
    if (!get_completions(s, full, draining))
        return false;
    const bool drained = in_flight() == 0 && nr_done_ == 0;
    if (finishing && drained && !end_fsync_due()) {
        if (!verify_due(s.start)) {
            finish(cpu_->book(s.start, charge(s)));
            cpu_->release(s.start);
            return false;
        }
        start_verify(s.now());
        finishing = draining = false;
    }
    if (pause_ != Pause::NONE && !finishing && drained) {
        pause(s);
        return false;
    }
    batch_.clear();
    batch_pos_ = 0;
    batch_syscall_charged_ = false;
    if (finishing && drained) {
        // fio's end_fsync / fsync_on_close: one fsync once everything is in (runstate
        // TD_FSYNCING: neither counted nor timed), straight into the kernel.
        end_fsync_done_ = true;
        batch_.push_back(prep_sync_io_u(s.now(), false, false));
        return true;
    }
    if (draining || free_ious_.empty())
        return true;
    queue_batch(s);
    if (!batch_.empty()) {
        engine_->queued(ious_[batch_[0]], s.now());
        return true;
    }
    if (pause_ != Pause::NONE && in_flight() == 0 && nr_done_ == 0) {
        pause(s);
        return false;
    }
    if (pause_ == Pause::NONE && replay_ && !done_issuing(s.start)) {
        // fio's iolog_delay(): sleep until the next I/O is due. Completions that arrive
        // meanwhile wait to be reaped, as they do in fio's usec_sleep().
        sleep_until(s, replay_due() < end_time_ ? replay_due() : end_time_);
        return false;
    }
    return true;
}

// Reap what the engine says to (fio's wait_for_completions()), or sleep in io_getevents
// until enough have completed. False when the thread sleeps.
[[gnu::always_inline]] inline bool JobThread::get_completions(Step& s, bool full, bool draining) {
    const Engine::Reap r = engine_->getevents(nr_done_, in_flight(), full, draining);
    if (r.max > 0) {
        s.usr += reap(s.start + s.sys, r.max);
        if (min_rate_on_)
            check_min_rate(s.now());
        return true;
    }
    wait_min_ = r.wait;
    if (r.wait == 0 || nr_done_ >= wait_min_)
        return true;
    // io_getevents blocks: the syscall is charged when it returns.
    const Time end = cpu_->book(s.start, charge(s));
    // An SQPOLL ring is reaped by spinning on its CQ ring in user space (fio makes no
    // io_uring_enter(GETEVENTS) then), an IOPOLL ring by spinning in the kernel.
    if (engine_->polls() || sq_) [[unlikely]] {
        poll(end);
        return false;
    }
    state_ = State::SLEEP_IO;
    cpu_->release(s.start);
    return false;
}

// Queue io_us for one submit syscall: fio commits when iodepth_batch_submit io_us are
// queued or the queue is full. Stops early for a replay not yet due, thinktime, an fsync
// due or the rate cap.
[[gnu::always_inline]] inline void JobThread::queue_batch(Step& s) {
    const auto k = std::min<uint32_t>(engine_->batch(), static_cast<uint32_t>(free_ious_.size()));
    for (uint32_t i = 0; i < k && !done_issuing(s.start); ++i) {
        const Time t = s.now();
        if (replay_ && replay_due() > t)
            break;  // the next recorded I/O is not due yet: submit what we have
        // The end of fio's previous loop pass: think now?
        // (fio skips the check until something has completed).
        if (think_on_ && !verifying_ && completed_ > 0 && think_.due(t, issued_ios_, completed_)) {
            pause_ = Pause::THINK;
            break;
        }
        if (sync_blocks_ && sync_due()) [[unlikely]] {
            // fio's get_rw_ddir() gives DDIR_SYNC; the engine runs it on its own
            // (libaio answers FIO_Q_BUSY until what is queued is committed).
            if (batch_.empty())
                batch_.push_back(prep_sync_io_u(t, cfg_.fsync_blocks == 0 ||
                                                       writes_issued_ % cfg_.fsync_blocks != 0, true));
            break;
        }
        const int ddir = rate_ddir(t);
        if (ddir < 0)
            break;
        if (ddir == DDIR_TRIM && sync_trim_) [[unlikely]] {
            queue_sync_trim(s);
            break;
        }
        const uint32_t idx = prep_io_u(t, static_cast<uint8_t>(ddir));
        batch_.push_back(idx);
        s.usr += costs_.io_prep;
        // fio fills a write's buffer and checksums it (populate_verify_io_u()) before it
        // stamps the io_u's start_time.
        if (checksum_ && ious_[idx].ddir == 1) [[unlikely]] {
            const Duration c = checksum_cost(ious_[idx].len);
            s.usr += c;
            ious_[idx].start_time = ious_[idx].start_time + c;
        }
    }
}

// The next I/O's direction under the rate cap (fio's rate_ddir()), or -1 when the thread
// is ahead of the schedule: the draw is held, and the thread drains, then sleeps.
[[gnu::always_inline]] inline int JobThread::rate_ddir(Time t) {
    if (replay_)
        return 0;
    const uint8_t ddir = next_ddir();
    if (!rate_caps_)
        return ddir;
    if (verifying_)
        return 0;  // do_verify() issues its reads without the rate cap
    if (!rate_ramped_ && cfg_.ramp_time.count() > 0 && t >= ramp_end_) {
        rate_.reset(ramp_end_);  // fio's reset_io_counters() at the end of ramp_time
        rate_ramped_ = true;
    }
    const RateLimiter::Choice c = rate_.choose(ddir, t);
    if (c.at > t) {
        pending_ddir_ = c.ddir;
        rate_until_ = c.at;
        pause_ = Pause::RATE;
        return -1;
    }
    return c.ddir;
}

// td_io_commit()'s io_u_mark_depth() and the engine's io_u_mark_submit() for `nr` io_us
// submitted by one syscall. The depth is fio's td->cur_depth: the io_us taken from the free
// list (queued, in flight, or completed and not yet reaped), not what the kernel holds. An
// fsync comes alone in its batch (the last io_u prepared): counted in the depths, as fio's
// td_io_queue() does, unless it is end_fsync's; the percentages are of the reads and writes
// issued (ddir_rw_sum(total_io_u)). Nothing before the end of ramp_time counts: fio's
// reset_all_stats() clears the maps and totals then.
[[gnu::always_inline]] inline void JobThread::mark_submit(uint32_t nr) {
    result::DepthDist& dd = res_.depth;
    dd.submit[batch_bucket(nr)] += 1;
    ++dd.submit_calls;
    const bool sync = last_was_sync_;
    if (!sync || ious_[batch_[step_first_]].account)
        dd.level[depth_bucket(engine_->depth() - static_cast<uint32_t>(free_ious_.size()))] += nr;
    if (!sync)
        dd.level_samples += nr;
}

// Into the kernel: the syscall (once per batch, not again after a tag sleep). False when
// there is nothing for submit_bio(): no batch, or fio's null engine, which completes it here.
[[gnu::always_inline]] inline bool JobThread::enter_submit(Step& s) {
    step_first_ = batch_pos_;
    if (batch_pos_ >= batch_.size())
        return false;
    if (engine_->plugs()) {
        plug_.start();
    } else if (engine_->diskless()) [[unlikely]] {
        queue_null(s);
        return false;
    }
    // The SQ thread submits them; not a trim, which fio's io_uring engine runs as a
    // BLKDISCARD ioctl from the job (FIO_ASYNCIO_SYNC_TRIM), alone in its batch.
    if (sq_ && !(sync_trim_ && ious_[batch_[batch_pos_]].ddir == DDIR_TRIM)) [[unlikely]] {
        sq_commit(s);
        return false;
    }
    if (!batch_syscall_charged_) {
        s.sys += costs_.syscall;
        batch_syscall_charged_ = true;
    }
    return true;
}

// Each io_u's bio to submit_bio(), in order, until one finds no tag. The step runs ahead of
// the clock (its CPU time is added up, not waited for), but a submission must happen at its
// own instant s.now(): a tag freed meanwhile goes to whichever task reaches blk_mq_get_tag
// first in simulated time, e.g. a sleeper woken by the free retrying right after its context
// switch, rather than to a task whose step merely started first. So when another event comes
// at or before that instant, the step is deferred to it (the core stays the task's) and goes
// on in submit_event(); otherwise nothing can happen in between and it goes on now. False
// when deferred.
[[gnu::always_inline]] inline bool JobThread::submit_bios(Step& s) {
    const Duration charged_before = cpu_->charged();  // a plug flushed mid-batch
    bool deferred = false;
    while (batch_pos_ < batch_.size()) {
        const Time t = s.now();
        if (t > eq_.now() && eq_.next_time() <= t) {
            deferred = true;
            break;
        }
        Duration extra;  // merge attempts under the elevator's lock, split pieces
        if (!queue_io_u(batch_[batch_pos_], t, extra)) {
            // No tag: sleep in blk_mq_get_tag; the plug is flushed on the way (step_done).
            s.sys += extra;
            tag_wait_ = true;
            q_.wait_for_tag(cpu_->id(), this, t);
            break;
        }
        s.sys += extra + costs_.bio_submit + costs_.rq_alloc + costs_.plug;
        ++batch_pos_;
    }
    if (cpu_->charged() != charged_before)
        add_kernel_time(cpu_->charged() - charged_before);
    if (deferred) {
        deferred_ = s;
        cpu_->defer_step();
        eq_.at<&JobThread::submit_event>(s.now(), this);
        return false;
    }
    const uint32_t nr = batch_pos_ - step_first_;
    if (nr > 0 && s.start >= ramp_end_)
        mark_submit(nr);
    return true;
}

// The kernel work this thread's syscall charged on its core beyond the step's own cost (a
// plug flush's ->queue_rq calls, the elevator's lock sections and their spin): the thread
// ran it inside the syscall, which is its system time on a real machine.
[[gnu::always_inline]] inline void JobThread::add_kernel_time(Duration d) {
    res_.cpu_busy += d;
    res_.cpu_sys += d;
}

// The share of a submission step lost to what the model does not run (cpu::HostConfig::
// os_noise): exponentially distributed with the configured mean, rounded to whole ns.
Duration JobThread::os_noise_delay() {
    const double u = rng_noise_.uniform();  // [0, 1)
    return Duration::ns(static_cast<int64_t>(-static_cast<double>(os_noise_.count()) * std::log1p(-u)));
}

// The end of a step: blk_finish_plug() (or the flush on schedule() when we are about to
// sleep for a tag) hands the plugged requests to the queue, then the loop goes on.
void JobThread::step_done(uint64_t) {
    const Time now = eq_.now();
    flush_charged_from_ = cpu_->charged();
    if (tag_wait_ || tag_wake_at_ > now)
        plug_.flush(q_, now, cpu_->id(), true);  // schedule() flushes the plug of a task going to sleep
    else
        plug_.finish(q_, now, cpu_->id());
    // The dispatch loop the flush ran goes on in events (RequestQueue::dispatch_continue):
    // the task is still inside blk_finish_plug() until it ends.
    if (cpu_->held()) [[unlikely]] {
        cpu_->wait_hold(this);
        return;
    }
    after_flush(now);
}

void JobThread::held_done(Time now) { after_flush(now); }

// The plug is flushed and whatever it ran has returned: the syscall returns (its issue_time
// stamps), and the task sleeps or goes on.
void JobThread::after_flush(Time now) {
    if (cpu_->charged() != flush_charged_from_)
        add_kernel_time(cpu_->charged() - flush_charged_from_);
    if (sq_ && sq_queued_ > 0) [[unlikely]]
        sq_->posted(now);  // the SQ ring's new tail
    const bool in_syscall =
        engine_->committed(std::span<const uint32_t>(batch_).subspan(step_first_, batch_pos_ - step_first_), ious_,
                           sim::max(now, cpu_->free_at()), in_kernel_ > 0 && nr_done_ == 0);
    // A tag wait comes first: an fsync whose empty flush found no tag is still submitting
    // (blk_mq_get_tag sleeps inside submit_bio), and only a freed tag can wake it.
    if (tag_wait_) {
        state_ = State::SLEEP_TAG;  // tag_wakeup() ends it
        cpu_->step_end(this, now, false);
        return;
    }
    if (tag_wake_at_ > now) [[unlikely]] {
        // Woken by a put made ahead of the clock at an instant after this step's end: the
        // task sleeps until then, as it would had the put come after it in the event order
        // too; retrying before it would find that tag not yet free, with the wake-up spent.
        const Time at = tag_wake_at_;
        tag_wake_at_ = Time{};
        cpu_->step_end(this, now, false);
        tag_woken_ = true;
        schedule_wakeup(at);
        return;
    }
    tag_wake_at_ = Time{};
    // In fsync() until end_io() once its flush is submitted; a tag that came back before
    // this step ended (tag_wakeup() in between) leaves it still submitting: it goes on.
    if (sync_wait_ && batch_pos_ >= batch_.size()) {
        state_ = State::SLEEP_IO;
        cpu_->step_end(this, now, false);
        return;
    }
    if (in_syscall) {
        wait_min_ = 1;
        state_ = State::SLEEP_IO;   // in pread until end_io()
        cpu_->step_end(this, now, false);
        return;
    }
    cpu_->step_end(this, now, true);
}

// io_uring_enter(GETEVENTS) on an IOPOLL ring: io_iopoll_check() spins in the driver's poll
// until wait_min_ completions are found; the task never sleeps, so no wake-up and no context
// switch, and its core stays busy (system time) all along. The core is not released: a task
// woken there waits for the spin to end, or for need_resched(), on which the kernel's poll
// loop breaks out: set by the wake-up itself (wakeup_preempt()) or, for a task already
// waiting, by the tick once the slice is used up (poll_tick()). A task that must run for the
// I/O to end (a loop device's worker, ksoftirqd) would otherwise never get the core.
void JobThread::poll(Time from) {
    state_ = State::POLL;
    poll_from_ = from;
    poll_busy_ = cpu_->busy();
    // fio's user-space reap loop on an SQPOLL ring checks no need_resched(): the tick
    // preempts it.
    cpu_->set_spinning(!sq_);
    // A task woken here during the step (the loop worker its submission woke) set
    // need_resched() already: the task yields as its syscall returns.
    if (!sq_ && cpu_->has_waiting())
        wakeup_preempt(from);
    // The spin, in the kernel's poll loop or in user space on an SQPOLL ring's CQ ring, is
    // preempted like any task.
    if (!tick_armed_) [[unlikely]] {
        tick_armed_ = true;
        eq_.at<&JobThread::poll_tick>(sim::max(from, slice_start_ + slice_), this);
    }
}

// The completions are there: the spin ends now; the reap syscall returns (no context switch).
void JobThread::poll_found(uint64_t) {
    const Time now = eq_.now();
    end_poll(now);
    woken_ = polled_ = true;
    state_ = State::RUNNING;
    cpu_->step_end(this, now, true);
}

// Interrupt and completion work that ran on the core meanwhile is counted already; the rest
// of the time was the task's own spin: system time in the kernel's poll loop, user time in
// fio's reap loop on an SQPOLL ring's CQ ring.
void JobThread::end_poll(Time now) {
    cpu_->set_spinning(false);
    const Duration held = now > poll_from_ ? now - poll_from_ : Duration();
    const Duration others = cpu_->busy() - poll_busy_;
    const Duration spin = held > others ? held - others : Duration();
    cpu_->held(poll_from_, now, spin);
    res_.cpu_busy += spin;
    if (!sq_)
        res_.cpu_sys += spin;
}

// need_resched() set by the tick: a task waits for the core of a spinning job (an SQPOLL job's
// SQ thread when they share it, a loop device's worker) and the job's slice is used up.
// Looked at once per slice.
void JobThread::poll_tick(uint64_t) {
    tick_armed_ = false;
    if (state_ != State::POLL)
        return;  // poll() arms it again
    const Time now = eq_.now();
    if (!cpu_->has_waiting() || now < slice_start_ + slice_) {
        tick_armed_ = true;
        eq_.at<&JobThread::poll_tick>(sim::max(now + slice_, slice_start_ + slice_), this);
        return;
    }
    yield_poll(now);
}

// A task woken onto the core of the spin: its need_resched() is acted on at once, in an
// event of its own (not inside the waker's Cpu::wake()).
void JobThread::wakeup_preempt(Time now) {
    if (state_ == State::POLL && !preempt_armed_) {
        preempt_armed_ = true;
        eq_.at<&JobThread::poll_preempt>(now, this);
    }
}

void JobThread::poll_preempt(uint64_t) {
    preempt_armed_ = false;
    if (state_ == State::POLL)
        yield_poll(eq_.now());
}

// The spin gives the core up: switched out (an involuntary context switch, which fio's ctx
// counts) and back in later.
void JobThread::yield_poll(Time now) {
    end_poll(now);
    woken_ = true;
    polled_ = false;
    state_ = State::RUNNING;
    cpu_->step_end(this, now, true);
}

// fio_ioring_commit() on an SQPOLL ring (fio 3.34 on): the SQEs are in the ring already (fio's
// ->queue wrote them); a sleeping SQ thread is woken by io_uring_enter(IORING_ENTER_SQ_WAKEUP),
// the only syscall. issue_time is stamped here (fio_ioring_queued()), and fio keeps no slat.
void JobThread::sq_commit(Step& s) {
    if (sq_->needs_wakeup())
        s.sys += costs_.syscall;
    const Time t = s.now();
    const auto depth = static_cast<uint32_t>(sq_ring_.size());
    for (; batch_pos_ < batch_.size(); ++batch_pos_) {
        const uint32_t idx = batch_[batch_pos_];
        ious_[idx].issue_time = t;
        sq_ring_[(sq_head_ + sq_queued_) % depth] = idx;
        ++sq_queued_;
    }
    const uint32_t nr = batch_pos_ - step_first_;
    if (nr > 0 && s.start >= ramp_end_)
        mark_submit(nr);
}

// io_submit_sqes() in the SQ thread: each SQE's bio to submit_bio() from its CPU, in ring order.
SqRing::Submitted JobThread::submit_sqes(blkmq::Plug& plug, uint32_t cpu, Time now, blkmq::TagWaiter* waiter) {
    Submitted r;
    const auto depth = static_cast<uint32_t>(sq_ring_.size());
    while (sq_queued_ > 0) {
        const uint32_t idx = sq_ring_[sq_head_];
        IoU& io = ious_[idx];
        if (!io.submit.started)
            prep_bio(io, idx);
        Duration extra;
        const blkmq::SubmitStatus st = q_.submit_bio(io.submit, plug, cpu, now + r.cost, extra);
        r.cost += extra;
        if (st == blkmq::SubmitStatus::WAIT_TAG) {
            q_.wait_for_tag(cpu, waiter, now + r.cost);
            r.wait_tag = true;
            break;
        }
        r.cost += costs_.bio_submit + costs_.rq_alloc + costs_.plug;
        sq_head_ = (sq_head_ + 1) % depth;
        --sq_queued_;
        note_submitted(io);
        ++r.nr;
    }
    return r;
}

void JobThread::sleep_until(const Step& s, Time when) {
    const Time end = cpu_->book(s.start, charge(s));
    cpu_->release(s.start);
    sleep_from_ = end;
    sleep_to_ = sim::max(end, when);
    schedule_wakeup(sleep_to_);
    state_ = State::SLEEP_TIMER;
}

// fio's handle_thinktime() after io_u_quiesce(), or rate_ddir()'s usec_sleep(): nothing is
// in flight. The spin is user time on this core; the sleep leaves the core to others. Both
// end at the job's runtime, as fio cuts them there.
void JobThread::pause(Step& s) {
    const Pause p = pause_;
    pause_ = Pause::NONE;
    const Time t0 = s.now();
    if (p == Pause::RATE) {
        sleep_until(s, sim::min(rate_until_, end_time_));
        return;
    }
    const JobConfig::ThinkTime& tt = cfg_.thinktime;
    // A step may reach its pause after the runtime's end (its work charged past it): then
    // nothing is left, not a negative spin (negative user time) and a sleep into the past.
    const Duration left = end_time_ == Time::never() ? Duration::max() : std::max(end_time_ - t0, Duration());
    const Duration spin = std::min(tt.spin, left);
    const Duration total = std::min(std::max(tt.time, spin), left);  // spin, then sleep the rest
    if (last_ddir_ < 2)  // no rate cap with trims (check_trim_job)
        rate_.thought(last_ddir_, total);
    s.usr += spin;
    sleep_until(s, t0 + total);
    if (total <= spin)
        woken_ = false;  // all spin, no sleep (fio's usec_sleep() is skipped): no context switch
}

void JobThread::check_min_rate(Time now) {
    if (now < ramp_end_ || aborted_)
        return;
    const uint64_t bytes[2] = {res_.dir[0].io_bytes, res_.dir[1].io_bytes};
    const uint64_t ios[2] = {res_.dir[0].total_ios, res_.dir[1].total_ios};
    std::string msg = min_rate_.check(cfg_.name, start_time_, now, bytes, ios);
    if (msg.empty())
        return;
    // td_verror(td, EIO, "check_min_rate"): the job stops issuing, drains and exits.
    aborted_ = true;
    res_.error = 5;  // EIO
    res_.verror = "file:backend.c:1131, func=check_min_rate, error=Input/output error";
    res_.error_msg = std::move(msg);
}

// blkdev_common_ioctl(BLKDISCARD) on a disk without discard support: EOPNOTSUPP before any
// bio (bdev_max_discard_sectors() == 0). fio's do_io_u_trim() sets io_u->error, and
// td_io_queue() turns it into td_verror(): the job stops issuing and exits. The trim was
// issued (total_io_u), and counts nowhere else.
void JobThread::fail_trim(IoU& io, uint32_t idx, Time now) {
    aborted_ = true;
    if (now >= ramp_end_)
        ++res_.dir[DDIR_TRIM].failed_ios;
    // The engine marks the call completed all the same (psync's td_io_queue() and libaio's
    // ->queue call io_u_mark_complete(1) whatever the ioctl returned).
    if (now >= ramp_end_ && engine_->marks_calls())
        mark_complete(1);
    if (res_.error == 0) {
        res_.error = 95;  // EOPNOTSUPP
        res_.verror = "file:ioengines.c:399, func=td_io_queue, error=Operation not supported";
    }
    io.state = IoU::State::FREE;
    free_ious_.push_back(idx);
}

// fio's get_rw_ddir(): a mix draws each I/O's direction (blksim draws per I/O where fio
// switches after runs of rwmix-sized issues); a draw the rate cap held back is kept.
uint8_t JobThread::next_ddir() {
    if (pending_ddir_ >= 0) {
        const auto d = static_cast<uint8_t>(pending_ddir_);
        pending_ddir_ = -1;
        return d;
    }
    switch (rw_) {
    case RwPattern::READ:
    case RwPattern::RANDREAD: return 0;
    case RwPattern::WRITE:
    case RwPattern::RANDWRITE: return 1;
    case RwPattern::TRIM:
    case RwPattern::RANDTRIM: return DDIR_TRIM;
    case RwPattern::TRIMWRITE:
    case RwPattern::RANDTRIMWRITE:
        // fio's get_rw_ddir() for td_trimwrite(): a trim, then the write of that block.
        return last_ddir_ == DDIR_TRIM ? 1 : DDIR_TRIM;
    default: return rng_ddir_.below(100) < cfg_.rwmixread ? 0 : 1;
    }
}

uint32_t JobThread::prep_io_u(Time t, uint8_t ddir) {
    const uint32_t idx = free_ious_.back();
    free_ious_.pop_back();
    IoU& io = ious_[idx];
    if (verifying_) [[unlikely]] {
        // get_next_verify(): the next write, read back as it was written.
        const Written& w = written_[verify_pos_++];
        io.ddir = 0;
        io.offset = w.offset;
        io.len = w.len;
    } else if (replay_) {
        // read_iolog_get(): the next recorded I/O, as it was.
        const ReplayEntry& e = replay_->entries[replay_pos_++];
        io.ddir = e.ddir;
        io.len = e.bytes;
        io.offset = e.offset;
        replay_last_issue_ = t;
    } else {
        io.ddir = ddir;
        Buflen& buflen = buflen_[ddir];
        const uint64_t region_end = region_start_ + region_len_;
        if (rw_ == RwPattern::RANDTRIMWRITE && ddir == 1) {
            // get_next_block(): randtrimwrite's write goes where the trim before it went
            // (f->last_start[DDIR_TRIM]).
            io.offset = last_trim_offset_;
        } else if (random_) {
            // fio's last_block() with norandommap: uniform over the region's blockalign-
            // aligned offsets that leave room for the smallest size.
            const uint64_t align = align_[ddir], min = buflen.min();
            const uint64_t blocks = (region_len_ - (min > align ? min - align : 0)) / align;
            if (dist_set_) [[unlikely]]
                io.offset = region_start_ + dist_->next(ddir, rng_offsets_) % blocks * align;
            else
                io.offset = region_start_ + rng_offsets_.below(blocks) * align;
        } else {
            uint64_t& next = next_seq_offset_[io.ddir];
            if (next + buflen.min() > region_end)
                next = region_start_;  // wrap around, as fio does for time_based / loops
            io.offset = next;
        }
        io.len = static_cast<uint32_t>(buflen.next(region_end - io.offset));
        if (!random_)
            next_seq_offset_[io.ddir] += io.len;
        if (record_writes_ && io.ddir == 1) [[unlikely]]
            written_.push_back({io.offset, io.len});  // fio's log_io_piece()
        if (io.ddir == DDIR_TRIM)
            last_trim_offset_ = io.offset;
    }
    cmdprio_.set_ioprio(io.submit.bio, io.ddir, io.len, rng_prio_);
    if (rate_caps_ && !replay_ && !verifying_)
        rate_.issued(io.ddir, io.len);  // fio's usec_for_io() after the submit
    last_ddir_ = io.ddir;
    last_was_sync_ = false;
    writes_issued_ += io.ddir == 1;
    io.start_time = t;
    io.state = IoU::State::PREPPED;
    issued_bytes_ += io.len;
    ++issued_ios_;
    return idx;
}

// should_fsync() && last_ddir_issued == DDIR_WRITE, then fsync_blocks (first) or
// fdatasync_blocks dividing the writes issued so far.
bool JobThread::sync_due() const {
    if (last_was_sync_ || last_ddir_ != 1 || writes_issued_ == 0 || replay_ || verifying_)
        return false;
    return (cfg_.fsync_blocks && writes_issued_ % cfg_.fsync_blocks == 0) ||
           (cfg_.fdatasync_blocks && writes_issued_ % cfg_.fdatasync_blocks == 0);
}

// do_io()'s end: should_fsync(td) (a job that writes, its last I/O not already a sync) and
// end_fsync or fsync_on_close; not after an error.
bool JobThread::end_fsync_due() const {
    return cfg_.end_fsync && !end_fsync_done_ && cfg_.writes() && !last_was_sync_ && !aborted_ && writes_issued_ > 0;
}

// An fsync io_u: no data; the syscall starts now (fio stamps issue_time in td_io_queue).
uint32_t JobThread::prep_sync_io_u(Time t, bool datasync, bool account) {
    const uint32_t idx = free_ious_.back();
    free_ious_.pop_back();
    IoU& io = ious_[idx];
    io.ddir = DDIR_SYNC;
    io.datasync = datasync;
    io.account = account;
    io.offset = 0;
    io.len = 0;
    io.start_time = io.issue_time = t;
    io.state = IoU::State::PREPPED;
    last_was_sync_ = true;
    return idx;
}

// io_completed() for a DDIR_SYNC io_u: add_sync_clat_sample() (issue to return) and
// total_io_u[DDIR_SYNC] (fdatasync is DDIR_DATASYNC there: timed, not counted).
void JobThread::account_sync(IoU& io, Time done) {
    // The engine marks an fsync submitted and completed as one (fio's sync engines and
    // libaio's queue hook alike).
    if (done >= ramp_end_)
        mark_complete(1);
    account_sync_clat(io, done);
    io.state = IoU::State::FREE;
    free_ious_.push_back(static_cast<uint32_t>(&io - ious_.data()));
}

void JobThread::account_sync_clat(IoU& io, Time done) {
    ++completed_;
    if (io.account && done >= ramp_end_) {
        const auto lat = static_cast<uint64_t>((done - io.issue_time).count());
        res_.sync.lat.add(static_cast<double>(lat));
        res_.sync.hist.add(lat);
        if (!io.datasync)
            ++res_.sync.total_ios;
    }
}

// libaio's and io_uring's ->queue for a trim (fio's FIO_ASYNCIO_SYNC_TRIM): FIO_Q_BUSY while
// io_us are queued and not committed, so the trim waits for the next batch; then
// do_io_u_trim(), the BLKDISCARD ioctl, alone in its submission, the thread blocked in it
// (prep_bio() sets sync_wait_). td_io_queue() stamped issue_time before ->queue.
void JobThread::queue_sync_trim(Step& s) {
    if (!batch_.empty()) {
        pending_ddir_ = DDIR_TRIM;  // drawn already: the next batch starts with it
        return;
    }
    const uint32_t idx = prep_io_u(s.now(), DDIR_TRIM);
    batch_.push_back(idx);
    s.usr += costs_.io_prep;
    ious_[idx].issue_time = s.now();
}

// A sync trim returned FIO_Q_COMPLETED: libaio's io_u_mark_submit(1) was the batch's
// (mark_submit()), its io_u_mark_complete(1) and io_completed() come now, with the clat of
// the ioctl (issue to return).
void JobThread::account_sync_trim(IoU& io, Time done) {
    if (done >= ramp_end_)
        mark_complete(1);
    account_done(io, done);
    io.state = IoU::State::FREE;
    free_ious_.push_back(static_cast<uint32_t>(&io - ious_.data()));
}

// fio's td_io_queue() for one io_u: the engine's syscall builds its bio (block/fops.c's
// __blkdev_direct_IO_simple / _async) and hands it to submit_bio(). False: a piece found no
// tag; the task sleeps and submits the same io_u again when woken. `extra` gets the CPU time
// beyond one bio's submission (RequestQueue::submit_bio).
[[gnu::always_inline]] inline bool JobThread::queue_io_u(uint32_t idx, Time now, Duration& extra) {
    IoU& io = ious_[idx];
    if (io.ddir == DDIR_TRIM && q_.max_discard_sectors() == 0) [[unlikely]] {
        fail_trim(io, idx, now);
        return true;
    }
    if (!io.submit.started)
        prep_bio(io, idx);
    const blkmq::SubmitStatus st = q_.submit_bio(io.submit, plug_, cpu_->id(), now, extra);
    note_submitted(io);
    return st != blkmq::SubmitStatus::WAIT_TAG;
}

void JobThread::prep_bio(IoU& io, uint32_t idx) {
    blkmq::Bio& bio = io.submit.bio;
    bio.sector = io.offset >> 9;
    bio.nr_sectors = io.len >> 9;
    bio.op = io.ddir == DDIR_TRIM ? blkmq::ReqOp::DISCARD : io.ddir ? blkmq::ReqOp::WRITE : blkmq::ReqOp::READ;
    // blkdev_fsync() → blkdev_issue_flush(): an empty REQ_PREFLUSH write; an O_SYNC or
    // O_DSYNC direct write is REQ_FUA (block/fops.c dio_bio_write_op()).
    // A polling engine's bios are REQ_POLLED (__blkdev_direct_IO_async() with IOCB_HIPRI);
    // fsync's flush and a trim's discard (blkdev_issue_discard()) are waited for, not polled.
    bio.cmd_flags = io.ddir == DDIR_SYNC
                        ? blkmq::REQ_PREFLUSH
                        : static_cast<uint8_t>(((io.ddir == 1 && sync_writes_) ? blkmq::REQ_FUA : 0) |
                                               (engine_->polls() && io.ddir != DDIR_TRIM ? blkmq::REQ_POLLED : 0));
    bio.end_io = this;
    bio.cookie = idx;
    bio.pid = res_.pid;
    bio.task_ioprio_class = cmdprio_.prioclass();  // fio's ioprio_set() for the job thread
    bio.task_ioprio_level = cmdprio_.prio();
    if (io.ddir >= DDIR_TRIM) [[unlikely]]
        sync_wait_ = blocks_job(io);
}

// Every piece of the io_u's bio is in the kernel's hands: it is in flight (submit_bio has
// returned). Until then the task has not left submission: if it slept for a tag it must
// resume submitting, not wait for a completion that cannot come. The bio may end inside
// submit_bio (an empty flush with nothing to do), so end_io() notes it first.
void JobThread::note_submitted(IoU& io) {
    if (io.state == IoU::State::PREPPED && io.submit.submitted()) {
        io.state = IoU::State::INFLIGHT;
        ++in_kernel_;
        ++submitted_;
    }
}

void JobThread::end_io(blkmq::Bio* bio, Time now) {
    const uint32_t idx = bio->cookie;
    if (idx < ious_.size())
        note_submitted(ious_[idx]);
    // In flight, or a piece of a split bio whose later pieces still wait to be submitted:
    // fewer pieces have ended than were submitted.
    if (idx >= ious_.size() ||
        !(ious_[idx].state == IoU::State::INFLIGHT ||
          (ious_[idx].state == IoU::State::PREPPED && ious_[idx].submit.started &&
           ious_[idx].submit.nr_pieces - ious_[idx].submit.pieces_left < ious_[idx].submit.next_piece)))
        throw std::logic_error(fmt::format(
            "invariant violated: job '{}' got a completion for io_u {} that is not in flight "
            "(sector {})", cfg_.name, idx, bio->sector));
    IoU& io = ious_[idx];
    if (--io.submit.pieces_left > 0)
        return;  // bio_endio of a split piece: the chain's parent waits for the rest
    if (io.ddir >= DDIR_TRIM && blocks_job(io)) [[unlikely]] {
        // submit_bio_wait() returns in blkdev_issue_flush() (fsync) or blkdev_issue_discard()
        // (a sync trim's ioctl): the syscall is about to return.
        if (io.ddir == DDIR_TRIM)
            kernel_bytes_[DDIR_TRIM] += io.len;
        io.state = IoU::State::DONE;
        io.submit.started = false;
        io.kernel_done = now;
        --in_kernel_;
        sync_wait_ = false;
        sync_done_ = static_cast<int>(idx);
        if (state_ == State::SLEEP_IO)
            schedule_wakeup(now);
        return;
    }
    post_done(idx, now);
    if (state_ == State::SLEEP_IO && nr_done_ >= wait_min_ && !sync_wait_)
        schedule_wakeup(now);
    else if (state_ == State::POLL && nr_done_ >= wait_min_) [[unlikely]] {
        state_ = State::RUNNING;
        eq_.at<&JobThread::poll_found>(now, this);
    }
}

// The io_u's I/O has ended at `now`: on the completion ring, for the next reap.
[[gnu::always_inline]] inline void JobThread::post_done(uint32_t idx, Time now) {
    IoU& io = ious_[idx];
    io.state = IoU::State::DONE;
    kernel_bytes_[io.ddir] += io.len;
    io.submit.started = false;
    io.kernel_done = now;
    io.next_done = 0;
    if (done_tail_)
        ious_[done_tail_ - 1].next_done = idx + 1;
    else
        done_head_ = idx + 1;
    done_tail_ = idx + 1;
    ++nr_done_;
    --in_kernel_;
}

// fio's null engine: ->queue completes each io_u of the batch at once (an fsync too), and
// ->commit marks the batch submitted. No syscall, no bio, no CPU time beyond fio's own.
void JobThread::queue_null(const Step& s) {
    const Time now = s.now();
    for (; batch_pos_ < batch_.size(); ++batch_pos_) {
        const uint32_t idx = batch_[batch_pos_];
        ++submitted_;
        ++in_kernel_;
        if (ious_[idx].ddir == DDIR_SYNC) {
            ious_[idx].state = IoU::State::DONE;
            --in_kernel_;
            sync_done_ = static_cast<int>(idx);
            continue;
        }
        post_done(idx, now);
    }
    const uint32_t nr = batch_pos_ - step_first_;
    if (nr == 0 || s.start < ramp_end_)
        return;
    if (engine_->marks_calls()) {
        mark_submit(nr);
    } else if (!last_was_sync_) {
        // td_io_queue()'s io_u_mark_depth(td, 1) for an io_u the engine completed.
        res_.depth.level[0] += nr;
        res_.depth.level_samples += nr;
    }
}

void JobThread::tag_wakeup(Time now) {
    tag_wait_ = false;
    if (state_ == State::SLEEP_TAG) {
        tag_woken_ = true;
        schedule_wakeup(now);
    } else {
        tag_wake_at_ = now;  // still in the step that slept: it goes on, not before `now`
    }
}

// io_u_mark_complete(): one getevents call (or a sync engine's I/O) that reaped `n`.
void JobThread::mark_complete(uint32_t n) {
    res_.depth.complete[batch_bucket(n)] += 1;
    ++res_.depth.complete_calls;
}

Duration JobThread::reap(Time t0, uint32_t max) {
    const uint32_t n = std::min(nr_done_, max);
    Duration cost = engine_->reap_cost();
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t idx = done_head_ - 1;
        IoU& io = ious_[idx];
        done_head_ = io.next_done;
        if (done_head_ == 0)
            done_tail_ = 0;
        cost += costs_.io_complete;
        // The completion cannot be seen before the kernel posted it.
        if (io.ddir == DDIR_SYNC) [[unlikely]]
            account_sync_clat(io, sim::max(t0 + cost, io.kernel_done));  // an SQPOLL ring's fsync
        else
            account_done(io, sim::max(t0 + cost, io.kernel_done));
        // verify_io_u(), the io_u's end_io, runs after its completion was accounted.
        if (checksum_ && io.ddir == 0) [[unlikely]]
            cost += checksum_cost(io.len);
        io.state = IoU::State::FREE;
        free_ious_.push_back(idx);
    }
    nr_done_ -= n;
    if (t0 >= ramp_end_ && engine_->marks_calls())
        mark_complete(n);
    return cost;
}

void JobThread::account_done(IoU& io, Time done) {
    ++completed_;
    if (done < ramp_end_) {
        ramp_bytes_[io.ddir] += io.len;
        return;
    }
    result::DirResult& d = res_.dir[io.ddir];
    d.io_bytes += io.len;
    ++d.total_ios;
    const auto clat = static_cast<uint64_t>((done - io.issue_time).count());
    const auto lat = static_cast<uint64_t>((done - io.start_time).count());
    d.add_clat(clat);
    // fio's clat_prio holds the total latency with lat_percentiles (add_lat_sample()).
    if (prio_clat_)
        add_prio_clat(d, io.submit.bio.ioprio_class, io.submit.bio.ioprio_level,
                      cfg_.percentiles.lat ? lat : clat);
    d.lat.add(static_cast<double>(lat));
    // A sync trim returned FIO_Q_COMPLETED: fio's io_u_queued(), which adds slat, never ran.
    const bool slat = slat_ && !(sync_trim_ && io.ddir == DDIR_TRIM);
    if (slat)
        d.slat.add(static_cast<double>((io.issue_time - io.start_time).count()));
    if (lat_percentiles_) [[unlikely]]
        d.lat_hist->add(lat);
    if (slat_percentiles_ && slat) [[unlikely]]
        d.slat_hist->add(static_cast<uint64_t>((io.issue_time - io.start_time).count()));
    bw_[io.ddir].add(done, io.len);
    iops_[io.ddir].add(done, 1);
    if (log_) {
        const uint16_t ioprio = io.submit.bio.ioprio_class
                                    ? static_cast<uint16_t>(io.submit.bio.ioprio_class << 13 | (io.submit.bio.ioprio_level & 7))
                                    : 0;
        log_->add({io.issue_time - ramp_end_, done - ramp_end_, io.ddir, io.len, io.offset, ioprio,
                   static_cast<uint64_t>((io.issue_time - io.start_time).count()), clat,
                   static_cast<uint64_t>((done - io.start_time).count())});
    }
}

void JobThread::enable_logs(uint32_t thread_number) {
    if (cfg_.logs.any())
        log_ = std::make_unique<IoLog>(cfg_.logs, thread_number, engine_->slat());
}

void JobThread::log_files(std::size_t job, std::vector<result::FioLogFile>& out) const {
    if (log_)
        log_->files(job, out);
}

void JobThread::take_logs(std::vector<result::FioLog>& out) {
    if (log_)
        log_->take(out);
}

// fio's clat_prio: one entry per priority seen, found by a short linear search (a job uses
// one or two priorities); a new priority allocates once.
void JobThread::add_prio_clat(result::DirResult& d, uint8_t cls, uint8_t level, uint64_t clat) {
    for (auto& p : d.prios) {
        if (p.ioprio_class == cls && p.ioprio_level == level) {
            p.clat.add(static_cast<double>(clat));
            p.clat_hist.add(clat);
            return;
        }
    }
    d.prios.push_back({cls, level, {}, {}});
    d.prios.back().clat.add(static_cast<double>(clat));
    d.prios.back().clat_hist.add(clat);
}

// thread_main() after do_io(): do_verify() follows when the job wrote and verify is on,
// unless the job ended by its runtime or an error (td->terminate, td->error).
bool JobThread::verify_due(Time now) const {
    return record_writes_ && !verifying_ && !written_.empty() && now < end_time_ && !aborted_ && !terminated_;
}

// The write phase's runtime ends here (update_runtime(DDIR_WRITE)); do_verify() runs with
// td->start reset, so the runtime limit applies to it anew.
void JobThread::start_verify(Time now) {
    verifying_ = true;
    // done_issuing() ends the read-back when the bytes written have been read: a job with
    // verify is not time_based, so its io_limit_ decides.
    io_limit_ = 0;
    for (const Written& w : written_)
        io_limit_ += w.len;
    issued_bytes_ = issued_ios_ = 0;
    pause_ = Pause::NONE;
    pending_ddir_ = -1;
    verify_start_ = now;
    end_time_ = cfg_.runtime.count() > 0 ? now + cfg_.runtime : Time::never();
    // A job that only writes reads during the read-back only: its read bandwidth samples
    // start with it.
    if (!cfg_.reads()) {
        bw_[0] = sim::IntervalSampler(now, bw_avg_time_);
        iops_[0] = sim::IntervalSampler(now, bw_avg_time_);
    }
}

void JobThread::finish(Time now) {
    state_ = State::EXITED;
    if (sq_)
        sq_->stop(now);  // the ring is closed: its SQ thread ends
    if (live_)
        --*live_;
    res_.runtime = now > ramp_end_ ? now - ramp_end_ : Duration();
    if (verifying_) {
        // update_runtime(): writes up to the read-back, reads during it (a job that also
        // reads: all along).
        res_.dir_runtime[1] = verify_start_ > ramp_end_ ? verify_start_ - ramp_end_ : Duration();
        if (!cfg_.reads())
            res_.dir_runtime[0] = now - verify_start_;
    }
    if (log_)
        log_->finish(res_.runtime);
    for (unsigned d = 0; d < 3; ++d) {
        bw_[d].roll(now);
        iops_[d].roll(now);
        if (res_.dir[d].total_ios > 0) {
            res_.dir[d].bw_samples = bw_[d].samples();
            res_.dir[d].iops_samples = iops_[d].samples();
        }
    }
    if (on_exit_)
        on_exit_(now);
}

}  // namespace blksim::workload
