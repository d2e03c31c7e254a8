#include "models/sched/noop.h"

#include <memory>

#include <fmt/format.h>

#include "models/sched/scheduler_kind.h"

namespace blksim::sched {

void Noop::insert_request(blkmq::Request* rq, bool at_head, sim::Time /*now*/) {
    if (at_head)
        fifo_.push_front(*rq);
    else
        fifo_.push_back(*rq);
}

blkmq::Request* Noop::dispatch_request(uint32_t /*hctx_idx*/, sim::Time /*now*/) {
    if (fifo_.empty())
        return nullptr;
    blkmq::Request& rq = fifo_.front();
    fifo_.pop_front();
    return &rq;
}

void Noop::requests_merged(blkmq::Request* /*rq*/, blkmq::Request* next) {
    if (next->queuelist.is_linked())
        fifo_.erase(fifo_.iterator_to(*next));
}

std::string Noop::audit() const {
    // The FIFO's own count against a walk of it (constant_time_size keeps both).
    const auto walked = static_cast<std::size_t>(std::distance(fifo_.begin(), fifo_.end()));
    return walked == fifo_.size() ? std::string() : fmt::format("noop: FIFO holds {} requests, counts {}", walked, fifo_.size());
}

namespace {
constinit const SchedulerKindOf<NoopTunables> kNoopKind{
    "noop", "a FIFO: dispatch in insertion order, no policy merges (the example of docs/extending.md)",
    std::span<const Tunable<NoopTunables>>{},
    [](const NoopTunables&, const ElevatorContext&) -> std::unique_ptr<Elevator> { return std::make_unique<Noop>(); }};
}  // namespace

const SchedulerKind& noop_kind() { return kNoopKind; }

}  // namespace blksim::sched
