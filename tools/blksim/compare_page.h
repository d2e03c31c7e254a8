// `blksim compare --html FILE`: the comparison as one self-contained page (html_page.h): A
// and B side by side, the completion latency CDFs of each job group and direction and of
// each I/O priority fio reports in clat_prio (all replications of a variant merged), and
// every metric's difference drawn with its confidence interval. Inline SVG, no script: the
// page loads nothing from anywhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/result/run_result.h"
#include "sim/stats.h"
#include "tools/experiment/compare.h"

namespace blksim::cli {

// One completion latency distribution: a group and direction's, or one I/O priority's of it.
struct ClatCurve {
    std::string label;  // "<group>/<dir>" or "<group>/<dir> prio <class>/<level>"
    sim::LatencyHistogram hist;
    uint64_t min = 0, max = 0;  // ns, exact
};

// A run's curves, per group (fio's group_reporting aggregate) as compare's metrics name them.
std::vector<ClatCurve> clat_curves(const result::RunResult& r);
// Adds a replication's curves to its variant's, by label.
void merge_curves(std::vector<ClatCurve>& into, const std::vector<ClatCurve>& run);

std::string compare_page(const experiment::CompareInfo& info, const std::vector<experiment::CompareRow>& rows,
                         const std::vector<ClatCurve>& a, const std::vector<ClatCurve>& b);

}  // namespace blksim::cli
