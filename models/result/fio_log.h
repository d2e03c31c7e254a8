// The samples of fio's per-job log files (write_lat_log, write_bw_log, write_iops_log),
// collected during the run (models/workload/io_log.h) and written once it has ended, as fio
// writes its logs at the job's end, by models/report/fio_log.h (which says what each field
// becomes in the file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace blksim::result {

struct LogSample {
    uint64_t time_ms = 0;
    uint64_t value = 0;
    uint64_t offset = 0;
    uint32_t bs = 0;
    uint16_t ioprio = 0;   // class << 13 | level (fio's ioprio value)
    uint8_t ddir = 0;
};

struct FioLog {
    std::string path;              // as fio names it: NAME_clat.3.log (relative: the current directory)
    bool log_offset = false;
    bool log_prio = false;
    std::vector<LogSample> samples;
};

// A log file a run will write, known once the machine is built: the job asking for it (its
// index in the scenario's jobs), the fio option that does and the path.
struct FioLogFile {
    std::size_t job = 0;
    std::string option;   // write_lat_log, write_bw_log or write_iops_log
    std::string path;
};

}  // namespace blksim::result
