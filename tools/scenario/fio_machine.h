// The machine `blksim fio --device NAME` runs on: a scenario file, a device profile on the
// desktop-8t host, or a built-in machine.
#pragma once

#include <string>

#include "tools/scenario/json_util.h"

namespace blksim::scenario {

// The scenario document for --device; path: the file it came from (or the device name),
// for messages.
json fio_machine(const std::string& device, const std::string& base_dir, std::string& path);

// The machine of `blksim fio` without --device, for jobs that need no file (fio's null engine):
// the desktop-8t host with a null_blk disk their I/O never reaches (nor the report).
json diskless_machine(std::string& path);

}  // namespace blksim::scenario
