// The I/O schedulers a scenario can name, in the order `blksim list` shows them.
#pragma once

#include <span>
#include <string_view>

#include "models/sched/scheduler_kind.h"

namespace blksim::sched {

std::span<const SchedulerKind* const> scheduler_kinds();
// The descriptor named `name`, or nullptr.
const SchedulerKind* find_scheduler_kind(std::string_view name);

}  // namespace blksim::sched
