// loop: a block device over a file (drivers/block/loop.c), with the backing file opened for
// direct I/O (losetup --direct-io=on). The driver does no I/O of its own in ->queue_rq:
// loop_queue_rq() starts the request and loop_queue_work() adds its loop_cmd to the
// worker's cmd_list and queue_work()s the worker, a kworker of the device's unbound
// workqueue. The worker (loop_process_work) takes the commands in order, one at a time;
// for each, lo_rw_aio() hands the request's pages to the backing file's read_iter/write_iter
// and, as the file ends the I/O before returning (tmpfs copies the data), completes it at
// once with blk_mq_complete_request() from the worker's CPU.
//
// So every command costs CPU time on the worker's CPU, where the job threads run too: the
// worker is a task on the host's cores (cpu::Task), sharing a core with the job threads in
// its run queue, one command per step (cond_resched() between commands). A command costs a
// fixed part (loop_handle_cmd, lo_rw_aio, the file's read_iter setup) and a part per byte
// (the copy). The worker is woken (a context switch) when it was asleep and goes on without
// one while commands keep arriving. Not modelled: per-cgroup workers (every job is in the
// root cgroup, as in the calibration runs) and a backing file that queues its direct I/O
// (-EIOCBQUEUED: a file on a block device).
#pragma once

#include <cstdint>
#include <deque>

#include "models/blkmq/driver_api.h"
#include "models/cpu/cpu.h"
#include "models/cpu/ksoftirqd.h"
#include "models/device/device.h"
#include "sim/event_queue.h"
#include "sim/time.h"

namespace blksim::dev {

struct LoopConfig {
    uint64_t size_bytes = 1ULL << 30;  // the backing file's size
    uint32_t blocksize = 512;          // LOOP_SET_BLOCK_SIZE; 512 by default
    uint32_t hw_queue_depth = 128;     // the module parameter hw_queue_depth (LOOP_DEFAULT_HW_Q_DEPTH)
    // The worker's CPU time per command besides the copy: loop_handle_cmd, lo_rw_aio
    // (bvec iterator, kiocb) and the backing file's read_iter/write_iter path.
    sim::Duration cmd_cost = sim::Duration::ns(1'000);
    // The backing file's copy rate on the worker's CPU, bytes per second (tmpfs: a memory
    // copy between the page cache and the request's pages).
    uint64_t copy_bytes_per_s = 4'000'000'000;
};

class Loop final : public Device, private cpu::Task, private cpu::SoftirqAction {
public:
    Loop(sim::EventQueue& eq, const LoopConfig& cfg) : eq_(eq), cfg_(cfg) {}
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    uint32_t nr_hw_queues() const override { return 1; }
    uint32_t queue_depth() const override { return cfg_.hw_queue_depth; }
    uint64_t capacity_sectors() const override { return cfg_.size_bytes >> 9; }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }
    // A backing file with ->fsync: BLK_FEAT_WRITE_CACHE, a flush is vfs_fsync() on the file.
    bool write_cache() const override { return true; }
    std::string check_idle() const override;
    // The worker's figures: commands handled, wake-ups (commands per wake-up is the batching
    // a busy worker gets), moves between cores, its CPU time.
    void report(result::DeviceReport& r) const override;

    // The worker's CPU time for one command of `bytes` (loop_handle_cmd + the copy).
    sim::Duration command_cost(uint64_t bytes) const {
        return cfg_.cmd_cost + sim::Duration::ns(static_cast<int64_t>(bytes * 1'000'000'000 / cfg_.copy_bytes_per_s));
    }

private:
    // loop_process_work(), one command per step: switched in, take the next command.
    void run_step(sim::Time start) override;
    // The command's copy ended: complete it from this core, go on or sleep.
    void step_done(uint64_t);
    // blk_done_softirq() in ksoftirqd on `cpu`: the request ends there.
    void softirq(void* rq, uint32_t cpu, sim::Time now) override;
    // A command queued slightly ahead of the worker's present (a submitter's plug flush
    // plays out ahead of the event being run): wake for it then.
    void wake_at(uint64_t);
    void wake(sim::Time now);
    // The tick of the core the worker shares with another task: an idle core takes the
    // worker (nohz idle balancing), or the next tick looks again.
    void idle_balance(uint64_t);
    void arm_idle_balance(sim::Time now);
    bool shares_core();

    sim::EventQueue& eq_;
    LoopConfig cfg_;
    blkmq::DriverQueue* q_ = nullptr;
    // worker->cmd_list (lo->rootcg_cmd_list), each command with the instant loop_queue_rq
    // added it.
    struct Cmd {
        blkmq::Request* rq;
        sim::Time queued;
    };
    std::deque<Cmd> cmd_list_;
    blkmq::Request* in_hand_ = nullptr;  // the command the worker is copying
    uint32_t worker_cpu_ = 0;
    bool awake_ = false;       // the kworker is runnable or running
    bool switched_in_ = false; // it has paid its context switch since it last slept
    uint64_t handled_ = 0;
    uint64_t wakeups_ = 0;
    static constexpr uint32_t NO_CPU = UINT32_MAX;
    bool balance_pending_ = false;  // an idle_balance() event is pending
    uint32_t balance_to_ = NO_CPU;  // moved by idle balancing while running: where to
    uint64_t migrations_ = 0;
    uint64_t softirq_wakeups_ = 0;  // completions that woke a ksoftirqd
    sim::Duration worker_busy_;  // context switches and commands, completions not included
};

}  // namespace blksim::dev
