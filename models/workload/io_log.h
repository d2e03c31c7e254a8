// One job thread's fio log files (write_lat_log, write_bw_log, write_iops_log), filled from
// the completion path the way fio 3.33's stat.c fills them:
//
// - without log_avg_msec, one sample per I/O: lat, clat (ns) at completion and slat (ns, async
//   engines only, as fio's stats) at issue; bw = bytes * 10^6 / clat (fio's add_bw_sample(), the
//   I/O's own rate in bytes per msec) and iops = 1, each with the I/O's bs, offset and prio;
// - with log_avg_msec, the latency logs get one sample per direction when an I/O finds the
//   window of avg_msec since the last one passed (add_log_sample(): the window's mean, rounded,
//   stamped with that I/O's time; the open window is logged at the job's end), and bw/iops one
//   per direction and window [k * avg, (k + 1) * avg) that moved data (fio's helper thread, on
//   time here): KiB/s and I/Os per second over the window; bs, offset and prio are 0.
//
// Samples are kept in vectors that grow by doubling (amortized O(1), no allocation per I/O
// otherwise) and handed to the run result at the end; the CLI writes the files.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/result/fio_log.h"
#include "models/workload/job_config.h"
#include "sim/time.h"

namespace blksim::workload {

class IoLog {
public:
    // thread_number: fio's 1-based job number over all jobs and clones, in the file names.
    // has_slat: the engine is asynchronous (fio keeps no slat for sync engines).
    IoLog(const JobConfig::Logs& cfg, uint32_t thread_number, bool has_slat);

    // A measured I/O (one completed after ramp_time), its times since the job's start.
    struct Io {
        sim::Duration issued;       // slat ends: since the job's start
        sim::Duration done;
        uint8_t ddir = 0;
        uint32_t bytes = 0;
        uint64_t offset = 0;
        uint16_t ioprio = 0;
        uint64_t slat = 0, clat = 0, lat = 0;  // ns
    };
    void add(const Io& io);
    // The job ended `at` after its start: close the open windows.
    void finish(sim::Duration at);
    // Move the logs out, in fio's file order (lat, clat, slat, bw, iops).
    void take(std::vector<result::FioLog>& out);
    // The files of the logs take() hands over, in its order; `job` is the job's index.
    void files(std::size_t job, std::vector<result::FioLogFile>& out) const;

private:
    struct Window {
        double sum = 0.0;
        uint64_t n = 0;
        uint64_t last_ms = 0;       // fio's avg_last[ddir]
    };
    // A latency log's sample (fio's add_log_sample() for an inline log).
    void add_lat(result::FioLog& log, std::array<Window, 3>& w, uint64_t ms, const Io& io, uint64_t value);
    void flush_lat(result::FioLog& log, std::array<Window, 3>& w, uint64_t ms);
    void close_rate_windows(sim::Duration upto);

    const JobConfig::Logs& cfg_;
    bool has_slat_;
    result::FioLog lat_, clat_, slat_, bw_, iops_;
    std::array<Window, 3> lat_w_{}, clat_w_{}, slat_w_{};
    // bw/iops with log_avg_msec: the open window's end and what it moved so far.
    sim::Duration rate_window_end_;
    std::array<uint64_t, 3> window_bytes_{}, window_ios_{};  // read, write, trim
};

}  // namespace blksim::workload
