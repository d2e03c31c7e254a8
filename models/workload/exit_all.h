// fio's exitall, exitall_on_error and exit_what: when a job exits, other jobs are told to
// stop (fio's backend.c thread_main() calls fio_terminate_threads() with the exiting job's
// group and exit_what). exitall is one switch for the whole run in fio (a global set by the
// option's callback): a job anywhere with exitall=1 makes every job's exit terminate others;
// exitall_on_error does so for a job that exits in error.
#pragma once

#include <memory>
#include <vector>

#include "models/workload/job_thread.h"

namespace blksim::workload {

// Hooks itself onto the threads when some job asks for it; nothing otherwise.
void install_exit_all(const std::vector<std::unique_ptr<JobThread>>& threads);

}  // namespace blksim::workload
