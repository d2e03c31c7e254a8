#include "models/result/report_check.h"

#include <fmt/format.h>

namespace blksim::result {

std::string impossible_in(const RunResult& r) {
    const sim::Duration span = r.sim_time;
    for (const CpuReport& c : r.cpus) {
        if (c.busy > span || c.irq > c.busy || c.spin > c.busy || c.busy.count() < 0 || c.irq.count() < 0 ||
            c.spin.count() < 0)
            return fmt::format("cpu {} was busy {} ns (irq {} ns, spin {} ns) in a run of {} ns (rule: a core does "
                               "one thing at a time)", c.id, c.busy.count(), c.irq.count(), c.spin.count(),
                               span.count());
    }
    // A job thread runs on one core at a time: its usr + sys (its steps, the kernel work its
    // syscalls charged, its poll spin) fit in the run, and sys within them.
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
        const JobResult& j = r.jobs[i];
        if (j.cpu_busy > span || j.cpu_sys > j.cpu_busy || j.cpu_sys.count() < 0)
            return fmt::format("job thread {} ('{}') used {} ns of CPU ({} ns system) in a run of {} ns (rule: a "
                               "thread runs on one core at a time)", i, j.name, j.cpu_busy.count(),
                               j.cpu_sys.count(), span.count());
    }
    for (const DiskUtil& d : r.disks) {
        if (!(d.util >= 0.0) || d.util > 100.0)
            return fmt::format("disk {} was {:.2f} % utilised (rule: a device is busy at most all of the run)",
                               d.name, d.util);
    }
    for (const QueueReport& q : r.queues) {
        // Every tag space of the queue counted once (tags_in_use_mean is their sum), at most
        // nr_hw_queues of them; a double sum may round one unit in the last place over.
        const double tags = static_cast<double>(q.tag_depth) * static_cast<double>(q.nr_hw_queues);
        if (!(q.tags_in_use_mean >= 0.0) || q.tags_in_use_mean > tags * (1.0 + 1e-12))
            return fmt::format("queue {}: {:.4f} driver tags in use on average of {} (rule: a tag is held by one "
                               "request at a time)", q.name, q.tags_in_use_mean, q.tag_depth * q.nr_hw_queues);
        const std::pair<const char*, const StageStat*> stages[] = {
            {"Q2G", &q.q2g}, {"G2I", &q.g2i}, {"I2D", &q.i2d}, {"D2C", &q.d2c}, {"Q2C", &q.q2c}};
        for (const auto& [stage, st] : stages) {
            if (st->stat.count() > 0 && st->stat.min() < 0)
                return fmt::format("queue {}: a request's {} lasted {} ns (rule: every stage ends at or after its "
                                   "start)", q.name, stage, st->stat.min());
        }
    }
    return {};
}

}  // namespace blksim::result
