// The I/O engines a job can name (fio's ioengine=), with the fio options that shape them,
// in the order `blksim list engines` shows them.
#pragma once

#include <span>
#include <string_view>

namespace blksim::workload {

struct EngineOption {
    std::string_view name;
    std::string_view default_value;
    std::string_view help;
};

struct EngineKind {
    std::string_view name;
    std::string_view help;
    std::span<const EngineOption> options;
};

std::span<const EngineKind> engine_kinds();

}  // namespace blksim::workload
