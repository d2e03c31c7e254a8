// The read segments' scans four segments a step: this file alone compiled with -mavx2
// (CMakeLists.txt), called only where the CPU has AVX2 (HddSegments, rpo_have_avx2()).
// Sectors and times are below 2^63, so AVX2's signed 64-bit comparison orders them as the
// scalar forms do; past n the arrays hold empty segments (hdd_segments.h) that match nothing
// and are never the least recently used.
#include "models/device/hdd_segments.h"

#if defined(__x86_64__)
#if !defined(__AVX2__)
#error "hdd_segments_avx2.cc is compiled with -mavx2 (CMakeLists.txt)"
#endif
#include <immintrin.h>

namespace blksim::dev {

namespace {

__m256i load4(const uint64_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
__m256i load4(const int64_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
// One bit per lane whose all-ones mask is set.
unsigned lanes(__m256i mask) { return static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(mask))); }
// Per lane, the lesser of a and b (AVX2 has no 64-bit minimum): a blend by the comparison's
// sign bits, the 64-bit lanes taken as doubles.
__m256i min4(__m256i a, __m256i b) {
    return _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b),
                                                _mm256_castsi256_pd(_mm256_cmpgt_epi64(a, b))));
}

}  // namespace

int HddSegments::holding_avx2(uint64_t lba, uint64_t e) const {
    const __m256i l = _mm256_set1_epi64x(static_cast<int64_t>(lba));
    const __m256i r = _mm256_set1_epi64x(static_cast<int64_t>(e));
    for (uint32_t i = 0; i < n; i += 4) {
        // Not held: the segment starts after lba, or the range ends after the segment.
        const __m256i out = _mm256_or_si256(_mm256_cmpgt_epi64(load4(&start[i]), l),
                                            _mm256_cmpgt_epi64(r, load4(&end[i])));
        if (const unsigned held = ~lanes(out) & 0xfu)
            return static_cast<int>(i + static_cast<uint32_t>(__builtin_ctz(held)));
    }
    return -1;
}

bool HddSegments::continued_by_avx2(uint64_t lba) const {
    const __m256i l = _mm256_set1_epi64x(static_cast<int64_t>(lba));
    __m256i any = _mm256_setzero_si256();
    for (uint32_t i = 0; i < n; i += 4)
        any = _mm256_or_si256(any, _mm256_cmpeq_epi64(load4(&end[i]), l));
    return lanes(any) != 0;
}

int HddSegments::extended_by_avx2(uint64_t lba, uint32_t& victim) const {
    const __m256i l = _mm256_set1_epi64x(static_cast<int64_t>(lba));
    const __m256i zero = _mm256_setzero_si256();
    // Per lane, the least last use seen.
    __m256i least = _mm256_set1_epi64x(std::numeric_limits<int64_t>::max());
    for (uint32_t i = 0; i < n; i += 4) {
        const __m256i e = load4(&end[i]);
        // Not extended: the segment starts after lba, ends before it, or is empty.
        const __m256i out = _mm256_or_si256(_mm256_or_si256(_mm256_cmpgt_epi64(load4(&start[i]), l),
                                                            _mm256_cmpgt_epi64(l, e)),
                                            _mm256_cmpeq_epi64(e, zero));
        if (const unsigned hit = ~lanes(out) & 0xfu)
            return static_cast<int>(i + static_cast<uint32_t>(__builtin_ctz(hit)));
        least = min4(least, load4(&last_use[i]));
    }
    // The least across the lanes, in every lane: against the other half, then the neighbour.
    __m256i m = min4(least, _mm256_permute4x64_epi64(least, 0x4e));
    m = min4(m, _mm256_permute4x64_epi64(m, 0xb1));
    // The first segment that has it (the scalar scan's: the first of a tie).
    for (uint32_t i = 0; i < n; i += 4) {
        if (const unsigned at = lanes(_mm256_cmpeq_epi64(load4(&last_use[i]), m))) {
            victim = i + static_cast<uint32_t>(__builtin_ctz(at));
            return -1;
        }
    }
    victim = 0;  // (not reached: the least is some segment's)
    return -1;
}

}  // namespace blksim::dev
#endif
