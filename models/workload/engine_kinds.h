// The I/O engines a job can name (fio's ioengine=). Each engine describes itself once, in its
// own file under engines/ (its names, help, the fio options that shape it, how to build it);
// engine_kinds.cc lists them, in the order `blksim list engines` shows them. The scenario
// decoder, the fio job converter, the fio report and make_engine() all read that list.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "models/cpu/cpu_config.h"
#include "models/workload/job_config.h"

namespace blksim::workload {

class Engine;

struct EngineOption {
    std::string_view name;
    std::string_view default_value;
    std::string_view help;
};

struct EngineKind {
    IoEngine id;
    std::string_view name;                       // as fio reports it (the JSON "ioengine")
    std::span<const std::string_view> aliases;   // other ioengine= names for the same engine
    std::string_view help;
    std::span<const EngineOption> options;
    std::unique_ptr<Engine> (*make)(const JobConfig& cfg, const cpu::HostConfig& host);
};

std::span<const EngineKind* const> engine_kinds();
const EngineKind& engine_kind(IoEngine e);

// Every name ioengine= accepts, each engine's own name first, then its aliases.
struct EngineName {
    std::string_view name;
    IoEngine engine;
};
std::span<const EngineName> engine_names();

}  // namespace blksim::workload
