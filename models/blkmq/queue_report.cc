// What a request queue hands the report at the end of a run: fio's disk stats (diskstats'
// ios, merges, ticks and util) and blksim's own figures (btt's stages, tags, budget,
// flushes, the elevator's locks).
#include "models/blkmq/request_queue.h"

#include <algorithm>
#include <utility>

namespace blksim::blkmq {

std::vector<result::LockReport> RequestQueue::lock_reports() const {
    std::vector<result::LockReport> out;
    if (!elevator_)
        return out;
    if (elv_ctx_locks_.empty()) {
        result::LockReport r;
        r.name = elv_lock_.name();
        elv_lock_.report(r);
        out.push_back(r);
        return out;
    }
    for (const auto* group : {&elv_ctx_locks_, &elv_hctx_locks_}) {
        result::LockReport r;
        r.name = name_ + (group == &elv_ctx_locks_ ? ".kcq" : ".khd");
        r.instances = static_cast<uint32_t>(group->size());
        for (const cpu::Spinlock& l : *group)
            l.report(r);
        out.push_back(r);
    }
    return out;
}

void RequestQueue::report(sim::Time end, result::DiskUtil& du, result::QueueReport& qr) {
    auto& s = stats_;
    du.name = name();
    du.ios = s.ios;
    du.merges = s.merges;
    du.ticks = {static_cast<uint64_t>(s.ticks_ns[0] / 1'000'000),
                static_cast<uint64_t>(s.ticks_ns[1] / 1'000'000)};
    du.in_queue = du.ticks[0] + du.ticks[1];
    du.util = end.ns() > 0 ? 100.0 * static_cast<double>(busy_time(end).count()) /
                                 static_cast<double>(end.ns())
                           : 0.0;

    qr.name = name();
    qr.scheduler = config().scheduler;
    qr.q2g = std::move(s.q2g);
    qr.g2i = std::move(s.g2i);
    qr.i2d = std::move(s.i2d);
    qr.d2c = std::move(s.d2c);
    qr.q2c = std::move(s.q2c);
    qr.nr_hw_queues = nr_hw_queues();
    qr.tag_depth = nr_hw_queues() ? hctx(0).tags.depth() : 0;
    qr.tag_set_queues = std::max<uint32_t>(1, tag_set_.nr_queues());
    // Each tag space once: with host-wide tags every hctx points at the same one.
    for (uint32_t h = 0; h < nr_hw_queues(); ++h) {
        const BlkMqTags& tags = hctx(h).tags;
        if (h > 0 && &tags == &hctx(0).tags)
            continue;
        qr.tags_in_use_mean += tags.mean_in_use(end);
        qr.tag_sleeps += tags.nr_sleeps();
    }
    qr.has_elevator = elevator_ != nullptr;
    for (const auto& st : sched_tags_)
        qr.sched_tag_sleeps += st->nr_sleeps();
    qr.driver_tag_waits = s.driver_tag_waits;
    qr.resched_handoffs = s.resched_handoffs;
    qr.direct_issues = s.direct_issues;
    qr.inserts = s.inserts;
    qr.resource_requeues = s.resource_requeues;
    qr.requeues = s.requeues;
    qr.locks = lock_reports();
    if (const auto* f = dynamic_cast<const sched::ElevatorFigures*>(elevator_.get()))
        f->figures(qr.sched_figures);
    qr.budget = budget_depth();
    qr.budget_exhausted = s.budget_exhausted;
    qr.flushes = s.flushes;
    qr.flush_time = sim::Duration::ns(s.flush_ticks_ns);
}

}  // namespace blksim::blkmq
