// What a device driver sees of the request queue it serves, as the kernel's drivers see
// include/linux/blk-mq.h rather than block/blk-mq.c: start a request it accepted, give one
// back, end one, and the hctx → CPU map its interrupts follow. RequestQueue implements it;
// a device model includes this header, never request_queue.h.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "sim/time.h"

namespace blksim::cpu {
class Cpu;
struct CpuCosts;
}  // namespace blksim::cpu

namespace blksim::blkmq {

struct Request;

class DriverQueue {
public:
    // How the driver ends a request; decides which CPU pays for what (docs/references.md §1.10).
    enum class CompletionPath : uint8_t {
        INLINE,      // ended inside ->queue_rq (null_blk irqmode=0)
        SOFTIRQ,     // blk_mq_complete_request() from process context (null_blk irqmode=1)
        TIMER_IRQ,   // ended straight from an hrtimer interrupt (null_blk irqmode=2)
        DEVICE_IRQ,  // a device interrupt → blk_mq_complete_request(): IPI/softirq rules
        POLLED,      // found by the submitter polling the queue (blk_mq_poll): on its CPU, no interrupt
    };

    // Drivers call this from ->queue_rq once they accept a request (blk_mq_start_request):
    // trace D, the request now counts as in flight at the driver.
    virtual void start_request(Request* rq, sim::Time now) = 0;

    // blk_mq_requeue_request(rq, kick=true), from the driver's ->queue_rq on `cpu`: the
    // request comes back (trace R; an elevator's request gives its driver tag back and the
    // policy's requeue hook runs), waits on q->requeue_list, and the requeue work (kblockd)
    // inserts it at the head of the elevator or the software queue and runs every hctx.
    // The driver then answers BLK_STS_OK: the request is no longer its business.
    virtual void requeue_request(Request* rq, sim::Time now, uint32_t cpu) = 0;

    // Called by the device at `now` on `irq_cpu`: picks the completing CPU, charges the
    // completion work there, ends the request (trace C, bio end_io) and frees it.
    virtual void complete_request(Request* rq, sim::Time now, uint32_t irq_cpu, CompletionPath path) = 0;
    // blk_mq_complete_need_ipi(): whether a completion on `cpu` of a request submitted on
    // `submitter` goes there by IPI (rq_affinity, and whether the two CPUs share a cache).
    // A driver ending requests from a task's context raises the softirq itself otherwise.
    virtual bool complete_need_ipi(uint32_t cpu, uint32_t submitter) const = 0;

    virtual uint32_t nr_hw_queues() const = 0;
    // The first CPU mapped to hctx `i`: where its kblockd work runs when no CPU of its own
    // queued it, and where a driver whose reply queues follow the hctxs (managed MSI-X
    // affinity: megaraid_sas, NVMe) takes the hctx's completion interrupt.
    virtual uint32_t hctx_first_cpu(uint32_t i) const = 0;

    // The host's cores and what kernel work costs on them, for a driver that runs its own
    // work on a CPU (loop's worker, a kworker competing with the submitting threads).
    virtual std::span<const std::unique_ptr<cpu::Cpu>> cpus() const = 0;
    virtual const cpu::CpuCosts& costs() const = 0;

protected:
    ~DriverQueue() = default;
};

}  // namespace blksim::blkmq
