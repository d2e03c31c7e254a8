// The RPO scan eight commands a step: hdd_rpo_scan.h's body, this file alone compiled with
// -mavx2 (CMakeLists.txt), called only where the CPU has AVX2 (rpo_have_avx2()).
#include "models/device/hdd_rpo.h"

#if defined(__x86_64__)
#if !defined(__AVX2__)
#error "hdd_rpo_avx2.cc is compiled with -mavx2 (CMakeLists.txt)"
#endif
#include "models/device/hdd_rpo_scan.h"

namespace blksim::dev {

int rpo_scan_avx2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out) {
    return credit ? rpo_scan_lanes<8, true>(q, m, high_only, credit, cost_out)
                  : rpo_scan_lanes<8, false>(q, m, high_only, nullptr, cost_out);
}

}  // namespace blksim::dev
#endif
