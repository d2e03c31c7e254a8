// mq-deadline's debugfs (block/mq-deadline.c: deadline_queue_debugfs_attrs), for the state
// dump of a stalled or broken run. The kernel lists each FIFO's request pointers; a count
// and the head's sector and deadline say the same to a reader looking for what is held.
#include "models/sched/mq_deadline.h"

#include <fmt/format.h>

namespace blksim::sched {

using blkmq::Request;

std::string MqDeadline::debugfs_show(sim::Time now) const {
    std::string out;
    const auto dirs = {DD_READ, DD_WRITE};
    for (uint32_t p = 0; p < DD_PRIO_COUNT; ++p) {
        const DdPerPrio& pp = per_prio_[p];
        for (DdDataDir d : dirs) {
            const char* name = d == DD_READ ? "read" : "write";
            const FifoList& fifo = pp.fifo_list[d];
            fmt::format_to(std::back_inserter(out), "{}{}_fifo_list: {} request(s)", name, p, fifo.size());
            if (!fifo.empty()) {
                const Request& head = fifo.front();
                fmt::format_to(std::back_inserter(out), ", head sector {} deadline {} (jiffies now {})", head.sector,
                               jiffies(head.fifo_time), jiffies(now));
            }
            out += '\n';
            const Request* next = pp.next_rq[d];
            fmt::format_to(std::back_inserter(out), "{}{}_next_rq: {}\n", name, p,
                           next ? fmt::format("sector {}", next->sector) : std::string("(none)"));
        }
        fmt::format_to(std::back_inserter(out), "dispatch{}: {} request(s)\n", p, pp.dispatch.size());
    }
    fmt::format_to(std::back_inserter(out), "async_depth: {}\nbatching: {}\nstarved: {}\n", t_.async_depth,
                   batching_, starved_);
    const auto per_prio = [&](auto f) {
        return fmt::format("{} {} {}", f(DD_RT_PRIO), f(DD_BE_PRIO), f(DD_IDLE_PRIO));
    };
    fmt::format_to(std::back_inserter(out), "queued: {}\nowned_by_driver: {}\n",
                   per_prio([&](DdPrio p) { return dd_queued(p); }),
                   per_prio([&](DdPrio p) { return owned_by_driver(p); }));
    return out;
}

}  // namespace blksim::sched
