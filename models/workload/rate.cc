#include "models/workload/rate.h"

#include <cmath>

#include <fmt/format.h>

namespace blksim::workload {

RateLimiter::RateLimiter(const JobConfig& cfg, sim::Rng poisson_read, sim::Rng poisson_write)
    : cfg_(cfg.rate), mixed_(cfg.rw == RwPattern::RW || cfg.rw == RwPattern::RANDRW),
      rwmix_{cfg.rwmixread, 100 - cfg.rwmixread}, min_bs_{cfg.min_bs(0), cfg.min_bs(1)},
      poisson_{poisson_read, poisson_write} {}

void RateLimiter::reset(sim::Time epoch) {
    epoch_ = epoch;
    for (unsigned d = 0; d < 2; ++d) {
        issue_bytes_[d] = 0;
        last_us_[d] = 0;
        next_[d] = sim::Duration();
    }
}

RateLimiter::Choice RateLimiter::choose(uint8_t ddir, sim::Time now) const {
    const sim::Time due = next_io_time(ddir);
    if (due <= now)
        return {ddir, now};
    const auto other = static_cast<uint8_t>(ddir ^ 1);
    if (mixed_ && rwmix_[other] != 0) {
        // Ahead of the schedule in this direction: the other one may be behind its own.
        const sim::Time other_due = next_io_time(other);
        if (other_due <= now)
            return {other, now};
        return due <= other_due ? Choice{ddir, due} : Choice{other, other_due};
    }
    return {ddir, due};
}

void RateLimiter::issued(unsigned d, uint64_t bytes) {
    const uint64_t bps = cfg_.bps[d];
    if (bps == 0)
        return;  // not capped: its next I/O is always due (fio's usec_for_io() gives 0)
    issue_bytes_[d] += bytes;
    if (cfg_.poisson) {
        // (int64_t) (1000000 / iops) * -logf(U), U in (0, 1]: fio's gap in whole microseconds.
        const uint64_t iops = bps / min_bs_[d];  // >= 1: the decoder refuses a slower poisson rate
        const double u = 1.0 - poisson_[d].uniform();
        last_us_[d] += static_cast<uint64_t>(static_cast<double>(1000000 / iops) * -std::log(u));
        next_[d] = sim::Duration::ns(static_cast<int64_t>(last_us_[d] * 1000));
        return;
    }
    const auto ns = static_cast<unsigned __int128>(issue_bytes_[d]) * 1'000'000'000u / bps;
    next_[d] = sim::Duration::ns(static_cast<int64_t>(ns));
}

void RateLimiter::thought(unsigned d, sim::Duration total) {
    const uint64_t bps = cfg_.bps[d];
    const auto total_us = static_cast<uint64_t>(total.count() / 1000);
    if (!cfg_.ignore_thinktime || bps == 0 || total_us == 0)
        return;
    const auto missed = static_cast<uint64_t>(static_cast<unsigned __int128>(bps) * total_us / 1000000u);
    const uint64_t bs = min_bs_[d];
    const uint64_t usperop = static_cast<uint64_t>(static_cast<unsigned __int128>(bs) * 1000000u / bps);
    // fio: over = bs when a whole I/O's time passed, else (usperop - total) / usperop * -bs,
    // which integer division makes 0.
    const uint64_t over = usperop <= total_us ? bs : 0;
    issue_bytes_[d] += missed > over ? missed - over : 0;
    last_us_[d] += total_us;
    if (!cfg_.poisson)
        next_[d] = sim::Duration::ns(
            static_cast<int64_t>(static_cast<unsigned __int128>(issue_bytes_[d]) * 1'000'000'000u / bps));
    else
        next_[d] = sim::Duration::ns(static_cast<int64_t>(last_us_[d] * 1000));
}

std::string MinRate::check(const std::string& job, sim::Time start, sim::Time now, const uint64_t bytes[2],
                           const uint64_t ios[2]) {
    for (unsigned d = 0; d < 2; ++d) {
        if (bytes[d] == 0)
            continue;  // fio checks only the directions that have moved data
        if (std::string msg = check_ddir(job, d, start, now, bytes[d], ios[d]); !msg.empty())
            return msg;
    }
    return {};
}

std::string MinRate::check_ddir(const std::string& job, unsigned d, sim::Time start, sim::Time now,
                                uint64_t bytes, uint64_t ios) {
    if (!cfg_.min_bps[d] && !cfg_.min_iops[d])
        return {};
    const auto msec = [](sim::Duration t) { return static_cast<uint64_t>(t.count() / 1'000'000); };
    if (msec(now - start) < 2000)
        return {};  // fio's settle period
    if (last_bytes_[d] || last_ios_[d]) {
        const uint64_t spent = msec(now - last_[d]);
        if (spent < msec(cfg_.cycle))
            return {};
        if (cfg_.by_bytes[d]) {
            const uint64_t rate = spent ? (bytes - last_bytes_[d]) * 1000 / spent : 0;
            if (rate < cfg_.min_bps[d])
                return fmt::format("{}: rate_min={}B/s not met, got {}B/s", job, cfg_.min_bps[d], rate);
        } else {
            if (ios < cfg_.iops[d])
                return fmt::format("{}: rate_iops_min={} not met, only performed {} IOs", job, cfg_.iops[d], ios);
            const uint64_t rate = spent ? (ios - last_ios_[d]) * 1000 / spent : 0;
            if (rate < cfg_.min_iops[d])
                return fmt::format("{}: rate_iops_min={} not met, got {} IOPS", job, cfg_.min_iops[d], rate);
        }
    }
    last_bytes_[d] = bytes;
    last_ios_[d] = ios;
    last_[d] = now;
    return {};
}

}  // namespace blksim::workload
