// An SSD's write buffer (DRAM, or DRAM + SLC) as a fluid, and the garbage collection its
// drain brings once the spare area is used: shared by the SATA SSD (sata_ssd.h) and the NVMe
// SSD (nvme.h), each of which puts the GC operations on its own flash timelines.
//
// A write needs room for its bytes when its data starts to cross; the buffer drains at the
// program rate (all flash units programming) while not empty. With the free-block pool on,
// the drive starts in use: its logical space mapped, its spare area erased. Drained host
// data takes pages from the pool; once `usable` bytes (the spare above the watermark) have
// drained, every gc_op_bytes of host data brings one GC operation (a page copy, or a
// victim's erase after its copies, Desnoyers' greedy valid fraction: ssd_gc.h) onto the
// flash, and the drain slows by the same die time (GcCost::slowdown). Everything is computed
// at a command's arrival from the buffer's state: no events, nothing allocated.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "models/device/ssd_free_pool_config.h"
#include "models/device/ssd_gc.h"
#include "sim/time.h"

namespace blksim::dev {

// The free-block pool's geometry, from a drive's configuration.
struct SsdGcGeometry {
    uint64_t size_bytes = 0;      // user capacity
    uint64_t spare_blocks = 0;    // erase blocks of the spare area (over-provisioning)
    uint64_t gc_low_blocks = 0;   // free blocks below which GC runs
    uint64_t page_bytes = 0;      // flash page
    uint32_t pages_per_block = 0;
    int64_t read_ns = 0, program_ns = 0, erase_ns = 0;  // tR, tPROG, tBERS
    uint64_t block_bytes() const { return page_bytes * pages_per_block; }
};

// The geometry from a drive's configuration (the SATA SSD's or the NVMe's), with the page
// the drive stripes data by; none when free_pool_gc is off.
inline std::optional<SsdGcGeometry> free_pool_geometry(const SsdFreePoolConfig& c, uint64_t page_bytes) {
    if (!c.free_pool_gc)
        return std::nullopt;
    SsdGcGeometry g;
    g.size_bytes = c.size_bytes;
    g.spare_blocks = c.spare_blocks();
    g.gc_low_blocks = c.gc_low_blocks;
    g.page_bytes = page_bytes;
    g.pages_per_block = c.pages_per_block;
    g.read_ns = c.read_latency.count();  // (a read's media time: tR)
    g.program_ns = c.program_latency.count();
    g.erase_ns = c.erase_latency.count();
    return g;
}

// One GC operation due on the flash: the drive puts it on a unit (die) of its choosing.
struct GcOp {
    int64_t at = 0;       // ns: when the drain reached its threshold
    uint64_t index = 0;   // operations before it
    uint64_t victim = 0;  // the victim block it belongs to (index / (copies + 1))
    bool erase = false;   // the victim's erase (after its copies), else a page copy
    int64_t ns = 0;       // die time: GcCost::erase_ns or copy_ns
};

class SsdWriteBuffer {
public:
    // capacity in bytes, drain in bytes per ns before GC; no gc = no free-block pool (or
    // none to speak of: the spare at or below the watermark).
    SsdWriteBuffer(double capacity, double drain, const std::optional<SsdGcGeometry>& gc);

    // Bytes in the buffer at `t` (at or after the last admission).
    double fill(sim::Time t) const;
    double level() const { return buf_level_; }
    const GcCost& gc_cost() const { return gc_; }
    uint64_t gc_ops() const { return gc_ops_; }
    // Bytes per ns the buffer drains at before and once GC runs.
    double drain() const { return drain_; }
    double drain_gc() const { return drain_gc_; }

    // Puts the GC operations due by `t` (their host-byte thresholds drained) on the flash,
    // through put(const GcOp&).
    template <class Put>
    void gc_to(sim::Time t, Put&& put) {
        // Nothing due before the next threshold: it lies beyond what the buffer holds, or t
        // is not past the last admission (whose call placed what was due by then).
        if (gc_next_ > host_drained_ + buf_level_ || t <= buf_t_) [[likely]]
            return;
        const double reach = host_drained_ + drained(static_cast<double>((t - buf_t_).count()));
        const uint64_t per_victim = gc_.copies + 1;
        while (gc_next_ <= reach) {
            GcOp op;
            op.at = buf_t_.ns() + static_cast<int64_t>(drain_ns(gc_next_ - host_drained_));
            op.index = gc_ops_;
            op.victim = gc_ops_ / per_victim;
            op.erase = gc_ops_ % per_victim == gc_.copies;
            op.ns = op.erase ? gc_.erase_ns : gc_.copy_ns;
            put(op);
            gc_next_ = gc_start_ + static_cast<double>(++gc_ops_) * gc_op_bytes_;
        }
    }

    struct Admission {
        sim::Time start;   // when the buffer had room (its bytes count from then)
        int64_t wait = 0;  // ns waited for room
        bool waited = false;
    };
    // Takes `bytes` into the buffer at `start` or, when it is full, once enough has drained
    // (a write larger than the buffer waits until it is empty). Admissions are in order: a
    // start before the last admission's is taken as that.
    template <class Put>
    Admission admit(sim::Time start, uint64_t bytes, Put&& put) {
        if (start < buf_t_)
            start = buf_t_;
        gc_to(start, put);
        if (start > buf_t_)  // the buffer's state moved to `start`
            advance(start);
        double level = buf_level_;
        const double b = static_cast<double>(bytes);
        const double over = level + b - capacity_;
        Admission a;
        if (over > 0) {
            const double need = std::min(over, level);
            a.wait = static_cast<int64_t>(std::ceil(drain_ns(need)));
            a.waited = true;
            start = start + sim::Duration::ns(a.wait);
            gc_to(start, put);  // (the GC due while it waited)
            level = std::max(0.0, level - need);
            host_drained_ += buf_level_ - level;
        }
        buf_level_ = level + b;
        buf_t_ = start;
        a.start = start;
        return a;
    }

private:
    // Host bytes the buffer drains in dt ns after buf_t_, and the ns it takes to drain x of
    // them: at drain_ until the free pool reaches the watermark, at drain_gc_ after.
    double drained(double dt) const;
    double drain_ns(double x) const;
    void advance(sim::Time t);

    double capacity_;
    // Fill level (bytes) at the instant buf_t_ (the last admission), draining at drain_
    // bytes/ns while not empty.
    double buf_level_ = 0, drain_;
    sim::Time buf_t_;
    // Host bytes drained up to buf_t_; GC starts once gc_start_ of them have been, and from
    // then on every gc_op_bytes_ host bytes drained bring one GC operation. gc_start_ is
    // infinite when GC is off.
    double host_drained_ = 0, gc_start_ = std::numeric_limits<double>::infinity(),
           gc_next_ = std::numeric_limits<double>::infinity(), gc_op_bytes_ = 1, drain_gc_ = 0;
    GcCost gc_;
    uint64_t gc_ops_ = 0;  // operations put on the flash so far
};

}  // namespace blksim::dev
