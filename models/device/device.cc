#include "models/device/device.h"

#include "models/blkmq/driver_api.h"

namespace blksim::dev {

void Device::end_request(blkmq::DriverQueue* q, blkmq::Request* rq, sim::Time now, uint32_t irq_cpu,
                         blkmq::DriverQueue::CompletionPath path) const {
    if (q)
        q->complete_request(rq, now, irq_cpu, path);
    else if (sink_)
        sink_(sink_obj_, rq, now);
}

}  // namespace blksim::dev
