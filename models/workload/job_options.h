// The options of a job its fio report echoes (models/result/job_options.h), taken from the
// job's JobConfig.
#pragma once

#include <string_view>

#include "models/result/job_options.h"
#include "models/workload/job_config.h"

namespace blksim::workload {

std::string_view rw_name(RwPattern rw);
result::JobOptions job_options(const JobConfig& cfg);

}  // namespace blksim::workload
