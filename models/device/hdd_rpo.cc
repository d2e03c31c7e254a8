#include "models/device/hdd_rpo.h"

#include <cmath>
#include <limits>

#include "models/device/hdd_mechanics.h"
#if defined(__x86_64__)
#include "models/device/hdd_rpo_scan.h"
#endif

namespace blksim::dev {

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// One command at a time. With Aged each command's cost is less its credit for waiting
// (credit[i], aged RPO).
template <bool Aged>
int scan_scalar(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    int r = -1;
    float rc = kInf;
    for (uint32_t i = 0; i < q.n; ++i) {
        if (high_only && q.high[i] == 0.0f)
            continue;
        const float d = std::fabs(q.cyl[i] - m.cyl);
        float seek = d < m.bound ? m.a + m.b * std::sqrt(d) : m.c + m.e * d;
        if (d == 0.0f)
            seek = q.head[i] != m.head ? m.head_switch : 0.0f;
        if (q.write[i] != 0.0f && seek > 0.0f)
            seek += m.settle;
        // Rotational wait: (angle - phase0 - seek) mod rev, floor by truncation after +8 revs.
        const float x = q.angle[i] - m.phase - seek;
        const float k = static_cast<float>(static_cast<int32_t>(x * m.inv_rev + 8.0f) - 8);
        float cost = seek + (x - k * m.rev);
        if constexpr (Aged)
            cost -= credit[i];
        if (cost < rc) {
            rc = cost;
            r = static_cast<int>(i);
        }
    }
    if (cost_out)
        *cost_out = rc;
    return r;
}

}  // namespace

RpoModel rpo_model(const HddMechanics& mech, int64_t settle_ns, uint32_t cyl, uint32_t head, int64_t phase0) {
    const auto rev = static_cast<float>(mech.revolution_ns());
    return {.a = static_cast<float>(mech.a()),
            .b = static_cast<float>(mech.b()),
            .c = static_cast<float>(mech.c()),
            .e = static_cast<float>(mech.e()),
            .bound = static_cast<float>(mech.boundary()),
            .head_switch = static_cast<float>(mech.head_switch_ns()),
            .settle = static_cast<float>(settle_ns),
            .rev = rev,
            .inv_rev = 1.0f / rev,
            .cyl = static_cast<float>(cyl),
            .head = static_cast<float>(head),
            .phase = static_cast<float>(phase0)};
}

int rpo_scan_scalar(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    return credit ? scan_scalar<true>(q, m, high_only, credit, cost_out) : scan_scalar<false>(q, m, high_only, nullptr, cost_out);
}

#if defined(__x86_64__)
// Four commands a step (hdd_rpo_scan.h); eight: hdd_rpo_avx2.cc.
int rpo_scan_sse2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    return credit ? rpo_scan_lanes<4, true>(q, m, high_only, credit, cost_out)
                  : rpo_scan_lanes<4, false>(q, m, high_only, nullptr, cost_out);
}

bool rpo_have_avx2() {
    static const bool have = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return have;
}
#endif

int rpo_scan(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
#if defined(__x86_64__)
    if (rpo_have_avx2())
        return rpo_scan_avx2(q, m, high_only, credit, cost_out);
    return rpo_scan_sse2(q, m, high_only, credit, cost_out);
#else
    return rpo_scan_scalar(q, m, high_only, credit, cost_out);
#endif
}

}  // namespace blksim::dev
