// What one job measured, in the shape fio reports it. Filled by the workload model during
// the run; printed by models/report (fio_normal.cc, fio_json.cc, fio_terse.cc). Latencies are
// nanoseconds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/result/job_options.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace blksim::result {

enum Ddir : unsigned { DDIR_READ = 0, DDIR_WRITE = 1, DDIR_TRIM = 2, DDIR_RWDIR_CNT = 3 };

// fio's io_stat as group_reporting adds up bandwidth and IOPS (stat.c sum_stat() with
// pure_sum): min, max, mean and S are summed member by member, so a merged job reports the
// group's total bandwidth (and per= near 100%) instead of the per-job average.
struct SummedStat {
    uint64_t samples = 0;
    double min = 0.0, max = 0.0, mean = 0.0;
    double S = 0.0;  // sum of squared deviations, as fio keeps it
    static SummedStat of(const sim::RunningStat& s);
    void add(const SummedStat& o);
    double stddev() const;
};

// fio's io_u_lat_n/u/m (io_u.c io_u_mark_latency()): completion latencies counted exactly in
// the buckets of the "lat (nsec/usec/msec)" lines. Labels: nsec and usec 2 4 10 20 50 100
// 250 500 750 1000, msec the same plus 2000 and >=2000; a bucket counts latencies below its
// label and at or above the previous one, in its unit.
struct LatDist {
    std::array<uint64_t, 10> n{};
    std::array<uint64_t, 10> u{};
    std::array<uint64_t, 12> m{};
    // Inline: every completion adds one.
    void add(uint64_t ns, uint64_t count = 1) {
        static constexpr std::array<uint64_t, 11> labels = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
        // Index of the first label the value is below; past the last label is ">=2000".
        auto bucket = [](uint64_t v, std::size_t nr_labels) {
            std::size_t i = 0;
            while (i < nr_labels && v >= labels[i])
                ++i;
            return i;
        };
        if (ns < 1000)
            n[bucket(ns, 10)] += count;
        else if (ns < 1000000)
            u[bucket(ns / 1000, 10)] += count;
        else
            m[bucket(ns / 1000000, 11)] += count;
    }
    uint64_t total() const;
    void merge(const LatDist& o);
};

// fio's per-priority completion latency (clat_prio): one entry per I/O priority the job
// used, in the order first seen. ioprio_class 0 = NONE, 1 = RT, 2 = BE, 3 = IDLE; fio prints
// them as "prio <class>/<level>".
struct PrioResult {
    uint8_t ioprio_class = 0;
    uint8_t ioprio_level = 0;
    sim::RunningStat clat;              // ns
    sim::LatencyHistogram clat_hist;    // ns
};

// fio keys an entry by its ioprio value (os/os-linux.h: class << 13 | level). fio builds a
// class-NONE value only for a job that set no priority option (ioprio_value() turns a level
// given without a class into BE), so a NONE entry is always value 0 and prints as "0/0",
// whatever level the model attached to it.
inline constexpr unsigned IOPRIO_CLASS_SHIFT = 13;
uint32_t ioprio_value(const PrioResult& p);

struct DirResult {
    uint64_t io_bytes = 0;
    uint64_t total_ios = 0;
    // Issued and ended in error (a trim on a disk without discard): in fio's total_io_u (the
    // "issued rwts" count), in none of the statistics.
    uint64_t failed_ios = 0;
    sim::RunningStat slat, clat, lat;   // ns; slat stays empty for sync engines, as in fio
    sim::LatencyHistogram clat_hist;    // ns
    // Kept only for a job with slat_percentiles / lat_percentiles (JobConfig::Percentiles).
    std::optional<sim::LatencyHistogram> slat_hist, lat_hist;  // ns
    // Exact bucket counts for the lat distribution lines. If left empty, the report derives
    // them from clat_hist, where a bin straddling a bucket edge (e.g. 99328-100351 ns around
    // 100 us) is counted whole on its midpoint's side.
    LatDist clat_dist;
    sim::RunningStat bw_samples;        // bytes/s per bwavgtime window
    sim::RunningStat iops_samples;      // I/Os per second per iopsavgtime window
    SummedStat bw_sum, iops_sum;        // set by merge() only; read them via bw_stat()/iops_stat()
    // Filled only for jobs that set an I/O priority option (prioclass, cmdprio_percentage...),
    // as fio keeps clat_prio only then; empty means "do not print per-priority sections".
    std::vector<PrioResult> prios;

    // Record one completion latency everywhere fio does (clat stat, histogram, distribution).
    void add_clat(uint64_t ns) {
        clat.add(static_cast<double>(ns));
        clat_hist.add(ns);
        clat_dist.add(ns);
    }
    // What fio prints on the bw/iops lines: the group's sums once merged, else this job's samples.
    SummedStat bw_stat() const;
    SummedStat iops_stat() const;
    void merge(const DirResult& o);
};

// fio's sync_stat and io_u_sync_plat: the latency of the job's fsync / fdatasync calls
// (issue to return, like clat), and total_io_u[DDIR_SYNC], the fsyncs issued (fdatasyncs are
// fio's DDIR_DATASYNC, counted in the latency but not there, as fio prints it).
struct SyncResult {
    uint64_t total_ios = 0;
    sim::RunningStat lat;               // ns
    sim::LatencyHistogram hist;         // ns
    void merge(const SyncResult& o);
};

// fio's io depth / submit / complete distributions (io_u_map, io_u_submit, io_u_complete),
// counted from the end of ramp_time: depth buckets 1 2-3 4-7 8-15 16-31 32-63 >=64 of the
// job's io_us in use at each submit (td->cur_depth); submit/complete buckets 0 1-4 5-8 9-16
// 17-32 33-64 >64 of the io_us per submit / reap call. level_samples is fio's
// ddir_rw_sum(total_io_u), the reads and writes issued: the depth line's 100 %.
struct DepthDist {
    uint64_t submit_calls = 0, complete_calls = 0, level_samples = 0;
    std::array<uint64_t, 7> level{};
    std::array<uint64_t, 7> submit{};
    std::array<uint64_t, 7> complete{};
    void merge(const DepthDist& o);
};

struct JobResult {
    std::string name;
    // What the job's thread updates on every step comes first, together: with many jobs
    // each line apart is a cache miss per step (docs/performance.md, Cost per device).
    uint32_t pid = 0;                // simulated thread id
    sim::Duration cpu_busy;          // CPU time the job's thread used (user + kernel)
    sim::Duration cpu_sys;           // of which kernel time
    uint64_t ctx = 0;                // context switches
    DepthDist depth;
    uint32_t groupid = 0;
    uint32_t nr_jobs = 1;            // threads folded into this result (group_reporting)
    int error = 0;
    // With an error: fio's td->verror ("file:backend.c:1131, func=check_min_rate, error=...")
    // for the report's "err= 5 (...)", and the line fio logs when it happens.
    std::string verror, error_msg;
    JobOptions options;              // the options the report echoes: rw, bs, ioengine, iodepth...
    std::array<DirResult, DDIR_RWDIR_CNT> dir;
    SyncResult sync;
    sim::Duration runtime;           // time the job ran (after ramp_time)
    // fio's runtime[ddir] where it is not the job's: a job that only writes, with verify,
    // reads during its read-back only, and writes before it (backend.c update_runtime()).
    // 0: the job's runtime.
    std::array<sim::Duration, DDIR_RWDIR_CNT> dir_runtime{};
    sim::Duration ddir_runtime(unsigned d) const { return dir_runtime[d].count() ? dir_runtime[d] : runtime; }
    sim::Duration summed_runtime;    // set by merge() only: sum of the members' runtimes
    // fio's total_run_time: the members' runtimes added up, the denominator of the cpu line
    // (whose usr/sys times are added up too). `runtime` itself is the longest member's.
    sim::Duration total_run_time() const {
        return summed_runtime.count() ? summed_runtime : runtime;
    }
    void merge(const JobResult& o);
};

}  // namespace blksim::result
