// What a simulated machine will take in memory, estimated from its config before any of it
// is built: a scenario whose values are each within their limits can still ask for tens of
// GiB together (iodepth 65536 x numjobs 4096, 100 NVMe drives with a queue per CPU of 1024).
// The command line refuses such a machine up front instead of running out of memory midway.
#pragma once

#include <cstdint>

#include "models/topology/machine_config.h"

namespace blksim::topology {

// Bytes, conservative: the sum of the objects whose number the config sets (request slots
// per hardware queue, scheduler tags, per-device state, per-thread state and io_units).
uint64_t estimate_memory_bytes(const MachineConfig& cfg);

}  // namespace blksim::topology
