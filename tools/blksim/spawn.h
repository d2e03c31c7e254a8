// Running a blksim binary (another build, or this one) as a child process: regress
// --baseline-binary and compare --exact.
#pragma once

#include <string>
#include <vector>

namespace blksim::cli {

// Runs args[0] with `args` and waits for it; its stdout goes to `stdout_path` (empty: this
// process's stdout). The exit status, or -1 when it did not exit (a signal). Throws
// std::runtime_error naming the binary when it cannot be started.
int spawn_and_wait(const std::vector<std::string>& args, const std::string& stdout_path = {});

// This process's own executable (/proc/self/exe), to run a variant in a child as another
// binary would run.
std::string self_binary();

}  // namespace blksim::cli
