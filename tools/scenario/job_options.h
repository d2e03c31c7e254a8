// The fio options a scenario's jobs (or global) may carry, and the names some of them take.
// scenarios/schema.json lists the same names in its enums (test_scenario.cc checks that the
// two agree).
#pragma once

#include <string_view>

#include "models/workload/job_config.h"
#include "tools/scenario/json_util.h"

namespace blksim::scenario {

struct RwName {
    std::string_view name;
    workload::RwPattern rw;
};
inline constexpr RwName kRwPatterns[] = {
    {"read", workload::RwPattern::READ},           {"write", workload::RwPattern::WRITE},
    {"randread", workload::RwPattern::RANDREAD},   {"randwrite", workload::RwPattern::RANDWRITE},
    {"rw", workload::RwPattern::RW},               {"readwrite", workload::RwPattern::RW},
    {"randrw", workload::RwPattern::RANDRW},
    {"trim", workload::RwPattern::TRIM},           {"randtrim", workload::RwPattern::RANDTRIM},
    {"trimwrite", workload::RwPattern::TRIMWRITE}, {"randtrimwrite", workload::RwPattern::RANDTRIMWRITE},
};

// The fio options a job (or global) may carry. `canonical` names the option an alias
// stands for; `integer` options also accept a string of digits, as in a fio job file.
struct FioOption {
    std::string_view name;
    std::string_view canonical;
    bool integer = false;
};

// The option called name (an alias included), or nullptr.
const FioOption* find_fio_option(std::string_view name);

// fio job files carry every value as a string ("iodepth=32"); accept "32" for integer
// options by turning it into a number before validation, so that the schema's ranges
// apply to it too. Applied to /global and each of /jobs.
void normalize_fio_sections(json& doc, const Reporter& rep);

}  // namespace blksim::scenario
