// The RPO scan's one body, N commands a step, written with GCC's vector extensions so that
// each width is the same code: hdd_rpo.cc instantiates it four commands wide (SSE2, the
// x86-64 baseline) and hdd_rpo_avx2.cc, compiled with -mavx2, eight wide. Everything here
// has internal linkage, and it calls nothing of the standard library (builtins instead):
// the two files compile it for different instruction sets, and a shared inline definition
// (one of ours or a library template instantiated here, kept out of line in a build without
// optimisation) could let the linker keep the AVX2 copy for both.
//
// Per command, the operations and their order are those of rpo_scan_scalar() (hdd_rpo.cc):
// a lane's select is the scalar code's branch, so every form computes the same floats.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "models/device/hdd_rpo.h"

namespace blksim::dev {
namespace {

template <int N>
struct RpoLanes {
    typedef float F __attribute__((vector_size(4 * N)));
    typedef int32_t I __attribute__((vector_size(4 * N)));
};

template <int N>
typename RpoLanes<N>::F rpo_load(const float* p) {
    typename RpoLanes<N>::F v;
    __builtin_memcpy(&v, p, sizeof v);  // unaligned: a queue's arrays are read from any i
    return v;
}

// sqrt has no vector-extension operator: each width's instruction (the other width's
// branch is discarded, so a file compiled without AVX never emits one).
template <int N>
typename RpoLanes<N>::F rpo_sqrt(typename RpoLanes<N>::F x) {
    using F = typename RpoLanes<N>::F;
    if constexpr (N == 4)
        return reinterpret_cast<F>(_mm_sqrt_ps(reinterpret_cast<__m128>(x)));
    else
        return reinterpret_cast<F>(_mm256_sqrt_ps(reinterpret_cast<__m256>(x)));
}

// The earliest cheapest command among those the lanes kept (each lane its own earliest
// cheapest), -1 if none.
template <int N>
int rpo_best_of_lanes(const typename RpoLanes<N>::F& best, const typename RpoLanes<N>::I& besti, float* cost_out) {
    int r = -1;
    float rc = __builtin_inff();
    for (int l = 0; l < N; ++l)
        if (besti[l] >= 0 && (best[l] < rc || (best[l] == rc && besti[l] < r))) {
            rc = best[l];
            r = besti[l];
        }
    if (cost_out)
        *cost_out = rc;
    return r;
}

template <int N, bool Aged>
int rpo_scan_lanes(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    using F = typename RpoLanes<N>::F;
    using I = typename RpoLanes<N>::I;
    const F zero{}, inf = zero + __builtin_inff();
    I idx;
    for (int l = 0; l < N; ++l)
        idx[l] = l;
    F best = inf;
    I besti = I{} - 1;
    const auto n = static_cast<int32_t>(q.n);
    for (uint32_t i = 0; i < q.n; i += N) {
        // |cyl - head's cylinder|: the sign bit cleared.
        const F d = reinterpret_cast<F>(reinterpret_cast<I>(rpo_load<N>(&q.cyl[i]) - m.cyl) & 0x7fffffff);
        F seek = d < m.bound ? m.a + m.b * rpo_sqrt<N>(d) : m.c + m.e * d;
        seek = d == 0.0f ? (rpo_load<N>(&q.head[i]) != m.head ? zero + m.head_switch : zero) : seek;
        seek = ((rpo_load<N>(&q.write[i]) != 0.0f) & (seek > 0.0f)) ? seek + m.settle : seek;
        // Rotational wait: (angle - phase0 - seek) mod rev, floor by truncation after +8 revs.
        const F x = rpo_load<N>(&q.angle[i]) - m.phase - seek;
        const F k = __builtin_convertvector(__builtin_convertvector(x * m.inv_rev + 8.0f, I) - 8, F);
        F cost = seek + (x - k * m.rev);
        if constexpr (Aged)
            cost = cost - rpo_load<N>(&credit[i]);
        I valid = idx < n;
        if (high_only)
            valid = valid & (rpo_load<N>(&q.high[i]) != 0.0f);
        cost = valid ? cost : inf;
        const I better = cost < best;
        best = better ? cost : best;
        besti = better ? idx : besti;
        idx = idx + N;
    }
    return rpo_best_of_lanes<N>(best, besti, cost_out);
}

}  // namespace
}  // namespace blksim::dev
