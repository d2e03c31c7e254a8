// fio's report formatters: the normal text report (with blksim's own section after it), JSON
// and json+, terse. Each file describes its formats (output_format.h) beside its formatter.
#pragma once

#include <string>

#include "models/report/output_format.h"
#include "models/result/run_result.h"

namespace blksim::report {

// fio's text report. group_reporting folds the jobs of one group into one block.
std::string format_normal(const RunResult& r, bool group_reporting);
// blksim's own section after fio's text: per-stage latency per disk (mean and the
// 50/90/99/99.9th percentiles), tag occupancy and sleeps, direct vs inserted issue, and per-CPU
// busy / interrupt time as a percentage of the simulated run.
std::string format_blksim_extras(const RunResult& r);
// fio's --output-format=json layout; json_plus adds json+'s "bins" (histogram bucket value
// in ns -> count) to every latency object that has percentiles (clat_ns, prios' clat_ns).
std::string format_json(const RunResult& r, bool group_reporting, bool json_plus = false);

// fio's terse output, version 3 (fio's default --terse-version): one ';'-separated line per
// job, or per group with group_reporting (fio_terse.cc).
std::string format_terse(const RunResult& r, bool group_reporting);

// fio's normal report in the two parts fio prints at different times: the start-up lines,
// then the statuses, group summaries and disk stats (format_normal() is both).
std::string format_normal_header(const RunResult& r);
std::string format_normal_body(const RunResult& r, bool group_reporting);

// The formats' descriptors (output_format.h), each beside its formatter.
extern const OutputFormat kNormalFormat;    // fio_normal.cc
extern const OutputFormat kJsonFormat;      // fio_json.cc
extern const OutputFormat kJsonPlusFormat;  // fio_json.cc
extern const OutputFormat kTerseFormat;     // fio_terse.cc

}  // namespace blksim::report
