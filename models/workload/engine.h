// fio's I/O engines (ioengine=): how a job thread hands its io_us to the kernel and gets them
// back. JobThread runs fio's loop (backend.c do_io()); what differs between engines is here,
// one file each under engines/.
//
//   psync     one I/O per pread/pwrite; the thread sleeps in the syscall until it completes
//             (unless the driver completes it inline), then issues the next.
//   libaio    up to iodepth io_us in flight; io_submit() per iodepth_batch_submit io_us;
//   io_uring  when the queue is full, wait for iodepth_batch_complete_min completions and
//             reap up to iodepth_batch_complete_max. Completions are read from the shared
//             ring without a syscall when present (libaio's user_io_getevents, the CQ ring).
// libaio and io_uring differ only in their cost profile entries (engines/aio.h), and in
// io_uring's hipri: it reaps by spinning instead of sleeping (Engine::polls()); and in
// io_uring's sqthread_poll, where a kernel SQ thread submits (JobThread with its SqThread).
//   pvsync2   preadv2/pwritev2: psync's path (the kernel polls no synchronous I/O).
//   null      fio's engines/null.c: each io_u completes in ->queue; no kernel at all.
//
// What is fixed for the job's life (its depth, batch size, plug, reap cost, whether slat is
// kept) is data read without a call; what the loop asks once per step is virtual.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "models/cpu/cpu_config.h"
#include "models/workload/io_u.h"
#include "models/workload/job_config.h"
#include "sim/time.h"

namespace blksim::workload {

class Engine {
public:
    virtual ~Engine() = default;
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // What this pass of fio's loop does about completions (wait_for_completions()).
    struct Reap {
        uint32_t max = 0;   // reap up to this many now (0: none)
        uint32_t wait = 0;  // nothing to reap: sleep until this many have completed (0: go on)
    };
    // `nr_done` completions wait to be reaped, `in_kernel` io_us are in flight; `full`: no
    // free io_u; `draining`: the job winds down or pauses, and waits for everything.
    virtual Reap getevents(uint32_t nr_done, uint32_t in_kernel, bool full, bool draining) const = 0;
    // The CPU time a thread woken from a sleep pays on return, besides the context switch;
    // `submitting`: it slept inside a submission (for a tag), not in a wait for completions.
    virtual sim::Duration wake_cost(bool submitting) const = 0;
    // The submit syscall begins at `t` with `first` the first io_u of its batch.
    virtual void queued(IoU& first, sim::Time t) const = 0;
    // The submit syscall returned at `ret` with `submitted` (indexes into `ious`) handed to
    // the kernel. An engine that keeps slat stamps their issue_time (io_submit returned:
    // slat ends). True: the thread stays in the syscall until its I/O completes (pread),
    // since `io_pending` (in flight, none completed). Data, not a call: it runs every step.
    bool committed(std::span<const uint32_t> submitted, std::span<IoU> ious, sim::Time ret, bool io_pending) const {
        if (slat_)
            for (const uint32_t i : submitted)
                if (ious[i].ddir < DDIR_TRIM)  // a trim or fsync: stamped when its ioctl began
                    ious[i].issue_time = ret;
        return blocks_ && io_pending;
    }

    // io_us the job keeps (fio's iodepth).
    uint32_t depth() const { return depth_; }
    // io_us queued per submit syscall (fio's iodepth_batch_submit).
    uint32_t batch() const { return batch_; }
    // The task holds a plug (blk_start_plug) around each submission.
    bool plugs() const { return plugs_; }
    // fio keeps submission latency (slat) for the engine's io_us: not for sync engines.
    bool slat() const { return slat_; }
    // The CPU time of one reap call besides its completions' (cpu::CpuCosts::reap).
    sim::Duration reap_cost() const { return reap_cost_; }
    // Waiting for completions, the thread spins on its CPU (io_uring_enter(GETEVENTS) on an
    // IORING_SETUP_IOPOLL ring) instead of sleeping, and its bios ask for polled completion
    // (REQ_POLLED): a queue that can poll completes them without an interrupt.
    bool polls() const { return polls_; }
    // fio's FIO_DISKLESSIO (the null engine): an io_u completes in ->queue, without a syscall,
    // a bio or a device; only fio's loop runs.
    bool diskless() const { return diskless_; }
    // fio counts the engine's submit and reap calls (io_u_mark_submit / _complete).
    bool marks_calls() const { return marks_calls_; }
    // The submit syscall returns only once its I/O completed (psync, pvsync2).
    bool blocks() const { return blocks_; }

protected:
    // `blocks`: the submit syscall returns only once its I/O completed (pread).
    Engine(uint32_t depth, uint32_t batch, bool plugs, bool slat, bool blocks, sim::Duration reap_cost)
        : depth_(depth), batch_(batch), plugs_(plugs), slat_(slat), blocks_(blocks), reap_cost_(reap_cost) {}
    bool polls_ = false;
    bool diskless_ = false;
    bool marks_calls_ = true;

private:
    uint32_t depth_;
    uint32_t batch_;
    bool plugs_;
    bool slat_;
    bool blocks_;
    sim::Duration reap_cost_;
};

// The engine `cfg.ioengine` names, for one job thread on `host`.
std::unique_ptr<Engine> make_engine(const JobConfig& cfg, const cpu::HostConfig& host);

}  // namespace blksim::workload
