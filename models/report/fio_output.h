// fio's --output-format as a set: fio accepts a comma-separated list ("normal,terse",
// "json,terse") and prints every format asked for, in its own fixed order whatever the order
// given (stat.c __show_run_stats(): the buffers are flushed terse, json, normal), the normal
// report's start-up lines (job descriptions, "Starting N processes") coming first as they are
// printed when the jobs start.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "models/result/run_result.h"

namespace blksim::report {

// The formatters print the result structs the models fill.
using namespace blksim::result;

// fio's text report. group_reporting folds the jobs of one group into one block.
std::string format_normal(const RunResult& r, bool group_reporting);
// blksim's own section after fio's text: per-stage latency per disk (mean and the
// 50/90/99/99.9th percentiles), tag occupancy and sleeps, direct vs inserted issue, and per-CPU
// busy / interrupt time as a percentage of the simulated run.
std::string format_blksim_extras(const RunResult& r);
// fio's --output-format=json layout; json_plus adds json+'s "bins" (histogram bucket value
// in ns -> count) to every latency object that has percentiles (clat_ns, prios' clat_ns).
std::string format_json(const RunResult& r, bool group_reporting, bool json_plus = false);

struct OutputFormats {
    bool normal = false;
    bool json = false;
    bool json_plus = false;  // fio: json+ is json with "bins"; json,json+ is json+
    bool terse = false;
    bool operator==(const OutputFormats&) const = default;
};

// "normal", "json", "json+", "terse" or a comma-separated list of them; nullopt for anything
// else (an empty element included). fio's "--minimal" is "terse".
std::optional<OutputFormats> parse_output_formats(std::string_view s);
// For error messages: what parse_output_formats() accepts.
inline constexpr std::string_view OUTPUT_FORMATS_ALLOWED =
    "normal, json, json+, terse, or a comma-separated list of them such as normal,terse";

// fio's terse output, version 3 (fio's default --terse-version): one ';'-separated line per
// job, or per group with group_reporting (fio_terse.cc).
std::string format_terse(const RunResult& r, bool group_reporting);

// fio's normal report in the two parts fio prints at different times: the start-up lines,
// then the statuses, group summaries and disk stats (format_normal() is both).
std::string format_normal_header(const RunResult& r);
std::string format_normal_body(const RunResult& r, bool group_reporting);

// Everything `formats` asks for, in fio's order; blksim's own section (format_blksim_extras())
// follows the normal report, and the JSON report carries it as its "blksim" object. Terse
// alone stays terse: one line per job, nothing else, so that scripts can split it.
std::string format_report(const RunResult& r, const OutputFormats& formats, bool group_reporting);

}  // namespace blksim::report
