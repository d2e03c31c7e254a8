// Typed configuration of the host CPUs. Filled by the scenario loader from a CPU cost
// profile (scenarios/cpu/*.json); models never see JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.h"

namespace blksim::cpu {

// What each kernel/user path step costs on the CPU that runs it. The names follow the
// kernel function (or fio step) whose work they stand for.
struct CpuCosts {
    sim::Duration syscall;          // syscall entry + exit (pread, io_submit, io_uring_enter)
    sim::Duration io_prep;          // fio: pick offset, prepare one io_u (user space)
    sim::Duration bio_submit;       // bio alloc + submit_bio + blk_mq_submit_bio bookkeeping
    sim::Duration rq_alloc;         // __blk_mq_alloc_requests incl. one tag allocation
    sim::Duration plug;             // blk_add_rq_to_plug + the share of blk_mq_flush_plug_list
    sim::Duration queue_rq;         // blk_mq_start_request + driver ->queue_rq
    sim::Duration irq;              // hard IRQ entry/exit for one completion interrupt
    sim::Duration softirq;          // raising + running BLOCK_SOFTIRQ (or the IPI to get there)
    sim::Duration complete_rq;      // blk_mq_end_request: bio endio, stats, tag free
    sim::Duration io_complete;      // engine side of one completion (aio ring / CQE / pread return)
    sim::Duration reap;             // io_getevents / CQ peek per reap call (besides syscall)
    sim::Duration context_switch;   // a blocked task woken and switched back in
    // The elevator's lock (mq-deadline's dd->lock), charged through cpu::Spinlock:
    sim::Duration elv_insert;       // held per request inserted (dd_insert_request)
    sim::Duration elv_dispatch;     // held per request dispatched (dd_dispatch_request)
    sim::Duration lock_handoff;     // a contended lock's cache line moving to another core
    // bfq's bfqd->lock, held per request by each hook (Documentation/block/bfq-iosched.rst:
    // insert + dispatch + completion total 1.9 us where mq-deadline's take 0.7 us):
    sim::Duration bfq_insert;       // bfq_insert_request
    sim::Duration bfq_dispatch;     // bfq_dispatch_request
    sim::Duration bfq_finish;       // bfq_finish_requeue_request (completion, under the lock too)
    // The driver stack below ->queue_rq for devices behind the SCSI midlayer, on top of
    // queue_rq / complete_rq (which stand for blk-mq's part and a thin driver such as nvme):
    // ATA (libata: scsi_queue_rq -> ata_scsi_queuecmd -> ata_qc_issue -> ahci_qc_issue, and
    // ahci_handle_port_interrupt -> ata_qc_complete -> scsi_done on completion) and SCSI (a
    // SAS HBA or RAID card: scsi_queue_rq -> the LLD's queuecommand, and its reply-queue
    // handler -> scsi_done). 0 when a profile leaves them out (docs/model.md).
    sim::Duration ata_queue_rq;
    sim::Duration ata_complete;
    sim::Duration scsi_queue_rq;
    sim::Duration scsi_complete;
};

// The hypervisor taking a guest's vCPU away (host preemption; steal time a guest without
// steal accounting cannot see): stalls arriving as a Poisson stream of `per_s` a second
// while the vCPU runs, each of an exponentially distributed length of mean `mean`. The
// guest's clock goes on meanwhile, so whatever the vCPU was running (or was about to run)
// ends that much later (cpu::OsJitter).
struct VcpuStall {
    double per_s = 0;
    sim::Duration mean;
};

struct HostConfig {
    uint32_t nr_cpus = 1;
    std::string cost_profile;  // profile name, for the report
    CpuCosts costs;
    // __submit_bio() holds a plug around blk_mq_submit_bio() (commit 060406c61c7c "block:
    // add plug while submitting IO", May 2024, v6.11). false: an older kernel, where a
    // psync direct bio is submitted with no plug (__blkdev_direct_IO_simple has none) and,
    // with an elevator, inserted and the hctx run asynchronously on kblockd.
    bool submit_bio_plug = true;
    // OS noise: the mean of an exponentially distributed delay added to each submission step
    // of a job thread, for what takes a CPU from it that the model does not run (timer ticks,
    // RCU, other tasks, a kworker). Without it identical jobs stay in exact lockstep, which no
    // real machine does. Drawn from each job's own random stream: deterministic per seed.
    // 0 (the default) = none.
    sim::Duration os_noise;
    // The CPUs share a last-level cache as the kernel sees them (its sd_llc domain spans
    // them): a woken task goes to an idle CPU of it when its previous one is busy. false: a
    // guest whose CPUs expose no cache topology (Firecracker), where a woken task stays on its
    // previous CPU (cpu::select_task_rq).
    bool shared_llc = true;
    // EEVDF with RUN_TO_PARITY (Linux 6.6+, on by default): a task woken onto a busy core
    // sets need_resched only when EEVDF's pick would choose it (cpu::CfsRq, eevdf.h): not
    // while the running task is eligible and short of the deadline it had when switched in
    // (sysctl_sched_base_slice, 0.75 ms x (1 + ilog2(CPUs, at most 8))). false: every such
    // wake-up sets need_resched (CFS's placement of a long sleeper, kernels before 6.6).
    bool run_to_parity = false;
    // The scheduler tick, other tasks preempting the cores and the scheduler's wake-up
    // latency (cpu::OsJitter): what makes identical jobs drift apart. false: none, and
    // identical jobs run in exact lockstep.
    bool os_jitter = true;
    // Host preemption of every vCPU, as classes of stalls (VcpuStall) measured on the host
    // (scripts/vcpu-stalls.py). Empty (the default): a machine of its own, or a host that
    // never preempts its guest.
    std::vector<VcpuStall> vcpu_preemption;
};

}  // namespace blksim::cpu
