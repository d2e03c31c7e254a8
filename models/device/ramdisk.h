// ramdisk: a device that ends every request a fixed time after it was issued, whatever its
// size or direction, with the completion interrupt on the issuing CPU. No media, no cache,
// no queue of its own beyond its tags. The example of adding a device model
// (docs/extending.md); also a clean latency floor for comparing schedulers.
#pragma once

#include <cstdint>

#include "models/blkmq/driver_api.h"
#include "models/device/device.h"
#include "sim/event_queue.h"
#include "sim/time.h"

namespace blksim::dev {

struct RamdiskConfig {
    sim::Duration latency = sim::Duration::ns(5'000);  // issue to completion, every request
    uint32_t nr_hw_queues = 1;
    uint32_t queue_depth = 128;   // tags per hardware queue
    uint64_t size_bytes = 16ULL * 1000 * 1000 * 1000;
    uint32_t blocksize = 512;
};

class Ramdisk final : public Device {
public:
    Ramdisk(sim::EventQueue& eq, const RamdiskConfig& cfg) : eq_(eq), cfg_(cfg) {}
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    uint32_t nr_hw_queues() const override { return cfg_.nr_hw_queues; }
    uint32_t queue_depth() const override { return cfg_.queue_depth; }
    uint64_t capacity_sectors() const override { return cfg_.size_bytes >> 9; }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }

private:
    // One event per request: its payload is the request.
    void done(uint64_t rq);

    sim::EventQueue& eq_;
    RamdiskConfig cfg_;
    blkmq::DriverQueue* q_ = nullptr;
};

}  // namespace blksim::dev
