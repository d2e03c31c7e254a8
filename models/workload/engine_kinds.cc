#include "models/workload/engine_kinds.h"

#include <vector>

#include "models/workload/engines/io_uring.h"
#include "models/workload/engines/libaio.h"
#include "models/workload/engines/null_io.h"
#include "models/workload/engines/psync.h"

namespace blksim::workload {

namespace {

constexpr const EngineKind* kEngines[] = {
    &engines::kPsyncKind,
    &engines::kLibaioKind,
    &engines::kIoUringKind,
    &engines::kPvsync2Kind,
    &engines::kNullKind,
};

}  // namespace

std::span<const EngineKind* const> engine_kinds() { return kEngines; }

const EngineKind& engine_kind(IoEngine e) {
    for (const EngineKind* k : kEngines)
        if (k->id == e)
            return *k;
    return *kEngines[0];  // unreachable: every IoEngine has a kind (test_engine.cc)
}

std::span<const EngineName> engine_names() {
    static const std::vector<EngineName> names = [] {
        std::vector<EngineName> v;
        for (const EngineKind* k : kEngines) {
            v.push_back({k->name, k->id});
            for (const std::string_view a : k->aliases)
                v.push_back({a, k->id});
        }
        return v;
    }();
    return names;
}

}  // namespace blksim::workload
