// bfq's state for the dump of a stalled or broken run. The kernel's bfq has no debugfs
// attributes of its own (its state reaches blktrace as messages); this shows what those
// messages would let a reader reconstruct: the queue in service, the idle timer, and each
// busy queue's requests, budget and flags.
#include "models/sched/bfq.h"

#include <fmt/format.h>

namespace blksim::sched {

std::string Bfq::debugfs_show(sim::Time now) const {
    std::string out;
    auto to = std::back_inserter(out);
    const BfqQueue* in_service = in_service_queue();
    fmt::format_to(to, "in_service_queue: {}\n", in_service ? fmt::format("pid {}", in_service->pid) : "(none)");
    fmt::format_to(to, "idle_slice_timer: {}\n",
                   idle_timer_armed() ? fmt::format("armed, fires in {} ns", (idle_timer_expires() - now).count())
                                      : std::string("off"));
    fmt::format_to(to, "busy_queues: {}\ntot_rq_in_driver: {}\nqueued: {}\n", busy_queues(), tot_rq_in_driver(),
                   queued());
    constexpr size_t kMaxListed = 16;  // a dump, not a listing of thousands of queues
    size_t listed = 0, busy = 0;
    for (const auto& q : queues_) {
        if (!q->busy && q->dispatched == 0)
            continue;
        if (++busy > kMaxListed)
            continue;
        ++listed;
        fmt::format_to(to, "bfqq pid {}: class {} weight {} queued {}+{} (async+sync) dispatched {} budget {} "
                           "max_budget {}{}{}\n",
                       q->pid, q->ioprio_class, q->entity.orig_weight, q->queued[0], q->queued[1], q->dispatched,
                       q->entity.budget, q->max_budget, q->wait_request ? " wait_request" : "",
                       q->fifo_expire ? " fifo_expire" : "");
    }
    if (busy > listed)
        fmt::format_to(to, "({} more queues)\n", busy - listed);
    return out;
}

}  // namespace blksim::sched
