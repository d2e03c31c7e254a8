// The explicit tables of what a scenario can name: device models, I/O engines and
// schedulers, each with its parameters and kernel/fio defaults (docs/architecture.md:
// one table per kind, no self-registration). `blksim list` prints them.
#pragma once

#include <span>
#include <string_view>

namespace blksim::registry {

struct Param {
    std::string_view name;
    std::string_view default_value;
    std::string_view help;
};

struct Entry {
    std::string_view name;
    std::string_view help;
    std::span<const Param> params;
};

std::span<const Entry> device_models();
std::span<const Entry> io_engines();
std::span<const Entry> schedulers();

}  // namespace blksim::registry
