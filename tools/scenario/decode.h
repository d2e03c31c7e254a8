// One decoder per section of a scenario (decode_state.h says what they share). Each reads
// the validated document and reports a bad value through the state's Reporter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/scenario/decode_state.h"
#include "tools/scenario/scenario.h"

namespace blksim::scenario {

// The whole document, section by section, then the topology check.
Scenario decode_scenario(const json& doc, const Reporter& rep, const LoadContext& ctx, const json& schema);

// /host: CPUs and costs, from a cost profile (scenarios/cpu/) and/or inline.
cpu::HostConfig decode_host(const DecodeState& st, const json& host, const std::string& ptr);

// /controllers: HBAs and expanders.
std::vector<dev::ControllerConfig> decode_controllers(const DecodeState& st, const json& list, const std::string& ptr);

// /devices: fills st.devices, st.device_by_name and a default queue per device in st.queues.
std::vector<dev::DeviceConfig> decode_devices(DecodeState& st, const json& list, const std::string& ptr);

// What jobs need to know of a device, whatever its model.
uint64_t capacity_bytes(const dev::DeviceConfig& d);
uint64_t logical_block_size(const dev::DeviceConfig& d);

// /queues: overrides the default queues of the devices they name.
void decode_queues(DecodeState& st);
// /kernel/tree: builds the plugin of every queue whose scheduler is kernel:<name> (after the
// jobs, whose ioscheduler= may choose one) and checks its iosched tunables exist in it.
void decode_kernel_schedulers(DecodeState& st);

// A job's ioscheduler= (at ptr) for device dev, refused when it conflicts with an earlier choice.
void set_job_scheduler(DecodeState& st, size_t dev, const std::string& sched, const std::string& ptr);

// /output.
OutputConfig decode_output(const DecodeState& st);

// /global and /jobs; a job's group_reporting turns on output.group_reporting.
std::vector<workload::JobConfig> decode_jobs(DecodeState& st, OutputConfig& output);

}  // namespace blksim::scenario
