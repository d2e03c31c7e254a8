// A CPU core as a timeline (docs/architecture.md, Principles).
//
// A core knows the instant it becomes free. Two kinds of work use it:
//  - task steps (a job thread running a piece of syscall / block-layer path): they start
//    only when the core is free; tasks that want the core while it is busy wait in a FIFO
//    run queue and get it in turn, one step each, which shares the core between threads
//    at step granularity (a step is a few microseconds, far below a CFS time slice);
//  - interrupt work (hard IRQ, softirq, completions): it preempts, i.e. starts at once and
//    pushes the end of the current step back by its cost.
// Simplification (docs/model.md): a preempted step's own effects are not delayed, only the
// next step on that core starts later.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "models/cpu/eevdf.h"
#include "models/cpu/os_jitter.h"
#include "models/result/cpu_report.h"
#include "sim/event_queue.h"
#include "sim/time.h"

namespace blksim::cpu {

class Cpu;
class Ksoftirqd;

// What a piece of a core's work is, for a trace of the cores (--perfetto, the CPU-time
// breakdown): the step of a task (its syscalls, bio submission, plugging, merges, usr time),
// and the kernel work charged or taken as an interrupt, by the block layer's step.
enum class Work : uint8_t {
    STEP,        // a task's step (Cpu::book)
    INSERT,      // the elevator's insert work outside its lock
    LOCK,        // an elevator lock section (its spin reported separately)
    QUEUE_RQ,    // ->queue_rq
    KBLOCKD,     // kblockd switched in to run a hardware queue
    IRQ,         // the device's hard interrupt
    COMPLETION,  // blk_mq_complete_request → end_request (softirq or IPI included)
    FINISH,      // the elevator's finish hook at completion
    SPIN,        // spinning on a lock inside a task's step
    KERNEL,      // any other charged work
    TICK,        // the scheduler tick, inside a task's step (OsJitter)
    OTHER_TASK,  // another task or a kworker preempting a task's step (OsJitter)
};
inline constexpr uint32_t NR_WORK_KINDS = 12;
const char* work_name(Work w);

// Receives each piece of work as the core places it: on the core from `start` for `len`
// (a step's `len` includes the work charged inside it, reported on its own too; `cost` is
// the step's own), `spin` of it spent spinning before the lock was taken. Off unless
// attached: then the cost is one pointer test per piece.
class WorkTrace {
public:
    virtual void work(uint32_t cpu, Work w, sim::Time start, sim::Duration len, sim::Duration cost,
                      sim::Duration spin) = 0;

protected:
    ~WorkTrace() = default;
};

// Something that runs on a core in steps: a job thread. run_step() is called at the
// instant the core is granted; it must book its step with Cpu::book().
class Task {
public:
    virtual void run_step(sim::Time now) = 0;
    // The kernel work this task's step started on its core and that went on in later events
    // (Cpu::hold) has ended at `now`: the task goes on with what followed it. Called only
    // for a task that asked for it (Cpu::wait_hold).
    virtual void held_done(sim::Time /*now*/) {}
    // Another task was woken onto this core while this one spins in a loop that checks
    // need_resched() (Cpu::set_spinning): CFS's check_preempt_wakeup() sets it, as a woken
    // task's vruntime lies well behind a spinner's. Called from inside Cpu::wake().
    virtual void wakeup_preempt(sim::Time /*now*/) {}

protected:
    ~Task() = default;
    // The task is created by the run (fio forks its jobs; io_uring's SQPOLL thread is made at
    // ring set-up), not a kernel thread that was there before it: its first wake-up is
    // wake_up_new_task()'s, half a slice to its first deadline (PLACE_DEADLINE_INITIAL).
    // ksoftirqd and the loop worker have run since boot and get a whole slice.
    void new_task() { se_.initial = true; }

private:
    friend class Cpu;
    Task* rq_next_ = nullptr;
    SchedEntity se_;  // EEVDF's bookkeeping (Cpu::set_eevdf)
};

class Cpu {
public:
    Cpu(sim::EventQueue& q, uint32_t id);
    Cpu(const Cpu&) = delete;
    Cpu& operator=(const Cpu&) = delete;
    ~Cpu();

    uint32_t id() const { return id_; }
    // The tick, other tasks and wake-up latency (`guest`) and the host's stalls of this vCPU
    // (OsJitter) on this core, from the run's seed.
    void enable_jitter(uint64_t seed, bool guest = true, std::span<const VcpuStall> stalls = {}) {
        jitter_ = std::make_unique<OsJitter>(seed, id_, guest, stalls);
        jitter_at_ = jitter_->next();
    }
    // Nothing runs or waits here at `now`, interrupt work included: where idle balancing
    // looks for a CPU to pull a waiting task to (find_idle_cpu).
    bool idle(sim::Time now) const { return !running_ && !in_step_ && rq_head_ == nullptr && free_at_ <= now; }
    // Idle to the scheduler for `t` at `now` (idle_cpu(): rq->curr is the idle task, nothing
    // queued): no task runs or waits here and no other task's step is still being played
    // out. Interrupt work does not count (it runs on the idle task's stack), nor does the
    // rest of `t`'s own last step here (the task going to sleep in it is `t`).
    bool idle_for(const Task* t, sim::Time now) const {
        return !running_ && !in_step_ && rq_head_ == nullptr && (step_until_ <= now || current_ == t);
    }
    // `t` is still on this core at `now` (p->on_cpu, or on its run queue): it runs or holds
    // a step here, its last step has not ended, or it waits for the core. A wake-up then
    // leaves it here (ttwu_runnable(), or try_to_wake_up() waiting for it to be switched out
    // before it places it; blksim places it here).
    bool has_task(const Task* t, sim::Time now) const {
        if (current_ == t && (running_ || in_step_ || step_until_ > now))
            return true;
        for (const Task* p = rq_head_; p != nullptr; p = p->rq_next_)
            if (p == t)
                return true;
        return false;
    }
    // This core's ksoftirqd (models/cpu/ksoftirqd.h), made when first asked for; a switch to
    // it costs the host's context switch (set_context_switch()).
    Ksoftirqd& ksoftirqd();
    void set_context_switch(sim::Duration d) { context_switch_ = d; }
    // Tasks wait in the run queue for this core.
    bool has_waiting() const { return rq_head_ != nullptr; }
    // A task other than `a` and `b` runs a step on this core or waits for it: with one of
    // them, two runnable tasks (rq->nr_running >= 2), what load balancing looks for.
    bool runnable_besides(const Task* a, const Task* b) const {
        if (running_ && current_ != a && current_ != b)
            return true;
        for (const Task* t = rq_head_; t != nullptr; t = t->rq_next_)
            if (t != a && t != b)
                return true;
        return false;
    }
    // Idle balancing on another core takes `t`, runnable and waiting in this core's run
    // queue (not running, not holding its place in held work), off it: true if it was there.
    bool pull(Task* t);
    // Wake-ups that found another task running here and queued behind it: the woken task
    // preempts at the current task's next preemption point (check_preempt_wakeup_fair sets
    // need_resched). Kernel code the current task runs compares this count before and after
    // a piece of work to see whether need_resched() became true in it.
    // (With RUN_TO_PARITY only once the running task's protected slice is over.)
    uint64_t preempting_wakeups() const { return preempting_wakeups_; }
    // The scheduler's domains: whether this core shares a last-level cache with the others
    // (an sd_llc domain spans them). A host whose CPUs expose no cache topology (a VM such as
    // Firecracker's guest) has none, and a woken task then stays on its previous CPU
    // (select_task_rq, below).
    bool has_sd_llc() const { return sd_llc_; }
    void set_sd_llc(bool shared) { sd_llc_ = shared; }
    // EEVDF (Linux 6.6 and later, with RUN_TO_PARITY): a wake-up onto this core while a task
    // runs preempts it (preempting_wakeups()) only when EEVDF's pick would choose the woken
    // task (models/cpu/eevdf.h), from the tasks' lags, deadlines and the running task's
    // protected slice; `slice` is sysctl_sched_base_slice, `tick` the scheduler tick. Not
    // called (the default): every such wake-up preempts, as CFS's placement of a sleeper
    // did before 6.6.
    void set_eevdf(sim::Duration slice, sim::Duration tick) {
        cfs_ = std::make_unique<CfsRq>(slice.count(), tick.count());
    }
    // A task's step is being played out (run_step() on the stack or deferred, not booked yet).
    bool in_step() const { return in_step_; }
    // Inside an open step: where the work charged so far in it has got to.
    sim::Time free_at() const { return in_step_ ? inline_at_ : free_at_; }
    sim::Duration busy() const { return busy_; }
    sim::Duration irq_busy() const { return irq_busy_; }
    sim::Duration spin() const { return spin_; }
    result::CpuReport report() const { return {id_, busy_, irq_busy_, spin_}; }
    // Part of a booked step was spent spinning on a lock from `from` (already in busy()).
    void account_spin(sim::Duration d, sim::Time from = {}) {
        spin_ += d;
        if (work_trace_) [[unlikely]]
            work_trace_->work(id_, Work::SPIN, from, d, d, d);
    }
    void set_work_trace(WorkTrace* t) { work_trace_ = t; }
    // Part of work charged with charge() was spent spinning on a lock (already in busy()).
    void account_charged_spin(sim::Duration d) { spin_ += d; }
    // All the work charge()d on this core but a kblockd switch: the kernel work a task's
    // syscall does beyond its step's own cost (a plug flush's ->queue_rq calls, the elevator's
    // lock sections with their spin). A task reads it around that work to count it as its own
    // system time, as the kernel's accounting does for a thread inside a syscall.
    sim::Duration charged() const { return charged_; }

    // The running task's step goes on in a later event, at the instant its next action
    // happens (a task acting ahead of the clock must not act before events that precede that
    // instant: JobThread's submissions). The step stays open: the core is the task's, and
    // work charged on it meanwhile is inside the step, as if charged while it was played out.
    // The step ends with book() as usual.
    void defer_step() { step_deferred_ = true; }

    // Kernel work the running task started on this core (blk_mq_do_dispatch_sched()'s loop,
    // run by its plug flush) goes on in a later event (RequestQueue::dispatch_continue):
    // the task is still in that code, so it goes on only when the work ends (wait_hold()).
    // No other task gets the core meanwhile: the task is still running (step_end() not
    // called). Holds nest, one per pending piece of work.
    void hold() { ++holds_; }
    // A held piece of work ended at `now`; when none is left, the task waiting in it goes
    // on (Task::held_done).
    void unhold(sim::Time now);
    bool held() const { return holds_ > 0; }
    // The running task spins in a loop that yields to a woken task (Task::wakeup_preempt).
    void set_spinning(bool on) { spinning_ = on; }
    // The running task, its step booked, waits in the held work (its syscall has not
    // returned). Its claim to the core is the one it had when it got here: it takes its
    // place in the run queue now, and step_end() keeps that place (runnable) or gives it up.
    void wait_hold(Task* t);

    // A task becomes runnable at `now` (started, or woken from a sleep): it runs at once if
    // the core is idle, else it waits in the run queue. A task that ran the last step here
    // and finds nobody waiting goes on after any interrupt work that preempted it.
    void wake(Task* t, sim::Time now);

    // The running task's step ended at `now` (its continuation event). If it still wants
    // the core (`runnable`) it goes on (its next step played out at once only if no event
    // comes before that step's start, else granted then), or to the back of the run queue
    // when others wait; the core then passes to the head of the queue. Every run_step()
    // that booked a step ends with exactly one step_end() or release() call.
    void step_end(Task* t, sim::Time now, bool runnable);
    // The running task gives the core up from inside run_step() (it goes to sleep or
    // exits); the next task is granted by an event, never re-entrantly.
    void release(sim::Time now);

    // Book a task step of `cost` starting at `now` (the core must be free); returns its end.
    // Work charged on this core while the step was being played out (a plug flushed in the
    // middle of a batch, its ->queue_rq and an inline completion) ran inside the step: the
    // step ends that much later, so the core is never booked twice for the same instant.
    // The tick and other tasks that fell on the step (OsJitter) make it end later still.
    sim::Time book(sim::Time now, sim::Duration cost) {
        const sim::Time end = now + cost + step_inline_;
        if (work_trace_) [[unlikely]]
            work_trace_->work(id_, Work::STEP, now, end - now, cost, {});
        if (end > jitter_at_) [[unlikely]]
            free_at_ = take_jitter(now, end);
        else
            free_at_ = end;
        step_until_ = free_at_;
        step_inline_ = {};
        in_step_ = step_deferred_ = false;
        busy_ += cost;
        return free_at_;
    }
    // The running task kept the core from `from` to `to` after its booked step, spinning in a
    // poll loop (it neither released the core nor ended the step: tasks woken meanwhile wait,
    // interrupts and charged work still run); `spin` of that time was its own. Counts it
    // busy; the core is the task's again from `to` (end the step with step_end()).
    void held(sim::Time from, sim::Time to, sim::Duration spin) {
        busy_ += spin;
        if (work_trace_) [[unlikely]]
            work_trace_->work(id_, Work::STEP, from, to - from, spin, {});
        free_at_ = sim::max(free_at_, to);
    }
    // Kernel work done after a step on behalf of the task that ran it (the plug flush's
    // ->queue_rq, elevator lock sections): like interrupt work it is charged from `now`,
    // but it is not counted as interrupt time. Returns its end. `w` and `spin` (the part
    // spent spinning on a lock) only name the work for a WorkTrace.
    sim::Time charge(sim::Time now, sim::Duration cost, Work w = Work::KERNEL, sim::Duration spin = {}) {
        const sim::Time at = take(now, cost);
        if (w != Work::KBLOCKD)
            charged_ += cost;
        if (work_trace_) [[unlikely]]
            work_trace_->work(id_, w, at, cost, cost, spin);
        return now + cost;
    }
    // Interrupt work: starts at `now` whatever runs, delays the core by `cost`; returns end.
    sim::Time irq(sim::Time now, sim::Duration cost, Work w = Work::IRQ) {
        const sim::Time at = take(now, cost);
        irq_busy_ += cost;
        if (work_trace_) [[unlikely]]
            work_trace_->work(id_, w, at, cost, cost, {});
        return now + cost;
    }

private:
    void dispatch(uint64_t);
    void kick(sim::Time when);
    void grant(Task* t, sim::Time start) {
        if (cfs_) [[unlikely]]
            cfs_->set_curr(t->se_, start.ns());
        running_ = true;
        current_ = t;
        in_step_ = true;
        inline_at_ = free_at_;
        t->run_step(start);
        // A step that gave the core up without booking (it only went to sleep) still owns
        // what it charged. A deferred step is still being played out.
        if (in_step_ && !step_deferred_) {
            free_at_ = sim::max(free_at_, start) + step_inline_;
            step_inline_ = {};
            in_step_ = false;
        }
    }
    // `cost` of work on this core from `now`. Inside an open step (run_step() has not booked
    // yet) it is added to that step; otherwise it queues behind whatever holds the core.
    // Returns where it starts.
    sim::Time take(sim::Time now, sim::Duration cost) {
        busy_ += cost;
        sim::Time at;
        if (in_step_) {
            step_inline_ += cost;
            at = sim::max(inline_at_, now);
            inline_at_ = at + cost;
        } else {
            at = sim::max(free_at_, now);
            free_at_ = at + cost;
        }
        return at;
    }
    void enqueue(Task* t);
    Task* dequeue();
    bool unlink(Task* t);
    sim::Time take_jitter(sim::Time start, sim::Time end);
    void eevdf_step_end(Task* t, sim::Time now, bool runnable);

    sim::EventQueue& q_;
    uint32_t id_;
    sim::Time free_at_;
    sim::Time step_until_;  // where the last booked step ends (idle_for())
    sim::Duration busy_;
    sim::Duration irq_busy_;
    sim::Duration spin_;
    sim::Duration charged_;       // charged(): charge()d work but kblockd's switches
    sim::Duration step_inline_;  // work charged inside the step being played out
    sim::Time inline_at_;        // and where it has got to
    bool in_step_ = false;       // run_step() is on the stack and has not booked yet
    bool step_deferred_ = false; // ... or its step goes on in a later event (defer_step)
    Task* current_ = nullptr;  // the task that ran the last step here
    bool running_ = false;     // a task step is in progress (its step_end will pass the core on)
    bool spinning_ = false;    // ... and its task spins, yielding to a woken one (set_spinning)
    Task* rq_head_ = nullptr;
    Task* rq_tail_ = nullptr;
    bool dispatch_pending_ = false;
    uint64_t preempting_wakeups_ = 0;
    bool sd_llc_ = true;
    std::unique_ptr<CfsRq> cfs_;   // set_eevdf(); nullptr: every wake-up preempts
    uint32_t holds_ = 0;           // kernel work going on in later events (hold())
    Task* hold_waiter_ = nullptr;  // the task waiting in it (wait_hold())
    Task* queued_waiter_ = nullptr;  // that task, holding its place in the run queue until step_end()
    WorkTrace* work_trace_ = nullptr;
    std::unique_ptr<OsJitter> jitter_;             // nullptr: off
    std::unique_ptr<Ksoftirqd> ksoftirqd_;         // made by the first ksoftirqd() call
    sim::Duration context_switch_;                 // set_context_switch(): ksoftirqd's switch
    sim::Time jitter_at_ = sim::Time::never();  // jitter_->next(), or never when off
};

// EEVDF's base slice, sysctl_sched_base_slice: 0.75 ms scaled as the kernel scales it for
// the CPU count (SCHED_TUNABLESCALING_LOG: 1 + ilog2 of the CPUs, at most 8): 1.5 ms on 2.
inline sim::Duration sched_base_slice(uint32_t ncpus) {
    int64_t factor = 1;
    for (uint32_t n = ncpus < 8 ? ncpus : 8; n > 1; n >>= 1)
        ++factor;
    return sim::Duration::ns(750'000 * factor);
}

// The first idle CPU (Cpu::idle), UINT32_MAX when every one is busy: where the scheduler's
// idle search looks, and which CPU idle balancing would pull a waiting task to.
uint32_t find_idle_cpu(std::span<const std::unique_ptr<Cpu>> cpus, sim::Time now);

// Where a task `t` woken at `now` runs (select_task_rq_fair() → select_idle_sibling()),
// having last run on `prev`, allowed on `allowed` (its cpus_allowed, increasing, `prev` one
// of them; empty: every CPU): `prev` if it is idle to the scheduler (Cpu::idle_for); else,
// with a shared last-level cache, the first allowed CPU after `prev` that is, wrapping round
// (select_idle_cpu()'s for_each_cpu_wrap() from the target + 1); else `prev`, busy or not:
// without an sd_llc domain select_idle_sibling returns its target unsearched, and
// wake_affine() keeps a busy previous CPU against a waker's CPU that is busy too (the waker
// is running). Such a task moves to an idle CPU only when that CPU pulls it (idle balancing,
// the caller's business). *Simplification:* the target is always `prev`: wake_affine() can
// make it the waker's CPU when that one is idle (taking an interrupt), which blksim does not.
uint32_t select_idle_sibling(std::span<const std::unique_ptr<Cpu>> cpus, uint32_t prev, const Task* t,
                             std::span<const uint32_t> allowed, sim::Time now);

}  // namespace blksim::cpu
