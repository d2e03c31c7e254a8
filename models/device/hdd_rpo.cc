#include "models/device/hdd_rpo.h"

#include <cmath>
#include <limits>
#if defined(__x86_64__)
#include <immintrin.h>
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

#if defined(__x86_64__)
// The cheapest of the lanes' best commands, the lower index on a tie; -1 if none. Each lane
// kept its earliest cheapest, so this is the earliest cheapest of all.
template <int Lanes>
int best_of_lanes(const float* bc, const int32_t* bx, float* cost_out) {
    int r = -1;
    float rc = kInf;
    for (int l = 0; l < Lanes; ++l)
        if (bx[l] >= 0 && (bc[l] < rc || (bc[l] == rc && bx[l] < r))) {
            rc = bc[l];
            r = bx[l];
        }
    if (cost_out)
        *cost_out = rc;
    return r;
}

// Four commands at a time, each lane keeping its cheapest command.
template <bool Aged>
int scan_sse2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    const __m128 vcyl = _mm_set1_ps(m.cyl), vhead = _mm_set1_ps(m.head), vphase = _mm_set1_ps(m.phase);
    const __m128 va = _mm_set1_ps(m.a), vb = _mm_set1_ps(m.b), vc = _mm_set1_ps(m.c), ve = _mm_set1_ps(m.e);
    const __m128 vbound = _mm_set1_ps(m.bound), vhs = _mm_set1_ps(m.head_switch), vsettle = _mm_set1_ps(m.settle);
    const __m128 vrev = _mm_set1_ps(m.rev), vinv = _mm_set1_ps(m.inv_rev), v8 = _mm_set1_ps(8.0f);
    const __m128 vzero = _mm_setzero_ps(), vinf = _mm_set1_ps(kInf);
    const __m128 vabs = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    const uint32_t n = q.n;
    const __m128i i8 = _mm_set1_epi32(8), i4 = _mm_set1_epi32(4), vn = _mm_set1_epi32(static_cast<int>(n));
    __m128i idx = _mm_setr_epi32(0, 1, 2, 3);
    __m128 best = vinf;
    __m128i besti = _mm_set1_epi32(-1);
    for (uint32_t i = 0; i < n; i += 4) {
        const __m128 d = _mm_and_ps(_mm_sub_ps(_mm_loadu_ps(&q.cyl[i]), vcyl), vabs);
        const __m128 sq = _mm_add_ps(va, _mm_mul_ps(vb, _mm_sqrt_ps(d)));
        const __m128 lin = _mm_add_ps(vc, _mm_mul_ps(ve, d));
        const __m128 short_seek = _mm_cmplt_ps(d, vbound);
        __m128 seek = _mm_or_ps(_mm_and_ps(short_seek, sq), _mm_andnot_ps(short_seek, lin));
        const __m128 same_cyl = _mm_cmpeq_ps(d, vzero);
        const __m128 other_head = _mm_and_ps(_mm_cmpneq_ps(_mm_loadu_ps(&q.head[i]), vhead), vhs);
        seek = _mm_or_ps(_mm_and_ps(same_cyl, other_head), _mm_andnot_ps(same_cyl, seek));
        const __m128 settles = _mm_and_ps(_mm_cmpneq_ps(_mm_loadu_ps(&q.write[i]), vzero), _mm_cmpgt_ps(seek, vzero));
        seek = _mm_add_ps(seek, _mm_and_ps(settles, vsettle));
        const __m128 x = _mm_sub_ps(_mm_sub_ps(_mm_loadu_ps(&q.angle[i]), vphase), seek);
        const __m128i k = _mm_sub_epi32(_mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(x, vinv), v8)), i8);
        const __m128 wait = _mm_sub_ps(x, _mm_mul_ps(_mm_cvtepi32_ps(k), vrev));
        __m128 cost = _mm_add_ps(seek, wait);
        if constexpr (Aged)
            cost = _mm_sub_ps(cost, _mm_loadu_ps(&credit[i]));
        __m128 valid = _mm_castsi128_ps(_mm_cmplt_epi32(idx, vn));
        if (high_only)
            valid = _mm_and_ps(valid, _mm_cmpneq_ps(_mm_loadu_ps(&q.high[i]), vzero));
        cost = _mm_or_ps(_mm_and_ps(valid, cost), _mm_andnot_ps(valid, vinf));
        const __m128 better = _mm_cmplt_ps(cost, best);
        best = _mm_or_ps(_mm_and_ps(better, cost), _mm_andnot_ps(better, best));
        const __m128i bi = _mm_castps_si128(better);
        besti = _mm_or_si128(_mm_and_si128(bi, idx), _mm_andnot_si128(bi, besti));
        idx = _mm_add_epi32(idx, i4);
    }
    alignas(16) float bc[4];
    alignas(16) int32_t bx[4];
    _mm_store_ps(bc, best);
    _mm_store_si128(reinterpret_cast<__m128i*>(bx), besti);
    return best_of_lanes<4>(bc, bx, cost_out);
}

// Eight commands at a time: the SSE2 scan's operations, lane for lane (the comparisons are
// SSE2's predicates; a blend is the and/andnot/or select), with half the steps.
template <bool Aged>
[[gnu::target("avx2")]] int scan_avx2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit,
                                      float* cost_out) {
    const __m256 vcyl = _mm256_set1_ps(m.cyl), vhead = _mm256_set1_ps(m.head), vphase = _mm256_set1_ps(m.phase);
    const __m256 va = _mm256_set1_ps(m.a), vb = _mm256_set1_ps(m.b), vc = _mm256_set1_ps(m.c), ve = _mm256_set1_ps(m.e);
    const __m256 vbound = _mm256_set1_ps(m.bound), vhs = _mm256_set1_ps(m.head_switch), vsettle = _mm256_set1_ps(m.settle);
    const __m256 vrev = _mm256_set1_ps(m.rev), vinv = _mm256_set1_ps(m.inv_rev), v8 = _mm256_set1_ps(8.0f);
    const __m256 vzero = _mm256_setzero_ps(), vinf = _mm256_set1_ps(kInf);
    const __m256 vabs = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const uint32_t n = q.n;
    const __m256i i8 = _mm256_set1_epi32(8), vn = _mm256_set1_epi32(static_cast<int>(n));
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 best = vinf;
    __m256i besti = _mm256_set1_epi32(-1);
    for (uint32_t i = 0; i < n; i += 8) {
        const __m256 d = _mm256_and_ps(_mm256_sub_ps(_mm256_loadu_ps(&q.cyl[i]), vcyl), vabs);
        const __m256 sq = _mm256_add_ps(va, _mm256_mul_ps(vb, _mm256_sqrt_ps(d)));
        const __m256 lin = _mm256_add_ps(vc, _mm256_mul_ps(ve, d));
        __m256 seek = _mm256_blendv_ps(lin, sq, _mm256_cmp_ps(d, vbound, _CMP_LT_OS));
        const __m256 other_head = _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(&q.head[i]), vhead, _CMP_NEQ_UQ), vhs);
        seek = _mm256_blendv_ps(seek, other_head, _mm256_cmp_ps(d, vzero, _CMP_EQ_OQ));
        const __m256 settles = _mm256_and_ps(_mm256_cmp_ps(_mm256_loadu_ps(&q.write[i]), vzero, _CMP_NEQ_UQ),
                                             _mm256_cmp_ps(seek, vzero, _CMP_GT_OS));
        seek = _mm256_add_ps(seek, _mm256_and_ps(settles, vsettle));
        const __m256 x = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(&q.angle[i]), vphase), seek);
        const __m256i k = _mm256_sub_epi32(_mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(x, vinv), v8)), i8);
        const __m256 wait = _mm256_sub_ps(x, _mm256_mul_ps(_mm256_cvtepi32_ps(k), vrev));
        __m256 cost = _mm256_add_ps(seek, wait);
        if constexpr (Aged)
            cost = _mm256_sub_ps(cost, _mm256_loadu_ps(&credit[i]));
        __m256 valid = _mm256_castsi256_ps(_mm256_cmpgt_epi32(vn, idx));
        if (high_only)
            valid = _mm256_and_ps(valid, _mm256_cmp_ps(_mm256_loadu_ps(&q.high[i]), vzero, _CMP_NEQ_UQ));
        cost = _mm256_blendv_ps(vinf, cost, valid);
        const __m256 better = _mm256_cmp_ps(cost, best, _CMP_LT_OS);
        best = _mm256_blendv_ps(best, cost, better);
        besti = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(besti), _mm256_castsi256_ps(idx), better));
        idx = _mm256_add_epi32(idx, i8);
    }
    alignas(32) float bc[8];
    alignas(32) int32_t bx[8];
    _mm256_store_ps(bc, best);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bx), besti);
    return best_of_lanes<8>(bc, bx, cost_out);
}
#endif

}  // namespace

int rpo_scan_scalar(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    return credit ? scan_scalar<true>(q, m, high_only, credit, cost_out) : scan_scalar<false>(q, m, high_only, nullptr, cost_out);
}

#if defined(__x86_64__)
int rpo_scan_sse2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    return credit ? scan_sse2<true>(q, m, high_only, credit, cost_out) : scan_sse2<false>(q, m, high_only, nullptr, cost_out);
}

int rpo_scan_avx2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    return credit ? scan_avx2<true>(q, m, high_only, credit, cost_out) : scan_avx2<false>(q, m, high_only, nullptr, cost_out);
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
