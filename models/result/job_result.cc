// Folding results together for group_reporting, the way fio's sum_thread_stats() does:
// latency stats are pooled (the jobs' samples treated as one stream), byte and I/O counts
// are added, the bandwidth/IOPS stats are *summed* so the merged job shows the group's
// total bandwidth, and per-priority latencies are pooled priority by priority.
#include "models/result/job_result.h"

#include <algorithm>
#include <cmath>

namespace blksim::result {

uint64_t LatDist::total() const {
    uint64_t t = 0;
    for (uint64_t c : n)
        t += c;
    for (uint64_t c : u)
        t += c;
    for (uint64_t c : m)
        t += c;
    return t;
}

void LatDist::merge(const LatDist& o) {
    for (std::size_t i = 0; i < n.size(); ++i)
        n[i] += o.n[i];
    for (std::size_t i = 0; i < u.size(); ++i)
        u[i] += o.u[i];
    for (std::size_t i = 0; i < m.size(); ++i)
        m[i] += o.m[i];
}

SummedStat SummedStat::of(const sim::RunningStat& s) {
    SummedStat out;
    out.samples = s.count();
    out.min = s.min();
    out.max = s.max();
    out.mean = s.mean();
    // RunningStat exposes only the sample stddev; S = stddev^2 * (n - 1) recovers fio's S.
    if (out.samples > 1) {
        const double sd = s.stddev();
        out.S = sd * sd * static_cast<double>(out.samples - 1);
    }
    return out;
}

void SummedStat::add(const SummedStat& o) {
    // fio's sum_stat(pure_sum = true): an empty side contributes nothing, and the first
    // non-empty side is copied rather than added to zeros (its min would otherwise be lost).
    if (o.samples == 0)
        return;
    if (samples == 0) {
        *this = o;
        return;
    }
    samples += o.samples;
    min += o.min;
    max += o.max;
    mean += o.mean;
    S += o.S;
}

double SummedStat::stddev() const {
    return samples > 1 ? std::sqrt(S / static_cast<double>(samples - 1)) : 0.0;
}

SummedStat DirResult::bw_stat() const {
    return bw_sum.samples ? bw_sum : SummedStat::of(bw_samples);
}

SummedStat DirResult::iops_stat() const {
    return iops_sum.samples ? iops_sum : SummedStat::of(iops_samples);
}

uint32_t ioprio_value(const PrioResult& p) {
    if (p.ioprio_class == 0)
        return 0;  // class NONE: fio's default ioprio, never combined with a level
    return (static_cast<uint32_t>(p.ioprio_class) << IOPRIO_CLASS_SHIFT) | (p.ioprio_level & 7u);
}

namespace {

// fio's clat_prio_stat_add_samples(): pool `src` into the entry with the same ioprio value
// (class NONE is one value whatever its level, see ioprio_value()), or append it, so
// the group keeps its first member's order. An empty stat adds nothing.
void add_prio_samples(std::vector<PrioResult>& dst, const PrioResult& src) {
    if (!src.clat.count())
        return;
    const uint32_t ioprio = ioprio_value(src);
    auto it = std::find_if(dst.begin(), dst.end(),
                           [&](const PrioResult& p) { return ioprio_value(p) == ioprio; });
    if (it == dst.end()) {
        dst.push_back(src);
        return;
    }
    it->clat.merge(src.clat);
    it->clat_hist.merge(src.clat_hist);
}

// A member without per-priority stats ran every I/O at fio's default ioprio 0 (it set no
// priority option), so its whole clat (its lat, with lat_percentiles) is its "0/0" entry
// (fio's sum_clat_prio_stats_src_single_prio()).
PrioResult default_prio(const DirResult& d) {
    PrioResult p;
    p.clat = d.lat_hist ? d.lat : d.clat;
    p.clat_hist = d.lat_hist ? *d.lat_hist : d.clat_hist;
    return p;
}

// fio's sum_clat_prio_stats(). Call before `dst`'s own clat absorbs `src`'s.
void merge_prios(DirResult& dst, const DirResult& src) {
    if (dst.prios.empty() && src.prios.empty())
        return;  // no member set a priority option: nothing per priority to report
    if (dst.prios.empty())
        add_prio_samples(dst.prios, default_prio(dst));
    if (src.prios.empty()) {
        add_prio_samples(dst.prios, default_prio(src));
        return;
    }
    for (const PrioResult& p : src.prios)
        add_prio_samples(dst.prios, p);
}

}  // namespace

void DirResult::merge(const DirResult& o) {
    // Take the summed views before bw_samples/iops_samples are pooled below.
    SummedStat bw = bw_stat(), iops = iops_stat();
    bw.add(o.bw_stat());
    iops.add(o.iops_stat());
    bw_sum = bw;
    iops_sum = iops;

    merge_prios(*this, o);  // reads clat/clat_hist as they were before this merge
    io_bytes += o.io_bytes;
    total_ios += o.total_ios;
    failed_ios += o.failed_ios;
    slat.merge(o.slat);
    clat.merge(o.clat);
    lat.merge(o.lat);
    clat_hist.merge(o.clat_hist);
    for (auto [mine, theirs] : {std::pair{&slat_hist, &o.slat_hist}, std::pair{&lat_hist, &o.lat_hist}})
        if (*theirs) {
            if (!*mine)
                mine->emplace();
            (*mine)->merge(**theirs);
        }
    clat_dist.merge(o.clat_dist);
    bw_samples.merge(o.bw_samples);  // pooled per-window samples, kept for other consumers
    iops_samples.merge(o.iops_samples);
}

void DepthDist::merge(const DepthDist& o) {
    for (std::size_t i = 0; i < level.size(); ++i) {
        level[i] += o.level[i];
        submit[i] += o.submit[i];
        complete[i] += o.complete[i];
    }
    submit_calls += o.submit_calls;
    complete_calls += o.complete_calls;
    level_samples += o.level_samples;
}

void SyncResult::merge(const SyncResult& o) {
    total_ios += o.total_ios;
    lat.merge(o.lat);
    hist.merge(o.hist);
}

void JobResult::merge(const JobResult& o) {
    // The merged job keeps the first member's name, groupid, pid and options, as fio's
    // group_reporting block does; its error is the first member error seen.
    summed_runtime = total_run_time() + o.total_run_time();
    for (unsigned d = 0; d < DDIR_RWDIR_CNT; ++d)
        if (dir_runtime[d].count() || o.dir_runtime[d].count())
            dir_runtime[d] = std::max(ddir_runtime(d), o.ddir_runtime(d));
    runtime = std::max(runtime, o.runtime);  // fio: per-direction runtime is the longest one
    nr_jobs += o.nr_jobs;
    if (error == 0) {
        error = o.error;
        verror = o.verror;
    }
    for (unsigned d = 0; d < DDIR_RWDIR_CNT; ++d)
        dir[d].merge(o.dir[d]);
    cpu_busy += o.cpu_busy;
    cpu_sys += o.cpu_sys;
    ctx += o.ctx;
    depth.merge(o.depth);
    sync.merge(o.sync);
}

}  // namespace blksim::result
