// ksoftirqd/N (kernel/softirq.c): the per-CPU thread that runs softirq work raised outside
// interrupt context.
//
// raise_softirq() from process context (a kworker ending a request with
// blk_mq_complete_request(), as the loop worker does) cannot run the softirq on the way out
// of an interrupt, as a device's completion does: raise_softirq_irqoff() wakes this thread
// instead (wakeup_softirqd()). It is an ordinary task on its CPU: woken while the worker
// runs, it sets need_resched, so the worker yields to it at its next cond_resched() (between
// commands) or sleep; it is switched in (the profile's `context_switch`) and runs what is
// pending. Work raised while it is pending joins it: blk_mq_raise_softirq() adds the request
// to the CPU's blk_cpu_done list and raises BLOCK_SOFTIRQ only when that list was empty, and
// blk_done_softirq() takes the whole list. So one wake-up and one switch serve every
// completion raised before the thread ran.
//
// Traced on Linux 6.18 (docs/validation/loop-6.18/kernel-events.md, "Who switches to
// ksoftirqd"): where the loop worker has its CPU to itself, ksoftirqd preempts it after
// 0.65-0.96 of the I/Os, which is this rule.
//
// Simplifications (docs/model.md, CPUs): a softirq left pending is not run early by an
// interrupt's exit on that CPU (the tick, an IPI), only by this thread; and the thread yields
// after each pass (cond_resched() in run_ksoftirqd()) rather than restarting
// __do_softirq() while work keeps arriving.
#pragma once

#include <cstdint>
#include <vector>

#include "models/cpu/cpu.h"
#include "sim/event_queue.h"
#include "sim/time.h"

namespace blksim::cpu {

// Work raised on a CPU's ksoftirqd: softirq() runs it there, at `now`, on `cpu`.
class SoftirqAction {
public:
    virtual void softirq(void* item, uint32_t cpu, sim::Time now) = 0;

protected:
    ~SoftirqAction() = default;
};

class Ksoftirqd final : public Task {
public:
    Ksoftirqd(sim::EventQueue& eq, Cpu& cpu, sim::Duration context_switch)
        : eq_(eq), cpu_(cpu), context_switch_(context_switch) {
        pending_.reserve(64);
        batch_.reserve(64);
    }
    // raise_softirq() from process context at `now`: `item` joins the pending work and the
    // thread is woken if it was asleep (wakeup_softirqd()). Returns whether this raise woke it.
    bool raise(SoftirqAction* action, void* item, sim::Time now);

private:
    // run_ksoftirqd(): switched in if it was asleep, take every pending item.
    void run_step(sim::Time start) override;
    // The pass ends: run the items (each charges its own work on this CPU), sleep or go on.
    void step_done(uint64_t);

    struct Item {
        SoftirqAction* action;
        void* item;
    };
    sim::EventQueue& eq_;
    Cpu& cpu_;
    sim::Duration context_switch_;
    std::vector<Item> pending_;  // raised, not yet taken
    std::vector<Item> batch_;    // taken by the pass in progress
    bool awake_ = false;         // runnable or running
    bool switched_in_ = false;   // has paid its switch since it last slept
};

}  // namespace blksim::cpu
