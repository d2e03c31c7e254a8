// blk-mq's debugfs (block/blk-mq-debugfs.c) for one queue: what a developer reads under
// /sys/kernel/debug/block/<dev>/ when a queue hangs, printed with a stalled or broken run's
// message so that it shows where every request is held.
#include "models/blkmq/request_queue.h"

#include <fmt/format.h>

namespace blksim::blkmq {

namespace {

// blk_mq_debugfs_tags_show(), with the sbitmap_queue's wait state.
void tags_show(std::string& out, uint32_t h, const char* name, const BlkMqTags& t) {
    fmt::format_to(std::back_inserter(out), "hctx{}/{}: nr_tags={} busy={} wake_batch={} waiters={} "
                   "active_queues={}\n", h, name, t.depth(), t.in_use(), t.wake_batch(), t.nr_waiters(),
                   t.active_queues);
}

}  // namespace

std::string RequestQueue::debugfs_show(sim::Time now) const {
    std::string out;
    auto to = std::back_inserter(out);
    fmt::format_to(to, "{}: scheduler={} allocated={} freed={} held by the elevator={}\n", name(), config().scheduler,
                   allocated_, freed_, elv_held_);
    // The debugfs "requeue_list" attribute: requests the driver gave back, waiting for the
    // requeue work to put them back on their hctx.
    fmt::format_to(to, "requeue_list: {} request(s){}\n", requeue_list_.size(),
                   requeue_work_pending_ ? ", requeue work queued" : "");
    for (uint32_t h = 0; h < nr_hw_queues(); ++h) {
        const HwQueue& hc = hctx(h);
        tags_show(out, h, "tags", hc.tags);
        if (hc.sched_tags)
            tags_show(out, h, "sched_tags", *hc.sched_tags);
        fmt::format_to(to, "hctx{}/state: {}{}{}\n", h, hc.sched_restart ? "SCHED_RESTART " : "",
                       hc.run_pending ? fmt::format("run queued at {} ns ", hc.run_at.ns()) : std::string(),
                       hc.dispatch_busy ? fmt::format("dispatch_busy={}", hc.dispatch_busy) : std::string());
        fmt::format_to(to, "hctx{}/dispatch: {} request(s), ctx lists {}; active={} in the driver={}\n", h,
                       hc.dispatch.size(), hc.sw_pending.size(), hc.nr_active, hc.in_driver);
    }
    if (elv_audit_) {
        const std::string sched = elv_audit_->debugfs_show(now);
        std::size_t from = 0;
        while (from < sched.size()) {  // each line as sched/<attribute>
            const std::size_t eol = sched.find('\n', from);
            const std::size_t end = eol == std::string::npos ? sched.size() : eol;
            fmt::format_to(to, "sched/{}\n", std::string_view(sched).substr(from, end - from));
            from = end + 1;
        }
    }
    return out;
}

}  // namespace blksim::blkmq
