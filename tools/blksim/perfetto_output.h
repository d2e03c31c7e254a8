// `--perfetto FILE` of run and fio, and the run behind `report --timeline`: the options that
// bound the trace (models/report/perfetto_writer.h) and the file it is written to.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "models/report/perfetto_writer.h"

namespace CLI {
class App;
}

namespace blksim::cli {

class OutputFile;

struct PerfettoOptions {
    std::string file;    // "" = no trace
    std::string window;  // "A..B", "A.." or "..B" of simulated time; "" = the whole run
    std::string sample;  // every Nth request; "" = every one
};

// --perfetto-window and --perfetto-sample (and --perfetto FILE when `with_file`).
void add_perfetto_options(CLI::App* cmd, PerfettoOptions& o, bool with_file);

// The writer's bounds from the options, or nullopt after printing the one message that
// says which option is wrong and what it allows.
std::optional<report::PerfettoWriter::Options> perfetto_bounds(const PerfettoOptions& o);

// The trace's metadata members: the scenario it is of.
std::string perfetto_meta(const std::string& scenario);

// The stderr line after a trace was written (unless quiet): how much it holds, and a
// warning when the cap cut it short.
void print_perfetto_summary(const report::PerfettoWriter& w, const std::string& path, bool quiet);

}  // namespace blksim::cli
