// Everything one run measured: what the formatters in models/report print. Machine::run()
// gathers it from the models' report() functions.
#pragma once

#include <vector>

#include "models/result/cpu_report.h"
#include "models/result/device_report.h"
#include "models/result/fio_log.h"
#include "models/result/job_result.h"
#include "models/result/queue_report.h"
#include "sim/time.h"

namespace blksim::result {

struct RunResult {
    std::vector<JobResult> jobs;       // one per thread (numjobs clones are separate)
    std::vector<DiskUtil> disks;
    std::vector<QueueReport> queues;   // same order as disks
    std::vector<CpuReport> cpus;
    std::vector<DeviceReport> devices; // only the devices that report something
    std::vector<FioLog> logs;          // fio's log files (write_lat_log, ...), written by the CLI
    sim::Duration sim_time;
};

}  // namespace blksim::result
