// The invariant search's verdict on one scenario: load it as the CLI does, run it, and check
// what a correct simulator can never report, beyond the invariants Machine::run() checks
// itself (an I/O completed twice or never, a leaked tag, a stalled run):
//   - every CPU busy at most the run's length, interrupt and spin time within it;
//   - every btt stage (Q2G, G2I, I2D, D2C, Q2C) and every latency (slat, clat, lat, sync,
//     per priority) at least 0, its mean within [min, max], its percentiles non-decreasing
//     and inside the histogram buckets of min and max, its histogram counting every sample;
//   - a disk's utilisation at most 100 %;
//   - the bytes a device moved at most its host link's rate allows;
//   - fio's JSON output parses and holds no number only a negative value cast to unsigned
//     could give;
//   - optionally, a second run of the same scenario prints the same report.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace blksim::invsearch {

struct Violation {
    std::string kind;    // the rule broken, for counting failures by class: "cpu-busy>100%"
    std::string detail;  // where and by how much
};

// `text` is scenario JSON; `name` names it in the loader's messages. A scenario the loader
// refuses gives one violation of kind "refused": the generator only writes valid ones.
// `each`, if given, hears of every violation as it is found: a machine whose teardown
// crashes after a failed run must not take the message of that failure with it.
std::vector<Violation> check_scenario(const std::string& text, const std::string& name, bool run_twice,
                                      const std::function<void(const Violation&)>& each = {});

}  // namespace blksim::invsearch
