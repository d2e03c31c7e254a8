// --mem-limit of the commands that run simulations (run, fio, compare, sweep, reproduce):
// a machine is estimated (models/topology/memory_estimate.h) before it is built, and refused
// when the runs a command keeps at once would need more than the limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "models/topology/machine_config.h"

namespace blksim::experiment {

inline constexpr const char* MEM_LIMIT_HELP =
    "refuse a run whose machines are estimated to need more memory, e.g. 16G (binary units: "
    "1G = 1 GiB; default: half of the physical memory, and at most 7/8 of ulimit -v when one is set)";

// Half of the physical memory, and at most 7/8 of the address-space limit (ulimit -v) when one
// is set, since a process that exceeds that fails the same way (the rest is the program, its
// thread stacks and what the estimate does not count).
uint64_t default_mem_limit();

// "16G", "512M", "2GiB", "1T", or bytes; binary units. nullopt: not a size. Empty text: the
// default.
std::optional<uint64_t> parse_mem_limit(std::string_view text);

// "" when `copies` machines of `cfg` at once fit in `limit`, else
// "needs about 43.1 GiB, the limit is 8.0 GiB (--mem-limit to raise it)".
std::string over_mem_limit(const topology::MachineConfig& cfg, uint64_t copies, uint64_t limit);
// As over_mem_limit, for `need` bytes already estimated.
std::string over_mem_limit(uint64_t need, uint64_t limit);

}  // namespace blksim::experiment
