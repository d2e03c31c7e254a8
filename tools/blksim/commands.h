// The blksim subcommands. Each returns the process exit status: 0 success, 2 bad input
// (scenario, option), 1 a failed run (an invariant violation).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blksim::cli {

struct RunOptions {
    std::string scenario;
    std::vector<std::string> sets;
    std::string output_format;      // empty = the scenario's
    std::optional<uint64_t> seed;
    bool quiet = false;             // no summary on stderr
    std::string trace_file;         // blkparse-style text trace ("-" = stdout)
};

int cmd_run(const RunOptions& o);
int cmd_validate(const std::string& scenario, const std::vector<std::string>& sets);
int cmd_list(const std::string& what);

}  // namespace blksim::cli
