#include "models/device/loop.h"

#include <memory>

#include <fmt/format.h>

#include "models/cpu/cpu.h"
#include "models/cpu/cpu_config.h"
#include "models/device/device_kind.h"
#include "models/result/device_report.h"

namespace blksim::dev {

// loop_queue_rq() → loop_queue_work(): the command joins the worker's list; queue_work() on
// a work item already queued or running adds nothing (the running loop_process_work takes
// the command before it returns).
BlkStatus Loop::queue_rq(blkmq::Request* rq, bool /*last*/, sim::Time now, uint32_t /*cpu*/) {
    q_->start_request(rq, now);
    cmd_list_.push_back({rq, now});
    if (!awake_)
        wake(now);
    return BlkStatus::OK;
}

// queue_work() on the device's unbound workqueue wakes its kworker where the scheduler
// places it (select_task_rq): with no shared cache to search, on the CPU it last ran on,
// which is often the submitter's own.
//
// Placed beside another task (a job thread), it shares that core until the core's next tick
// sees two runnable tasks while a CPU is idle (nohz_balancer_kick()) and the idle CPU's load
// balance moves one of them: the worker here, since blksim moves job threads only when they wake
// (a worker still waiting is pulled at once, a running one moves at its next cond_resched(),
// as the kernel's active balance would stop it; asleep by then, it wakes there next time).
// This is how the two get apart on a host whose CPUs share no cache, where a wake-up keeps
// the worker on its previous, busy CPU. *Simplification:* the first tick moves it; the
// kernel's cache-hot check (task_hot(): ran within sched_migration_cost, 0.5 ms) may leave
// it for a balance attempt or two more.
void Loop::wake(sim::Time now) {
    awake_ = true;
    switched_in_ = false;
    ++wakeups_;
    worker_cpu_ = cpu::select_idle_sibling(q_->cpus(), worker_cpu_, this, {}, now);
    q_->cpus()[worker_cpu_]->wake(this, now);
    if (!balance_pending_ && shares_core())
        arm_idle_balance(now);
}

// Another task than ksoftirqd (bound to its CPU, and gone again after a pass) is runnable
// on the worker's core.
bool Loop::shares_core() {
    cpu::Cpu& core = *q_->cpus()[worker_cpu_];
    return core.runnable_besides(this, &core.ksoftirqd());
}

void Loop::arm_idle_balance(sim::Time now) {
    const int64_t tick = cpu::OsJitterParams{}.tick_period.count();
    balance_pending_ = true;
    eq_.at<&Loop::idle_balance>(sim::Time::from_ns((now.ns() / tick + 1) * tick), this);
}

void Loop::idle_balance(uint64_t) {
    balance_pending_ = false;
    if (!awake_ || balance_to_ != NO_CPU || !shares_core())
        return;
    const sim::Time now = eq_.now();
    const uint32_t c = cpu::find_idle_cpu(q_->cpus(), now);
    if (c == UINT32_MAX || c == worker_cpu_) {
        arm_idle_balance(now);  // the next tick looks again
        return;
    }
    ++migrations_;
    if (q_->cpus()[worker_cpu_]->pull(this)) {
        worker_cpu_ = c;
        q_->cpus()[c]->wake(this, now);
        return;
    }
    balance_to_ = c;  // running: it moves at its next cond_resched()
}

void Loop::wake_at(uint64_t) { q_->cpus()[worker_cpu_]->wake(this, eq_.now()); }

void Loop::run_step(sim::Time start) {
    cpu::Cpu& core = *q_->cpus()[worker_cpu_];
    if (cmd_list_.empty()) {
        awake_ = false;  // the kworker goes back to sleep
        core.release(start);
        return;
    }
    if (cmd_list_.front().queued > start) {
        core.release(start);
        eq_.at<&Loop::wake_at>(cmd_list_.front().queued, this);
        return;
    }
    sim::Duration cost;
    if (!switched_in_) {
        switched_in_ = true;
        cost = q_->costs().context_switch;
    }
    in_hand_ = cmd_list_.front().rq;
    cmd_list_.pop_front();
    // A flush is vfs_fsync() on the file, which for a file in memory has nothing to write.
    cost += command_cost(in_hand_->op == blkmq::ReqOp::FLUSH ? 0 : in_hand_->bytes());
    worker_busy_ += cost;
    eq_.at<&Loop::step_done>(core.book(start, cost), this);
}

void Loop::step_done(uint64_t) {
    const sim::Time now = eq_.now();
    cpu::Cpu& core = *q_->cpus()[worker_cpu_];
    // lo_rw_aio(): the file's read_iter returned, the command ends from the worker:
    // blk_mq_complete_request() raises BLOCK_SOFTIRQ on this CPU (one hardware queue) when
    // the submitter is this CPU or shares its cache, else sends it to the submitter's CPU by
    // IPI (rq_affinity=1 on a host without a shared cache: RequestQueue::complete_need_ipi).
    // Raised here, from process context, the softirq wakes this CPU's ksoftirqd, which ends
    // the request once it runs (models/cpu/ksoftirqd.h).
    blkmq::Request* rq = in_hand_;
    in_hand_ = nullptr;
    ++handled_;
    if (q_->complete_need_ipi(worker_cpu_, rq->mq_ctx_cpu))
        q_->complete_request(rq, now, worker_cpu_, blkmq::DriverQueue::CompletionPath::SOFTIRQ);
    else
        softirq_wakeups_ += core.ksoftirqd().raise(this, rq, now);
    // (Where it is goes first: step_end() may play out the next task at once, whose plug
    // flush can wake the worker again.)
    if (cmd_list_.empty()) {
        awake_ = false;
        if (balance_to_ != NO_CPU) {  // moved while it ran: it wakes there next time
            worker_cpu_ = balance_to_;
            balance_to_ = NO_CPU;
        }
        core.step_end(this, now, false);
        return;
    }
    // It goes on on another core if the tick's balancer moved it while it ran, or if others
    // wait for this one and another is idle, which then pulls it (newidle balancing;
    // ksoftirqd, bound to its CPU, preempts the worker instead and does not count).
    uint32_t to = balance_to_;
    balance_to_ = NO_CPU;
    if (to == NO_CPU && shares_core()) {
        if (const uint32_t c = cpu::find_idle_cpu(q_->cpus(), now); c != UINT32_MAX && c != worker_cpu_) {
            to = c;
            ++migrations_;
        }
    }
    if (to != NO_CPU) {
        worker_cpu_ = to;
        core.step_end(this, now, false);
        q_->cpus()[to]->wake(this, now);
        return;
    }
    core.step_end(this, now, true);
}

void Loop::softirq(void* rq, uint32_t cpu, sim::Time now) {
    q_->complete_request(static_cast<blkmq::Request*>(rq), now, cpu, blkmq::DriverQueue::CompletionPath::SOFTIRQ);
}

std::string Loop::check_idle() const {
    if (in_hand_ || !cmd_list_.empty())
        return fmt::format("loop: {} commands never completed", cmd_list_.size() + (in_hand_ ? 1 : 0));
    return {};
}

void Loop::report(result::DeviceReport& r) const {
    r.model = "loop";
    r.add("commands", static_cast<double>(handled_));
    r.add("wakeups", static_cast<double>(wakeups_));
    r.add("commands_per_wakeup", wakeups_ ? static_cast<double>(handled_) / static_cast<double>(wakeups_) : 0.0, 2);
    r.add("migrations", static_cast<double>(migrations_));
    r.add("ksoftirqd_wakeups", static_cast<double>(softirq_wakeups_));
    r.add("worker_cpu_ms", static_cast<double>(worker_busy_.count()) / 1e6, 3);
}


// --- the model's descriptor ---

namespace {

using C = LoopConfig;
constexpr int64_t kBlockSizes[] = {512, 1024, 2048, 4096};
constexpr kind::Param<C> kParams[] = {
    kind::integer("mb", &C::size_bytes, 1, 1048576, "The backing file's size in 2^20 bytes, 1..1048576. Default {default}.",
                  1ULL << 20),
    kind::one_of("blocksize", &C::blocksize, kBlockSizes,
                 "Logical block size (LOOP_SET_BLOCK_SIZE): 512, 1024, 2048 or 4096. Default {default}."),
    kind::integer("hw_queue_depth", &C::hw_queue_depth, 1, 10240,
                  "Tags of the one hardware queue (the loop module's hw_queue_depth), 1..10240. Default {default}."),
    kind::time("cmd_cost", &C::cmd_cost,
               "The worker's CPU time per command besides the copy (loop_handle_cmd, lo_rw_aio, the backing "
               "file's read_iter/write_iter path). Default {default}. A time: integer nanoseconds or a string "
               "such as \"1us\".", 0),
    kind::integer("copy_mbps", &C::copy_bytes_per_s, 1, 1000000,
                  "The backing file's copy rate on the worker's CPU in 10^6 bytes/s (tmpfs: a memory copy), "
                  "1..1000000. Default {default}.", kind::kMB),
};

constinit const DeviceKindOf<C> kKind{
    "loop", "a loop device over a file in memory with direct I/O: a kworker copies each request on a host CPU",
    "The loop model's parameters (models/device/loop.h); defaults when left out.",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t, BuildCache&) -> std::unique_ptr<Device> {
         return std::make_unique<Loop>(eq, c);
     },
     .geometry = [](const C& c) { return DeviceGeometry{c.size_bytes, c.blocksize, 1, c.hw_queue_depth}; }}};

}  // namespace

const DeviceKind& loop_kind() { return kKind; }

}  // namespace blksim::dev
