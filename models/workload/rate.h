// fio 3.33's rate control for one job thread: rate / rate_iops caps (backend.c usec_for_io(),
// io_u.c rate_ddir()) and the rate_min / rate_iops_min floor (backend.c check_min_rate()).
//
// The cap is a schedule, not a token bucket: after each issue fio computes when the next
// I/O of that direction may go, from the job's epoch (its start, and again the end of
// ramp_time, where fio's reset_io_counters() clears the rate state):
//   linear   bytes issued so far / bps: a job that fell behind (a slow device, thinktime)
//            catches up with a burst, as fio's does;
//   poisson  the previous instant + an exponential gap with mean 10^6 / iops us, iops =
//            bps / min_bs, truncated to whole microseconds as fio computes it.
// rate_iops is turned into bps with the smallest block size (fio 3.33's setup_rate()), so
// with bsrange/bssplit it caps bytes, not I/Os; later fio versions changed that.
// A job ahead of its schedule first waits for everything it has in flight (fio's
// io_u_quiesce()) and then sleeps (JobThread does both).
#pragma once

#include <cstdint>
#include <string>

#include "models/workload/job_config.h"
#include "sim/random.h"
#include "sim/time.h"

namespace blksim::workload {

class RateLimiter {
public:
    RateLimiter(const JobConfig& cfg, sim::Rng poisson_read, sim::Rng poisson_write);

    bool caps() const { return cfg_.caps(); }
    // fio's reset_io_counters(): the schedule starts again at `epoch`.
    void reset(sim::Time epoch);
    // rate_ddir(): the direction to issue (`ddir`, or in a rw mix the other one when that is
    // behind its schedule, or due first) and the instant it may go (<= now: at once).
    struct Choice {
        uint8_t ddir;
        sim::Time at;
    };
    Choice choose(uint8_t ddir, sim::Time now) const;
    // usec_for_io(): an I/O of `bytes` was issued in direction d.
    void issued(unsigned d, uint64_t bytes);
    // handle_thinktime() with rate_ignore_thinktime: the think time `total` does not count
    // against the schedule of direction d (fio adds the bytes it would have issued meanwhile,
    // less one block so that the first I/O after the pause goes at once).
    void thought(unsigned d, sim::Duration total);

private:
    sim::Time next_io_time(unsigned d) const { return epoch_ + next_[d]; }

    const JobConfig::Rate& cfg_;
    bool mixed_;                         // rw / randrw: rate_ddir may switch directions
    uint32_t rwmix_[2];                  // fio's rwmix[]: percent of each direction
    uint64_t min_bs_[2];
    sim::Time epoch_;
    uint64_t issue_bytes_[2] = {0, 0};   // fio rate_io_issue_bytes
    uint64_t last_us_[2] = {0, 0};       // fio last_usec (poisson)
    sim::Duration next_[2];              // fio rate_next_io_time, from the epoch
    sim::Rng poisson_[2];
};

// check_min_rate(): from 2 s after the job started, every rate_cycle the bandwidth (or the
// IOPS) of each direction over the cycle is compared with rate_min (rate_iops_min); fio ends
// a job that falls short with EIO, and so does JobThread.
class MinRate {
public:
    explicit MinRate(const JobConfig& cfg) : cfg_(cfg.rate) {}

    bool active() const { return cfg_.has_min(); }
    // `bytes`/`ios`: what each direction completed since ramp_time ended (fio's
    // this_io_bytes/blocks). Returns fio's message when a floor was missed, else "".
    std::string check(const std::string& job, sim::Time start, sim::Time now, const uint64_t bytes[2],
                      const uint64_t ios[2]);

private:
    std::string check_ddir(const std::string& job, unsigned d, sim::Time start, sim::Time now, uint64_t bytes,
                           uint64_t ios);

    const JobConfig::Rate& cfg_;
    uint64_t last_bytes_[2] = {0, 0};    // fio rate_bytes / rate_blocks: the cycle's start
    uint64_t last_ios_[2] = {0, 0};
    sim::Time last_[2];                  // fio lastrate
};

}  // namespace blksim::workload
