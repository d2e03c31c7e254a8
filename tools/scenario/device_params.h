// A device's "params" object read into its model's config by walking the model's parameter
// table (models/kind/param.h): one decoder for every model. Times take fio's value syntax
// ("70us"; a bare number is nanoseconds), scaled integers their unit (gb, MB/s); a key left
// out keeps the value already there (the model's default, or its profile's).
#pragma once

#include <cstdint>
#include <string>

#include "models/device/device_kind.h"
#include "tools/scenario/decode_state.h"

namespace blksim::scenario {

// A 0/1 or false/true value (the schema checked which).
bool read_flag(const json& v);

// Reads params (at ptr, in rep's file) into `out`, then runs the model's own checks.
void decode_device_params(const json& params, const std::string& ptr, const Reporter& rep, uint32_t nr_cpus,
                          dev::ModelParams& out);

}  // namespace blksim::scenario
