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

#include "models/result/fio_log.h"

namespace blksim::report {

// The formatters print the result structs the models fill.
using namespace blksim::result;

// One line as fio prints it, with its '\n'.
std::string format_log_line(const FioLog& log, const LogSample& s);

// Writes the log's lines to `out` (its file: the caller opens it, before the run, and checks
// that every byte reached it).
void write_fio_log(const FioLog& log, std::ostream& out);

}  // namespace blksim::report
