// fio's per-job log files (write_lat_log, write_bw_log, write_iops_log), as fio 3.33's
// stat.c flush_samples() writes them: one line per sample,
//
//   time (msec), value, ddir, bs[, offset], prio
//
// time since the job's start (after ramp_time), ddir 0 read / 1 write, the offset only with
// log_offset=1, and prio the I/O's ioprio value as "0x%04x" with log_prio=1, else 1 when its
// class is RT and 0 otherwise. The samples are collected during the run
// (models/workload/io_log.h) and written once it has ended, as fio writes its logs at the
// job's end.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace blksim::report {

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

// One line as fio prints it, with its '\n'.
std::string format_log_line(const FioLog& log, const LogSample& s);

// Writes the log's lines to `out` (its file: the caller opens it, before the run, and checks
// that every byte reached it).
void write_fio_log(const FioLog& log, std::ostream& out);

}  // namespace blksim::report
