// The progress line of `blksim run` and `blksim fio` on a terminal, in fio's shape:
//   Jobs: 1 (f=1): [r(1)][42.0%][r=123MiB/s][r=31.5k IOPS][eta 00m:05s]
// on stderr, first after a tenth of a wall-second, redrawn in place at most four times per
// wall-second, and erased when the machine (and with it the line) goes away, before the
// report or an error is printed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "models/topology/run_progress.h"

namespace blksim::experiment {

// Whether a run shows the line: stderr is a terminal, not -q, and nothing of the run streams
// to stdout while it goes (--trace - or --timeseries -) when stdout is that terminal too.
bool progress_line_wanted(bool quiet, const std::string& trace_file, const std::string& timeseries_file);

// The line for one machine's run (set it with Machine::set_progress).
std::unique_ptr<topology::RunProgress> make_progress_line();

// What the line shows, apart from the terminal (the tests check it).
struct ProgressSnapshot {
    std::string states;            // one fio run-state letter per job thread
    double done = 0;               // 0..1
    double bytes_per_s[2] = {0, 0};  // read, write, over the last interval of simulated time
    double ios_per_s[2] = {0, 0};
    double eta_s = -1;             // wall seconds left; < 0: not known yet
};
std::string format_progress_line(const ProgressSnapshot& s);

}  // namespace blksim::experiment
