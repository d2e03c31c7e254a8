#include "models/device/nvme.h"

#include <algorithm>

namespace blksim::dev {

Nvme::Nvme(sim::EventQueue& eq, const NvmeConfig& cfg, uint32_t nr_cpus)
    : eq_(eq), cfg_(cfg), nr_queues_(cfg.nr_io_queues ? cfg.nr_io_queues : nr_cpus) {
    std::vector<int64_t> zeros(std::max(1u, cfg.parallel_units), 0);
    units_ = decltype(units_)(std::greater<>(), std::move(zeros));
}

BlkStatus Nvme::queue_rq(blkmq::Request* rq, bool /*last*/, sim::Time now, uint32_t /*cpu*/) {
    q_->start_request(rq, now);
    // Controller: one command at a time.
    const sim::Time fetched = sim::max(now, ctrl_free_) + cfg_.cmd_overhead;
    ctrl_free_ = fetched;
    if (rq->op == blkmq::ReqOp::FLUSH) [[unlikely]] {
        // Flush: the volatile cache written out; no data crosses the link.
        eq_.at<&Nvme::complete>(fetched + cfg_.flush_latency, this, reinterpret_cast<uint64_t>(rq));
        return BlkStatus::OK;
    }
    // Flash: the earliest free unit.
    const uint64_t bytes = rq->bytes();
    const uint64_t extra_4k = bytes > 4096 ? (bytes - 1) / 4096 : 0;
    const sim::Duration media = (rq->op == blkmq::ReqOp::WRITE ? cfg_.write_latency : cfg_.read_latency) +
                                cfg_.per_4k * static_cast<int64_t>(extra_4k) +
                                (rq->fua() ? cfg_.program_latency : sim::Duration{});
    const sim::Time unit_start = sim::max(fetched, sim::Time::from_ns(units_.top()));
    units_.pop();
    const sim::Time media_done = unit_start + media;
    units_.push(media_done.ns());
    // Link: the data crosses one transfer at a time.
    const auto xfer = sim::Duration::ns(static_cast<int64_t>(bytes * 1'000'000'000 / cfg_.link_bytes_per_s));
    const sim::Time done = sim::max(media_done, link_free_) + xfer;
    link_free_ = done;
    eq_.at<&Nvme::complete>(done, this, reinterpret_cast<uint64_t>(rq));
    return BlkStatus::OK;
}

// The queue pair's MSI-X vector is affine to the CPUs mapped to it: the interrupt arrives on
// the submitting CPU's queue CPU (with one queue per CPU, the submitter itself).
void Nvme::complete(uint64_t rq_addr) {
    auto* rq = reinterpret_cast<blkmq::Request*>(rq_addr);
    q_->complete_request(rq, eq_.now(), rq->mq_ctx_cpu, blkmq::DriverQueue::CompletionPath::DEVICE_IRQ);
}

}  // namespace blksim::dev
