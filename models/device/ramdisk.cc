#include "models/device/ramdisk.h"

#include <memory>

#include "models/device/device_kind.h"

namespace blksim::dev {

BlkStatus Ramdisk::queue_rq(blkmq::Request* rq, bool /*last*/, sim::Time now, uint32_t /*cpu*/) {
    q_->start_request(rq, now);
    eq_.at<&Ramdisk::done>(now + cfg_.latency, this, reinterpret_cast<uintptr_t>(rq));
    return BlkStatus::OK;
}

void Ramdisk::done(uint64_t arg) {
    auto* rq = reinterpret_cast<blkmq::Request*>(static_cast<uintptr_t>(arg));
    q_->complete_request(rq, eq_.now(), rq->mq_ctx_cpu, blkmq::DriverQueue::CompletionPath::DEVICE_IRQ);
}

// --- the model's descriptor ---

namespace {

using C = RamdiskConfig;
constexpr int64_t kBlockSizes[] = {512, 4096};
constexpr kind::Param<C> kParams[] = {
    kind::time("latency", &C::latency,
               "Issue to completion of every request, whatever its size. Default {default}. A time: integer "
               "nanoseconds or a string such as \"5us\".", 0),
    kind::integer("nr_hw_queues", &C::nr_hw_queues, 1, 1024,
                  "Hardware queues, 1..1024 (capped at the number of CPUs). Default {default}."),
    kind::integer("queue_depth", &C::queue_depth, 1, 10240, "Tags per hardware queue, 1..10240. Default {default}."),
    kind::integer("gb", &C::size_bytes, 1, 1048576, "Capacity in 10^9 bytes, 1..1048576. Default {default}.", kind::kGB),
    kind::one_of("blocksize", &C::blocksize, kBlockSizes, "Logical block size: 512 or 4096. Default {default}."),
};

constinit const DeviceKindOf<C> kKind{
    "ramdisk", "fixed latency per request, no media: the example device of docs/extending.md",
    "The ramdisk model's parameters (models/device/ramdisk.h); defaults when left out.",
    {.params = kParams,
     .make = [](const C& c, sim::EventQueue& eq, uint32_t, BuildCache&) -> std::unique_ptr<Device> {
         return std::make_unique<Ramdisk>(eq, c);
     },
     .geometry = [](const C& c) { return DeviceGeometry{c.size_bytes, c.blocksize, c.nr_hw_queues, c.queue_depth}; }}};

}  // namespace

const DeviceKind& ramdisk_kind() { return kKind; }

}  // namespace blksim::dev
