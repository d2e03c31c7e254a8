// io_uring's SQ polling thread (fio's sqthread_poll: IORING_SETUP_SQPOLL; io_uring/sqpoll.c,
// io_sq_thread() in 6.1): a kernel thread of the job's process that spins on the submission
// ring and submits what the application stores there, on ITS CPU (io_submit_sqes() → the
// bios' submit_bio(), with a plug around each round). The application makes no syscall to
// submit, unless the thread went to sleep after sq_thread_idle without work
// (IORING_SQ_NEED_WAKEUP): then io_uring_enter(IORING_ENTER_SQ_WAKEUP) wakes it.
//
// The core is the thread's all along: its spin is busy time there (not the job's usr/sys:
// fio reads the job thread's own rusage). Another task that wants the core gets it when the
// scheduler would preempt the spin (sched_slice()); the thread then waits its turn.
//
// Simplified (docs/fio.md "sqthread_poll"): a bio that finds no tag makes the thread sleep
// for one (the kernel's REQ_NOWAIT bio fails with -EAGAIN and io_uring re-issues it from an
// io-wq worker); completions post their CQE at once (the kernel runs io_uring's completion
// task_work in the SQ thread's loop); one thread per ring (no IORING_SETUP_ATTACH_WQ).
#pragma once

#include <cstdint>

#include "models/blkmq/plug.h"
#include "models/blkmq/request_queue.h"
#include "models/blkmq/tags.h"
#include "models/cpu/cpu.h"
#include "models/cpu/cpu_config.h"
#include "sim/event_queue.h"
#include "sim/time.h"

namespace blksim::workload {

// CFS's share of the core for one of two runnable tasks of equal weight (sched_slice() with
// nr_running 2): sysctl_sched_latency, 6 ms scaled by 1 + ilog2(min(nr_cpus, 8))
// (SCHED_TUNABLESCALING_LOG), halved: 6 ms on 2 CPUs (kernel defaults, not fitted). A spinning
// task (the SQ thread, a job reaping an SQPOLL ring) runs this long after it got the core
// before a task waiting for it gets it; the model looks once per slice (the tick's check).
inline sim::Duration sched_slice(uint32_t nr_cpus) {
    int64_t factor = 1;
    for (uint32_t n = nr_cpus < 8 ? nr_cpus : 8; n > 1; n >>= 1)
        ++factor;
    return sim::Duration::ns(6'000'000 * factor / 2);
}

// The ring's application side, as the SQ thread sees it (JobThread).
class SqRing {
public:
    struct Submitted {
        uint32_t nr = 0;         // SQEs consumed
        sim::Duration cost;      // their submission path's CPU time
        bool wait_tag = false;   // a bio found no tag: the thread waits on `waiter`
    };
    // io_submit_sqes(): every SQE in the ring, each bio to submit_bio() from `cpu` under
    // `plug`, from `now`, until one finds no tag.
    virtual Submitted submit_sqes(blkmq::Plug& plug, uint32_t cpu, sim::Time now, blkmq::TagWaiter* waiter) = 0;
    // io_sqring_entries(): SQEs stored and not consumed yet (one waiting for a tag included).
    virtual uint32_t sq_entries() const = 0;
    // Polled I/O in flight (IORING_SETUP_IOPOLL): the thread's loop reaps it (io_do_iopoll),
    // which is work: it keeps the thread from going idle.
    virtual bool iopoll_pending() const = 0;

protected:
    ~SqRing() = default;
};

class SqThread final : public cpu::Task, public blkmq::TagWaiter {
public:
    // The kernel's default sq_thread_idle (fio sets none): HZ jiffies, one second.
    static constexpr sim::Duration kSqThreadIdle = sim::Duration::ns(1'000'000'000);

    SqThread(sim::EventQueue& eq, cpu::Cpu& cpu, blkmq::RequestQueue& q, const cpu::HostConfig& host, SqRing& ring,
             uint32_t pid);
    SqThread(const SqThread&) = delete;
    SqThread& operator=(const SqThread&) = delete;

    // io_uring_setup(): the thread is created at `t` and starts polling.
    void start(sim::Time t);
    // IORING_SQ_NEED_WAKEUP: asleep; the application must wake it with a syscall.
    bool needs_wakeup() const { return state_ == State::IDLE; }
    // The application stored SQEs at `now` (and woke the thread if it had to).
    void posted(sim::Time now);
    // The ring is closed (the job exits): the thread ends.
    void stop(sim::Time now);
    uint32_t cpu() const { return cpu_.id(); }

    void run_step(sim::Time now) override;        // cpu::Task
    void held_done(sim::Time now) override;       // cpu::Task
    void tag_wakeup(sim::Time now) override;      // blkmq::TagWaiter

private:
    // RUNNABLE: woken or preempted, waiting for its core; SPIN: holding the core with nothing
    // to submit; IDLE: asleep after sq_thread_idle (NEED_WAKEUP).
    enum class State : uint8_t { NEW, RUNNABLE, RUNNING, SPIN, SLEEP_TAG, IDLE, STOPPED };

    void start_event(uint64_t);
    void step_done(uint64_t);
    void after_flush(sim::Time now);
    void begin_spin(sim::Time from);
    void end_spin(sim::Time now);
    // The scheduler tick's look at a spinning thread: preempted once its slice is used up
    // and a task waits for the core.
    void tick_event(uint64_t);
    void idle_event(uint64_t);
    // A tag's wake-up: the thread becomes runnable (tag_wakeup()).
    void wake_event(uint64_t);

    sim::EventQueue& eq_;
    cpu::Cpu& cpu_;
    blkmq::RequestQueue& q_;
    const cpu::CpuCosts& costs_;
    SqRing& ring_;
    blkmq::Plug plug_;
    const sim::Duration slice_;    // sched_slice() of the host
    State state_ = State::NEW;
    bool stopped_ = false;
    bool woken_ = false;           // the next step pays a context switch
    bool tag_wait_ = false;
    sim::Time tag_wake_at_;        // a tag's wake-up that came during the round that slept
    bool idle_armed_ = false;      // an idle_event is pending
    sim::Time spin_from_;          // SPIN: its start, and the core's busy time then
    sim::Duration spin_busy_;
    sim::Time slice_start_;        // when it last got the core from another task
    sim::Time last_work_;          // the end of the last round that found work
    bool tick_armed_ = false;      // a tick_event is pending
};

}  // namespace blksim::workload
