#include "models/workload/exit_all.h"

#include <algorithm>

namespace blksim::workload {

namespace {

// libfio.c fio_terminate_threads(): group: the jobs of the exiting job's group; stonewall:
// every job that has started (those of later stonewalled groups still run); all: every job,
// and those not yet started never run.
void terminate_threads(const std::vector<std::unique_ptr<JobThread>>& threads, const JobThread& exiting,
                       sim::Time now) {
    const JobConfig::ExitWhat what = exiting.config().exit_what;
    for (const auto& t : threads) {
        const bool hit = what == JobConfig::ExitWhat::ALL ||
                         (what == JobConfig::ExitWhat::STONEWALL && t->started()) ||
                         (what == JobConfig::ExitWhat::GROUP && t->config().groupid == exiting.config().groupid);
        if (hit)
            t->terminate(now);
    }
}

}  // namespace

void install_exit_all(const std::vector<std::unique_ptr<JobThread>>& threads) {
    const bool exitall = std::any_of(threads.begin(), threads.end(), [](const auto& t) { return t->config().exitall; });
    for (const auto& t : threads) {
        if (!exitall && !t->config().exitall_on_error)
            continue;
        JobThread* self = t.get();
        t->on_exit([&threads, self, exitall](sim::Time now) {
            if (exitall || self->error() != 0)
                terminate_threads(threads, *self, now);
        });
    }
}

}  // namespace blksim::workload
