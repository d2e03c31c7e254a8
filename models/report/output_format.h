// fio's output formats (--output-format=NAME). Each format describes itself once, in the file
// of its formatter (fio_normal.cc, fio_json.cc, fio_terse.cc): its name, a help line, which of
// fio's output buffers it fills and how. output_formats.cc lists them; --output-format's
// allowed values, the scenario's /output/format, `blksim list formats` and the error messages
// all read that list.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "models/result/run_result.h"

namespace blksim::report {

// The formatters print the result structs the models fill.
using namespace blksim::result;

// fio prints each format asked for into its own buffer and flushes them terse, json, normal,
// whatever the order given (stat.c __show_run_stats()).
enum class OutputSlot : uint8_t { TERSE, JSON, NORMAL };
inline constexpr std::size_t kOutputSlots = 3;

struct OutputFormat {
    std::string_view name;   // as --output-format takes it
    std::string_view help;
    OutputSlot slot;
    // Printed before every format's report (the normal report's start-up lines, which fio
    // prints when the jobs start); nullptr: nothing.
    std::string (*header)(const RunResult& r);
    std::string (*print)(const RunResult& r, bool group_reporting);
};

std::span<const OutputFormat* const> output_formats();
const OutputFormat* find_output_format(std::string_view name);  // nullptr if none

// fio's --output-format as a set: one format or a comma-separated list ("normal,terse",
// "json,terse"), at most one format per slot. A list naming two of one slot prints the one
// listed later in output_formats(): "json,json+" is json+, as fio's json+ is json with "bins".
struct OutputFormats {
    std::array<const OutputFormat*, kOutputSlots> slot{};
    bool operator==(const OutputFormats&) const = default;
};

// The set of `f` alone.
OutputFormats only(const OutputFormat& f);
// nullopt for anything but listed names and comma-separated lists of them (an empty element
// included). fio's "--minimal" is "terse".
std::optional<OutputFormats> parse_output_formats(std::string_view s);
// For help and error messages: what parse_output_formats() accepts, e.g. "normal, json,
// terse, or a comma-separated list of them such as normal,terse".
std::string output_formats_allowed();

// Every format of `formats`: their headers, then their reports in slot order.
std::string format_report(const RunResult& r, const OutputFormats& formats, bool group_reporting);

}  // namespace blksim::report
