#include "models/device/ssd_write_buffer.h"

#include <algorithm>

namespace blksim::dev {

SsdWriteBuffer::SsdWriteBuffer(double capacity, double drain, const std::optional<SsdGcGeometry>& gc)
    : capacity_(capacity), drain_(drain), drain_gc_(drain) {
    if (!gc || gc->spare_blocks <= gc->gc_low_blocks)
        return;
    // Free pool: the spare area's blocks above the watermark; the greedy victim's valid
    // fraction follows from the spare the GC can use (the watermark's blocks held free).
    const double usable = static_cast<double>((gc->spare_blocks - gc->gc_low_blocks) * gc->block_bytes());
    const double alpha = 1.0 + usable / static_cast<double>(gc->size_bytes);
    gc_ = greedy_gc_cost(alpha, gc->pages_per_block, gc->read_ns, gc->program_ns, gc->erase_ns);
    gc_start_ = gc_next_ = usable;
    gc_op_bytes_ = static_cast<double>(gc_.freed * gc->page_bytes) / static_cast<double>(gc_.copies + 1);
    drain_gc_ = drain_ / gc_.slowdown;
}

double SsdWriteBuffer::drained(double dt) const {
    const double full = drain_ * dt;
    const double before = gc_start_ - host_drained_;  // host bytes left until the watermark
    if (full <= before)
        return std::min(buf_level_, full);
    const double b = std::max(0.0, before);
    return std::min(buf_level_, b + drain_gc_ * (dt - b / drain_));
}

double SsdWriteBuffer::drain_ns(double x) const {
    const double before = std::max(0.0, gc_start_ - host_drained_);
    if (x <= before)
        return x / drain_;
    return before / drain_ + (x - before) / drain_gc_;
}

void SsdWriteBuffer::advance(sim::Time t) {
    const double d = drained(static_cast<double>((t - buf_t_).count()));
    host_drained_ += d;
    buf_level_ -= d;
    buf_t_ = t;
}

double SsdWriteBuffer::fill(sim::Time t) const {
    if (t <= buf_t_)
        return buf_level_;
    return buf_level_ - drained(static_cast<double>((t - buf_t_).count()));
}

}  // namespace blksim::dev
