// One fio job thread (a numjobs clone) with its I/O engine, running on one CPU.
//
// The thread works in steps (cpu::Task): each step is the CPU time of one pass of fio's
// main loop — reap what the kernel completed, prepare and submit the next batch — booked on
// its core. What a step does to the block layer happens at the step's end, in step_done():
// the plug is flushed there, so a request reaches the driver when the syscall path that
// carries it has run. Each submit_bio() happens at its instant within the step, in event
// order (submit_bios(): a tag goes to whoever reaches blk_mq_get_tag first). Between steps
// the thread may sleep: in pread / io_getevents for completions, or in the block layer for
// a tag.
//
// The engine (engine.h) decides what differs between psync, libaio and io_uring.
//
// fio's pauses: thinktime (think_time.h) and a rate cap (rate.h) first drain what the
// thread has in flight, as fio's io_u_quiesce() does, then the thread sleeps; the spinning
// part of thinktime_spin is CPU time on its core. A rate_min / rate_iops_min floor that is
// missed ends the job with EIO, as fio's check_min_rate() does.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "models/blkmq/plug.h"
#include "models/blkmq/request.h"
#include "models/blkmq/request_queue.h"
#include "models/blkmq/tags.h"
#include "models/cpu/cpu.h"
#include "models/cpu/cpu_config.h"
#include "models/result/job_result.h"
#include "models/workload/buflen.h"
#include "models/workload/cmdprio.h"
#include "models/workload/engine.h"
#include "models/workload/io_log.h"
#include "models/workload/io_u.h"
#include "models/workload/job_config.h"
#include "models/workload/random_dist.h"
#include "models/workload/rate.h"
#include "models/workload/sq_thread.h"
#include "models/workload/think_time.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/stats.h"

namespace blksim::workload {

class JobThread final : public cpu::Task, public blkmq::TagWaiter, public blkmq::EndIo, public SqRing {
public:
    // `sq_cpu`: with sqthread_poll, the core of the ring's SQ thread (Machine places it).
    JobThread(sim::EventQueue& eq, const JobConfig& cfg, uint32_t clone, uint64_t seed,
              cpu::Cpu& cpu, blkmq::RequestQueue& q, const cpu::HostConfig& host,
              result::JobResult& result, sim::Duration bw_avg_time, cpu::Cpu* sq_cpu = nullptr);
    JobThread(const JobThread&) = delete;
    JobThread& operator=(const JobThread&) = delete;

    // Start at `t`; *live is decremented when the thread exits. A thread told to terminate
    // before it started never runs (fio's run_threads()): it exits at once, without I/O.
    void start(sim::Time t, uint32_t* live);
    bool started() const { return state_ != State::NEW; }
    bool exited() const { return state_ == State::EXITED; }
    const JobConfig& config() const { return cfg_; }
    int error() const { return res_.error; }
    // fio's td->terminate (fio_terminate_threads()): the job issues nothing more, waits for
    // what it has in flight and exits. A sleep (thinktime, a rate cap, a replay delay) ends at
    // the end of the slice usec_sleep() is in: fio sleeps in slices of at most about a second
    // and looks at td->terminate between them.
    void terminate(sim::Time now);
    // Called once when the thread exits (exit_all.h); unset: nothing.
    void on_exit(std::function<void(sim::Time)> f) { on_exit_ = std::move(f); }
    uint64_t submitted() const { return submitted_; }
    uint64_t completed() const { return completed_; }
    uint32_t in_kernel() const { return in_kernel_; }
    blkmq::RequestQueue& queue() const { return q_; }
    // The job's engine bypasses the kernel (fio's null engine): its queue never sees its I/O.
    bool diskless() const { return engine_->diskless(); }
    // What the kernel completed for this thread, per direction (ramp_time included), and
    // the part of it fio left out of the report because it ended during ramp_time: the
    // invariant checker balances them against the report and the queue's sectors.
    uint64_t kernel_bytes(unsigned dir) const { return kernel_bytes_[dir]; }
    uint64_t ramp_bytes(unsigned dir) const { return ramp_bytes_[dir]; }
    // What fio reports of the thread so far (ramp_time left out): read between events.
    const result::JobResult& result() const { return res_; }
    // How far the thread is at `now`, 0 to 1, as fio's ETA sees it: the larger of its time
    // (start to runtime's end) and its I/O (io_size, number_ios) when those bound it.
    double progress(sim::Time now) const;
    // fio's log files (cfg.logs): collect them as fio job number `thread_number` (from 1);
    // take_logs() hands them over once the thread has exited.
    void enable_logs(uint32_t thread_number);
    void take_logs(std::vector<result::FioLog>& out);
    // The files of the logs take_logs() will hand over, in its order; `job`: the job's index.
    void log_files(std::size_t job, std::vector<result::FioLogFile>& out) const;

    void run_step(sim::Time now) override;            // cpu::Task
    void held_done(sim::Time now) override;           // cpu::Task
    void wakeup_preempt(sim::Time now) override;      // cpu::Task
    void tag_wakeup(sim::Time now) override;          // blkmq::TagWaiter
    void end_io(blkmq::Bio* bio, sim::Time now) override;  // blkmq::EndIo
    // SqRing: the SQ thread's view of the ring (sqthread_poll).
    Submitted submit_sqes(blkmq::Plug& plug, uint32_t cpu, sim::Time now, blkmq::TagWaiter* waiter) override;
    uint32_t sq_entries() const override { return sq_queued_; }
    bool iopoll_pending() const override { return engine_->polls() && in_kernel_ > 0; }
    // The SQ thread of an sqthread_poll job; nullptr otherwise.
    const SqThread* sq_thread() const { return sq_.get(); }

private:
    // SLEEP_TIMER: a nanosleep, which completions do not wake: a replaying job waiting for
    // its next I/O's recorded time (fio's iolog_delay()), thinktime, a rate cap.
    // POLL: in io_uring_enter(GETEVENTS) on a polled ring, spinning on the core (kept from
    // one step to the next) until enough completions are found.
    enum class State : uint8_t { NEW, RUNNING, SLEEP_IO, SLEEP_TAG, SLEEP_TIMER, POLL, EXITED };
    // A pause that begins once nothing is in flight (fio's io_u_quiesce()).
    enum class Pause : uint8_t { NONE, THINK, RATE };

    // The CPU time a step has spent so far, from `start`.
    struct Step {
        sim::Time start;
        sim::Duration sys, usr;
        sim::Time now() const { return start + sys + usr; }
    };

    // run_step's parts, in their order; forced inline into it (job_thread.cc), so that the
    // step's times stay in registers.
    void resume(Step& s);
    bool next_batch(Step& s);
    bool get_completions(Step& s, bool full, bool draining);
    void queue_batch(Step& s);
    int rate_ddir(sim::Time t);
    bool enter_submit(Step& s);
    bool submit_bios(Step& s);
    void end_step(Step& s);
    sim::Duration charge(const Step& s);
    void submit_event(uint64_t);

    void wakeup_event(uint64_t);
    // Engine::polls(): spin from the step's end `from` instead of sleeping for completions;
    // poll_found() ends the spin once end_io() posted enough of them.
    void poll(sim::Time from);
    void poll_found(uint64_t);
    // The spin ends at `now` (found, or preempted: poll_tick(), poll_preempt()); its time is
    // the job's.
    void end_poll(sim::Time now);
    // The scheduler tick's look at the spin (SqThread::tick_event()): preempted once its
    // slice is used up and a task waits.
    void poll_tick(uint64_t);
    // A task woken onto the spin's core (wakeup_preempt()): the kernel's poll loop yields.
    void poll_preempt(uint64_t);
    void yield_poll(sim::Time now);
    // sqthread_poll: store the batch's SQEs in the ring (no syscall) instead of submitting.
    void sq_commit(Step& s);
    // io_us the job has handed over and not reaped: the kernel's, and those still in the SQ ring.
    uint32_t in_flight() const { return in_kernel_ + sq_queued_; }
    void step_done(uint64_t);
    void after_flush(sim::Time now);
    void schedule_wakeup(sim::Time when);
    bool done_issuing(sim::Time now) const;
    // A replaying job's next I/O may not be issued before this instant.
    sim::Time replay_due() const;
    // verify= (verify.h): the read-back of what the job wrote is due now that its writes are
    // done; start_verify() begins it.
    bool verify_due(sim::Time now) const;
    void start_verify(sim::Time now);
    sim::Duration checksum_cost(uint32_t len) const {
        return sim::Duration::ns(static_cast<int64_t>(len * cfg_.verify.ps_per_byte / 1000));
    }

    // fio side
    uint8_t next_ddir();                           // the next I/O's direction (rwmixread)
    uint32_t prep_io_u(sim::Time now, uint8_t ddir);  // picks offset/len; returns index
    // fio's should_fsync() + get_rw_ddir(): an fsync / fdatasync is due before the next I/O.
    bool sync_due() const;
    bool end_fsync_due() const;
    uint32_t prep_sync_io_u(sim::Time now, bool datasync, bool account);
    // An fsync, or a sync trim's ioctl (io.ddir >= DDIR_TRIM), blocks the job until it ends;
    // on an SQPOLL ring the SQ thread submits an fsync and its CQE is reaped as any other's
    // (IORING_OP_FSYNC: several may be in flight).
    bool blocks_job(const IoU& io) const { return io.ddir == DDIR_SYNC ? !sq_ : sync_trim_; }
    void account_sync(IoU& io, sim::Time done);
    void account_sync_clat(IoU& io, sim::Time done);  // its completion and clat (account_sync())
    void account_sync_trim(IoU& io, sim::Time done);
    [[gnu::cold, gnu::noinline]] void queue_sync_trim(Step& s);
    // The step books its CPU time and the thread sleeps until `when` (SLEEP_TIMER).
    void sleep_until(const Step& s, sim::Time when);
    // Thinks or waits for the rate cap, now that nothing is in flight.
    void pause(Step& s);
    void check_min_rate(sim::Time now);
    sim::Duration reap(sim::Time t0, uint32_t max);
    void mark_submit(uint32_t nr);
    void add_kernel_time(sim::Duration d);
    void mark_complete(uint32_t n);
    void account_done(IoU& io, sim::Time done);
    static void add_prio_clat(result::DirResult& d, uint8_t cls, uint8_t level, uint64_t clat);
    // The io_u's bio to RequestQueue::submit_bio(); false: it waits for a tag.
    bool queue_io_u(uint32_t idx, sim::Time now, sim::Duration& extra);
    void prep_bio(IoU& io, uint32_t idx);
    [[gnu::cold, gnu::noinline]] void fail_trim(IoU& io, uint32_t idx, sim::Time now);
    void note_submitted(IoU& io);
    void post_done(uint32_t idx, sim::Time now);
    void queue_null(const Step& s);
    void finish(sim::Time now);

    // What a step or an I/O reads or writes on the common path comes first, together: a
    // machine of many jobs keeps few of a job's cache lines between its steps, and each line
    // the path reaches is a miss then (docs/performance.md, Cost per device). The rest, for
    // options and paths only some jobs take, follows.
    sim::EventQueue& eq_;
    const JobConfig& cfg_;
    cpu::Cpu* cpu_;  // where it runs, or ran last (a wake-up may move it: wakeup_event())
    blkmq::RequestQueue& q_;
    const cpu::CpuCosts& costs_;
    result::JobResult& res_;
    std::unique_ptr<Engine> engine_;
    // read_iolog replay: the log (the rest of its state is below).
    const ReplayLog* replay_ = nullptr;
    // sqthread_poll: the ring's SQ thread (its ring is below).
    std::unique_ptr<SqThread> sq_;
    std::unique_ptr<IoLog> log_;              // only when the job writes fio logs

    State state_ = State::NEW;
    Pause pause_ = Pause::NONE;
    // Fixed for the job, read on every completion: the engine keeps slat (Engine::slat()), the
    // job keeps per-priority clat (JobConfig::uses_prio()), and lat / slat histograms
    // (lat_percentiles, slat_percentiles: the constructor makes them in res_).
    const bool slat_, prio_clat_, lat_percentiles_, slat_percentiles_;
    // The job's options the loop asks about on every I/O, copied here from cfg_ (whose fields
    // lie on several lines): rw=, random offsets, time_based, O_SYNC writes, a rate cap, a
    // minimum rate, thinktime, fsync / fdatasync every N blocks.
    const RwPattern rw_;
    const bool random_, time_based_, sync_writes_, rate_caps_, min_rate_on_, think_on_, sync_blocks_;
    const bool dist_set_;                     // random_distribution= other than random (dist_)
    const uint64_t number_ios_;
    bool aborted_ = false;                    // check_min_rate ended the job
    bool rusage_cleared_ = true;              // usr/sys/ctx count from the end of ramp_time (charge())
    bool woken_ = false;                      // next step pays a context switch
    bool polled_ = false;                     // ... unless it only stopped spinning (POLL)
    bool tag_wait_ = false;                   // asleep (or going to sleep) for a tag
    bool batch_syscall_charged_ = false;
    bool last_was_sync_ = false;              // fio's td->last_was_sync
    bool sync_wait_ = false;                  // in fsync() until its bio ends
    // libaio / io_uring with trims: fio's FIO_ASYNCIO_SYNC_TRIM, each trim a blocking
    // BLKDISCARD ioctl in ->queue, alone once what is queued is committed (as an fsync).
    bool sync_trim_ = false;
    bool checksum_ = false;                   // cfg.verify.on
    bool record_writes_ = false;              // verify=: writes are remembered for read-back
    bool verifying_ = false;                  // reading them back
    uint8_t last_ddir_ = 0;                   // of the last I/O issued (thinktime's rate credit)
    int pending_ddir_ = -1;                   // a direction drawn, then held back by the rate cap
    int sync_done_ = -1;                      // the io_u of a returned fsync (or sync trim), not yet accounted

    std::vector<IoU> ious_;
    std::vector<uint32_t> free_ious_;
    uint32_t done_head_ = 0, done_tail_ = 0;  // completion ring (index + 1)
    uint32_t nr_done_ = 0;                    // completions posted, not reaped
    uint32_t in_kernel_ = 0;                  // io_us the kernel owns
    uint32_t wait_min_ = 0;                   // completions the sleeping thread waits for
    uint32_t sq_queued_ = 0;                  // SQEs stored, not consumed (sqthread_poll)

    // The submit batch of the current io_submit / io_uring_enter / pread.
    std::vector<uint32_t> batch_;
    uint32_t batch_pos_ = 0;                  // first io_u of the batch not yet submitted
    uint32_t step_first_ = 0;                 // first io_u submitted by the current step
    Step deferred_{sim::Time(), sim::Duration(), sim::Duration()};  // a step whose submissions wait for their instant
    // The task's plug, started around each submission when the engine plugs (blkmq::Plug
    // says what happens without one).
    blkmq::Plug plug_;
    sim::Duration flush_charged_from_;        // the core's charged() before the step's plug flush
    sim::Time tag_wake_at_;   // a tag's wake-up that came during the step that slept (after_flush())
    sim::Time slice_start_;                   // when it last got the core from another task
    sim::Time ramp_end_, end_time_;
    // cpu::HostConfig::os_noise: the mean of the delay each submission step loses to work the
    // model does not run (ticks, other tasks), exponentially distributed, from its own stream.
    sim::Duration os_noise_;

    // Region and progress. io_limit_: the bytes to issue (fio's io_size, else the region).
    uint64_t region_start_ = 0, region_len_ = 0, io_limit_ = 0;
    uint64_t issued_bytes_ = 0, issued_ios_ = 0;
    uint64_t submitted_ = 0, completed_ = 0;
    uint64_t writes_issued_ = 0;              // fio's io_issues[DDIR_WRITE]
    // Per direction; kernel_bytes_[DDIR_SYNC] stays 0: an SQPOLL ring's fsync ends through
    // post_done() like any I/O, with no bytes.
    uint64_t kernel_bytes_[4] = {0, 0, 0, 0};
    std::array<uint64_t, 3> align_;           // random offsets' alignment (fio's blockalign)
    uint64_t next_seq_offset_[3] = {0, 0, 0};
    sim::Rng rng_offsets_;
    Buflen buflen_[3];                        // bs / bsrange / bssplit per direction
    Cmdprio cmdprio_;
    sim::IntervalSampler bw_[3], iops_[3];

    // Only some jobs, paths or moments.
    std::vector<uint32_t> allowed_;  // the CPUs it may run on, increasing; empty: all
    sim::Rng rng_ddir_, rng_prio_;
    sim::Rng rng_noise_;
    sim::Duration os_noise_delay();
    RateLimiter rate_;
    MinRate min_rate_;
    ThinkTime think_;
    sim::Time rate_until_;                    // Pause::RATE: the instant the next I/O is due
    bool rate_ramped_ = false;                // the rate schedule restarted at the end of ramp_time
    bool terminated_ = false;                 // terminate() was called
    std::function<void(sim::Time)> on_exit_;
    // The current SLEEP_TIMER sleep: its start and end, and the generation of its wakeup
    // event (terminate() moves the wakeup; the old event then finds a newer generation).
    sim::Time sleep_from_, sleep_to_;
    uint64_t wake_gen_ = 0;
    bool tag_woken_ = false;  // the pending wake-up is a freed tag's (wakeup_event())
    // fsync / fdatasync (fio's DDIR_SYNC io_us): the thread blocks in the syscall until the
    // flush completes, whatever the engine (fio's libaio runs it synchronously; io_uring's
    // IORING_OP_FSYNC would not block: docs/fio.md).
    bool end_fsync_done_ = false;
    sim::Time start_time_;                    // fio td->start

    sim::Time poll_from_;                     // POLL: the spin's start
    sim::Duration poll_busy_;                 // and the core's busy time then
    bool tick_armed_ = false;                 // a poll_tick is pending
    bool preempt_armed_ = false;              // a poll_preempt is pending
    const sim::Duration slice_;               // sched_slice() of the host

    // sqthread_poll: the SQEs stored and not consumed (io_u indexes).
    std::vector<uint32_t> sq_ring_;
    uint32_t sq_head_ = 0;

    std::optional<RandomDist> dist_;          // random_distribution other than random
    uint64_t last_trim_offset_ = 0;           // fio's f->last_start[DDIR_TRIM] (randtrimwrite)
    uint64_t ramp_bytes_[3] = {0, 0, 0};
    sim::Duration bw_avg_time_;
    uint32_t* live_ = nullptr;

    // verify=: the writes issued (offset, length), in issue order, and the next to read back.
    // fio keeps them in its io_hist list, in issue order when the file has a random map
    // (fio's default for random I/O) or the I/O is sequential.
    struct Written {
        uint64_t offset;
        uint32_t len;
    };
    std::vector<Written> written_;
    std::size_t verify_pos_ = 0;
    sim::Time verify_start_;

    // read_iolog replay: the next entry, the job's start and the previous issue.
    std::size_t replay_pos_ = 0;
    sim::Time replay_origin_, replay_last_issue_;
};

}  // namespace blksim::workload
