// The RPO scan (models/device/hdd_rpo.h) in each of its forms: the one-at-a-time scan, which
// is the reference, and the SSE2 and AVX2 scans, which must choose the same command with the
// same cost bit for bit, so that no output depends on the CPU the simulation runs on.
#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cstdint>

#include "models/device/hdd_config.h"
#include "models/device/hdd_mechanics.h"
#include "models/device/hdd_rpo.h"
#include "sim/random.h"

using namespace blksim;

namespace {

struct Choice {
    int index;
    uint32_t cost_bits;  // the cost's float, bit for bit (-1's cost is infinity)
    bool operator==(const Choice&) const = default;
};

template <class Scan>
Choice choose(Scan scan, const dev::RpoCandidates& q, const dev::RpoModel& m, bool high_only, const float* credit) {
    float cost = 0.0f;
    const int i = scan(q, m, high_only, credit, &cost);
    return {i, std::bit_cast<uint32_t>(cost)};
}

// A queue as a drive sees it: random cylinders over the whole stroke, and some commands on
// the head's own cylinder (a head switch or none), on the head's surface, or copies of an
// earlier command (ties, which must go to the lower index).
struct Queue {
    alignas(32) std::array<float, 128> cyl{}, head{}, angle{}, write{}, high{}, credit{};
    uint32_t n = 0;
    dev::RpoCandidates view() const { return {cyl.data(), head.data(), angle.data(), write.data(), high.data(), n}; }
};

Queue random_queue(sim::Rng& g, const dev::HddMechanics& mech, float head_cyl, float head_head) {
    Queue q;
    q.n = static_cast<uint32_t>(g.below(129));
    for (uint32_t i = 0; i < q.n; ++i) {
        const uint64_t kind = g.below(8);
        if (kind == 0 && i > 0) {
            const auto j = static_cast<uint32_t>(g.below(i));
            q.cyl[i] = q.cyl[j], q.head[i] = q.head[j], q.angle[i] = q.angle[j];
            q.write[i] = q.write[j], q.high[i] = q.high[j], q.credit[i] = q.credit[j];
            continue;
        }
        q.cyl[i] = kind == 1 ? head_cyl : static_cast<float>(g.below(mech.cylinders()));
        q.head[i] = kind == 2 ? head_head : static_cast<float>(g.below(mech.heads()));
        q.angle[i] = static_cast<float>(g.below(static_cast<uint64_t>(mech.revolution_ns())));
        q.write[i] = g.below(3) == 0 ? 1.0f : 0.0f;
        q.high[i] = g.below(4) == 0 ? 1.0f : 0.0f;
        q.credit[i] = static_cast<float>(g.below(20'000'000));  // up to 20 ms of aging credit
    }
    // What lies past n is read by the wide forms and must be masked, whatever it holds.
    for (uint32_t i = q.n; i < 128; ++i)
        q.cyl[i] = head_cyl, q.head[i] = head_head, q.angle[i] = 0.0f, q.credit[i] = 1e9f;
    return q;
}

}  // namespace

TEST_CASE("RPO scan: the SSE2 and AVX2 forms choose what the one-at-a-time scan does", "[hdd][device]") {
    const dev::HddConfig cfg;
    const dev::HddMechanics mech(cfg);
    sim::Rng g(7, "rpo");
    uint32_t ties = 0, none = 0, checked = 0;
    for (int round = 0; round < 20000; ++round) {
        const auto head_cyl = static_cast<uint32_t>(g.below(mech.cylinders()));
        const auto head_head = static_cast<uint32_t>(g.below(mech.heads()));
        const auto phase = static_cast<int64_t>(g.below(static_cast<uint64_t>(mech.revolution_ns())));
        const dev::RpoModel m = dev::rpo_model(mech, cfg.write_settle.count(), head_cyl, head_head, phase);
        const Queue q = random_queue(g, mech, m.cyl, m.head);
        const bool high_only = g.below(4) == 0;
        const float* credit = g.below(3) == 0 ? q.credit.data() : nullptr;
        const Choice ref = choose(dev::rpo_scan_scalar, q.view(), m, high_only, credit);
        if (ref.index < 0) {
            ++none;
        } else {
            // A copy of the chosen command earlier in the queue would have been chosen.
            for (uint32_t i = static_cast<uint32_t>(ref.index) + 1; i < q.n; ++i)
                if (q.cyl[i] == q.cyl[ref.index] && q.head[i] == q.head[ref.index] && q.angle[i] == q.angle[ref.index] &&
                    q.write[i] == q.write[ref.index] && (!credit || q.credit[i] == q.credit[ref.index]) &&
                    (!high_only || q.high[i] != 0.0f))
                    ++ties;
        }
        INFO("round " << round << ", " << q.n << " queued" << (high_only ? ", high only" : "") << (credit ? ", aged" : ""));
        CHECK(dev::rpo_scan(q.view(), m, high_only, credit, nullptr) == ref.index);
#if defined(__x86_64__)
        CHECK(choose(dev::rpo_scan_sse2, q.view(), m, high_only, credit) == ref);
        if (dev::rpo_have_avx2())
            CHECK(choose(dev::rpo_scan_avx2, q.view(), m, high_only, credit) == ref);
#endif
        ++checked;
    }
    // The rounds reached the cases that tell the forms apart: ties, and queues with no
    // candidate (empty, or no high-priority command).
    CHECK(ties > 100);
    CHECK(none > 100);
    CHECK(checked == 20000);
}
