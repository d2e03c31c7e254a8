// EEVDF's bookkeeping of one CPU's fair run queue (kernel/sched/fair.c, Linux 6.6 and later),
// as far as it decides whether a wake-up preempts the running task.
//
// blksim shares a core between tasks step by step in a FIFO run queue (cpu.h); what order the
// kernel would pick them in is not modelled. What is: whether a task woken onto a busy core
// sets need_resched() there (check_preempt_wakeup_fair()), which kernel code the running task
// is in acts on (blk_mq_do_dispatch_sched() hands the hctx to kblockd). EEVDF decides that
// from each task's lag, the service it is owed: a woken task preempts when it would be
// picked (__pick_eevdf(): the eligible task, lag >= 0, with the earliest virtual deadline),
// and RUN_TO_PARITY keeps the running task only while it is eligible and has not reached its
// deadline. A task that sleeps keeps its lag for its next wake-up (PLACE_LAG); one that
// sleeps while it is owed less than nothing stays queued, delayed, until it is picked or
// woken (DELAY_DEQUEUE, DELAY_ZERO, Linux 6.12 and later).
//
// Every task has the nice-0 weight (1024), so virtual time advances at the rate of real time
// and the queue's average vruntime V is the plain mean; times are nanoseconds, vruntimes in
// this queue's own frame (a task moving to another CPU takes its lag, not its vruntime).
// Simplifications (docs/model.md, CPUs): the running task's vruntime counts the wall time of
// its steps, the interrupt work and charged work inside them included (no
// IRQ_TIME_ACCOUNTING); kblockd's runs of a hardware queue are charged work, not a task here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace blksim::cpu {

class CfsRq;

struct SchedEntity {
    int64_t vruntime = 0;
    int64_t deadline = 0;  // virtual deadline; relative to vruntime while rel_deadline
    int64_t vprot = 0;     // RUN_TO_PARITY: protected from wake-up preemption below this
    int64_t vlag = 0;      // lag kept while not queued
    CfsRq* rq = nullptr;   // the queue it is on (running, waiting or delayed)
    bool delayed = false;  // sched_delayed: asleep, still queued (DELAY_DEQUEUE)
    bool rel_deadline = false;
    bool initial = false;  // created during the run and never queued yet (Task::new_task())
};

class CfsRq {
public:
    // `slice`: sysctl_sched_base_slice (sched_base_slice()); `tick`: TICK_NSEC, the floor of
    // the lag a sleeping task keeps (update_entity_lag()).
    CfsRq(int64_t slice, int64_t tick);

    // A task becomes runnable here (enqueue_entity(), or requeue_delayed_entity() for one
    // still delayed here). One delayed on another queue leaves it first (finish_delayed()).
    // `now`: when; a core idle since before then has picked its delayed tasks off (idle()).
    void enqueue(SchedEntity& se, int64_t now);
    // The running task or a waiting one sleeps (dequeue_entity() with DEQUEUE_SLEEP): it
    // stays, delayed, if it is not eligible.
    void dequeue_sleep(SchedEntity& se);
    // A waiting task moves to another CPU (idle balancing): it takes its lag and its
    // deadline relative to its vruntime (PLACE_REL_DEADLINE).
    void migrate_out(SchedEntity& se);
    // The final dequeue of a delayed task (DEQUEUE_DELAYED): its lag, clipped to zero if
    // positive (DELAY_ZERO).
    void finish_delayed(SchedEntity& se);

    // `se` is switched in at `now` (pick_next_entity(), set_next_entity()): delayed tasks the
    // pick would choose first leave the queue, and `se` is protected up to its deadline.
    // Called with the task already running here: nothing changes.
    void set_curr(SchedEntity& se, int64_t now);
    // The running task's vruntime counts its time up to `now` (update_curr()).
    void update_curr(int64_t now);
    // No task is runnable here any more from `now`: the idle pick dequeues every delayed
    // task, unless a task is woken at that same instant. (blksim plays a wake-up the waker's
    // work makes at its end, after the waker's own sleep; in the kernel the waker is still
    // running, and the woken task is queued before the pick.)
    void went_idle(int64_t now) {
        idle_at_ = now;
        curr_ = nullptr;
    }
    void idle();

    // check_preempt_wakeup_fair() for `woken`, just enqueued while the current task runs:
    // whether it becomes the task __pick_eevdf() chooses (need_resched is set).
    bool wakeup_preempt(const SchedEntity& woken) const;

    // The queue's average vruntime (avg_vruntime()), for tests.
    int64_t avg_vruntime() const;
    bool eligible(const SchedEntity& se) const {
        return sum_ >= se.vruntime * static_cast<int64_t>(queued_.size());
    }
    size_t nr_queued() const { return queued_.size(); }

private:
    void place_entity(SchedEntity& se);
    void add(SchedEntity& se);
    void remove(SchedEntity& se);
    void update_entity_lag(SchedEntity& se);
    SchedEntity* pick_eevdf(const SchedEntity* skip) const;
    void pick_off_delayed();

    int64_t slice_;
    int64_t lag_limit_;
    std::vector<SchedEntity*> queued_;  // every queued entity, the running one included
    int64_t sum_ = 0;                   // the sum of their vruntimes
    int64_t base_ = 0;                  // V when the queue last had a task (min_vruntime)
    SchedEntity* curr_ = nullptr;
    int64_t exec_start_ = 0;
    int64_t idle_at_ = -1;  // went_idle(), the idle pick not yet made
};

}  // namespace blksim::cpu
