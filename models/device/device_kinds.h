// The device models a scenario can name, in the order `blksim list` shows them.
#pragma once

#include <span>
#include <string_view>

#include "models/device/device_kind.h"

namespace blksim::dev {

std::span<const DeviceKind* const> device_kinds();
// The descriptor named `name`, or nullptr.
const DeviceKind* find_device_kind(std::string_view name);
// The descriptor whose config struct is `config` (a listed model's), else throws.
const DeviceKind& device_kind_of(const std::type_info& config);

}  // namespace blksim::dev
