// Rotational position optimisation (RPO): the drive's choice of the queued command it can
// reach soonest, seek (or head switch, + write settle) plus the rotational wait from where
// the platter will be after it. The scan runs once per command a drive starts, over every
// command queued (32 on SATA NCQ, up to 128 on SAS, 256 dirty extents), so it is the HDD
// model's hottest loop: computed in float, eight commands per AVX2 step where the CPU has
// it, four per SSE2 step otherwise (one body for both widths: hdd_rpo_scan.h), one at a time
// off x86-64. Every form does the same float operations in the same order on each command
// and keeps, on a tie, the lower index, so all choose the same command with the same cost:
// the choice, and with it every output, does not depend on the CPU the simulation runs on
// (test/device/test_hdd_rpo.cc).
#pragma once

#include <cstdint>

namespace blksim::dev {

// The drive's positioning model in float, as the scan computes it, and where it starts.
struct RpoModel {
    float a, b, c, e, bound;    // seek: a + b*sqrt(d) below `bound` cylinders, c + e*d from there
    float head_switch, settle;  // same-cylinder head switch; write settling after any movement
    float rev, inv_rev;         // one revolution, ns, and its inverse
    float cyl, head, phase;     // the head's cylinder and surface, the platter's phase at the start
};

class HddMechanics;

// The model of a drive with mechanics `mech` and write settle `settle_ns`, its head on
// (cyl, head) when the platter is at phase `phase0` ns.
RpoModel rpo_model(const HddMechanics& mech, int64_t settle_ns, uint32_t cyl, uint32_t head, int64_t phase0);

// The candidates, a structure of arrays of n floats each (a command's cylinder, head, angle
// in ns, and 1 or 0 for a write and for high priority). Each array is readable up to n
// rounded up to a multiple of 8: the wide forms read whole steps and mask what is past n.
struct RpoCandidates {
    const float *cyl, *head, *angle, *write, *high;
    uint32_t n;
};

// The index of the command of least positioning time (less credit[i], when credit is given:
// aged RPO), the lower index on a tie; among high-priority commands only if `high_only`.
// -1 if there is none. `cost_out`, if given, gets its cost (ns). Uses the widest form the
// CPU has.
int rpo_scan(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out);

// Each form alone, for the tests that hold them to the same choices.
int rpo_scan_scalar(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out);
#if defined(__x86_64__)
int rpo_scan_sse2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out);
// Only where rpo_have_avx2().
int rpo_scan_avx2(const RpoCandidates& q, const RpoModel& m, bool high_only, const float* credit, float* cost_out);
bool rpo_have_avx2();
#endif

}  // namespace blksim::dev
