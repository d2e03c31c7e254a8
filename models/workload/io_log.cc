#include "models/workload/io_log.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace blksim::workload {

namespace {

uint64_t to_ms(sim::Duration d) {
    return d.count() > 0 ? static_cast<uint64_t>(d.count()) / 1'000'000 : 0;
}

// fio's log file name with per_job_logs=1 (its default): NAME_<kind>.<job number>.log (the
// scenario decoder has made a bare write_lat_log the job's name).
result::FioLog make_log(const JobConfig::Logs& cfg, const std::string& name, std::string_view kind,
                        uint32_t thread_number) {
    result::FioLog log;
    if (name.empty())
        return log;
    log.path = fmt::format("{}_{}.{}.log", name, kind, thread_number);
    log.log_offset = cfg.offset;
    log.log_prio = cfg.prio;
    return log;
}

}  // namespace

IoLog::IoLog(const JobConfig::Logs& cfg, uint32_t thread_number, bool has_slat)
    : cfg_(cfg), has_slat_(has_slat),
      lat_(make_log(cfg, cfg.lat, "lat", thread_number)),
      clat_(make_log(cfg, cfg.lat, "clat", thread_number)),
      slat_(make_log(cfg, cfg.lat, "slat", thread_number)),
      bw_(make_log(cfg, cfg.bw, "bw", thread_number)),
      iops_(make_log(cfg, cfg.iops, "iops", thread_number)),
      rate_window_end_(sim::Duration::ns(int64_t{cfg.avg_msec} * 1'000'000)) {}

void IoLog::add_lat(result::FioLog& log, std::array<Window, 3>& w, uint64_t ms, const Io& io, uint64_t value) {
    if (!cfg_.avg_msec) {
        log.samples.push_back({ms, value, io.offset, io.bytes, io.ioprio, io.ddir});
        return;
    }
    Window& win = w[io.ddir];
    win.sum += static_cast<double>(value);
    ++win.n;
    // A latency log is "inline" in fio: no slack, the window closes once avg_msec have passed.
    if (ms < win.last_ms || ms - win.last_ms < cfg_.avg_msec)
        return;
    log.samples.push_back({ms, static_cast<uint64_t>(win.sum / static_cast<double>(win.n) + 0.5), 0, 0, 0, io.ddir});
    win.sum = 0.0;
    win.n = 0;
    win.last_ms = ms - ms % cfg_.avg_msec;
}

void IoLog::flush_lat(result::FioLog& log, std::array<Window, 3>& w, uint64_t ms) {
    for (uint8_t d = 0; d < 3; ++d) {
        Window& win = w[d];
        if (win.n)
            log.samples.push_back({ms, static_cast<uint64_t>(win.sum / static_cast<double>(win.n) + 0.5), 0, 0, 0, d});
        win.sum = 0.0;
        win.n = 0;
    }
}

// fio's __add_samples(): per direction that moved data in the window, its rate over the
// window (bw in KiB/s, iops per second), both integer divisions as fio's.
void IoLog::close_rate_windows(sim::Duration upto) {
    while (rate_window_end_ <= upto) {
        const uint64_t ms = to_ms(rate_window_end_);
        for (uint8_t d = 0; d < 3; ++d) {
            if (!window_bytes_[d])
                continue;
            if (!bw_.path.empty())
                bw_.samples.push_back({ms, window_bytes_[d] * 1000 / cfg_.avg_msec / 1024, 0, 0, 0, d});
            if (!iops_.path.empty())
                iops_.samples.push_back({ms, window_ios_[d] * 1000 / cfg_.avg_msec, 0, 0, 0, d});
            window_bytes_[d] = window_ios_[d] = 0;
        }
        rate_window_end_ += sim::Duration::ns(int64_t{cfg_.avg_msec} * 1'000'000);
    }
}

void IoLog::add(const Io& io) {
    const uint64_t ms = to_ms(io.done);
    if (!lat_.path.empty()) {
        add_lat(lat_, lat_w_, ms, io, io.lat);
        add_lat(clat_, clat_w_, ms, io, io.clat);
        if (has_slat_)
            add_lat(slat_, slat_w_, to_ms(io.issued), io, io.slat);
    }
    if (cfg_.avg_msec) {
        close_rate_windows(io.done);
        window_bytes_[io.ddir] += io.bytes;
        ++window_ios_[io.ddir];
        return;
    }
    if (!bw_.path.empty()) {
        const uint64_t rate = io.clat ? uint64_t{io.bytes} * 1'000'000 / io.clat : 0;
        bw_.samples.push_back({ms, rate, io.offset, io.bytes, io.ioprio, io.ddir});
    }
    if (!iops_.path.empty())
        iops_.samples.push_back({ms, 1, io.offset, io.bytes, io.ioprio, io.ddir});
}

void IoLog::finish(sim::Duration at) {
    if (!cfg_.avg_msec)
        return;
    // fio's finalize_logs(): the latency logs' open windows; bw/iops windows that ended.
    const uint64_t ms = to_ms(at);
    if (!lat_.path.empty()) {
        flush_lat(lat_, lat_w_, ms);
        flush_lat(clat_, clat_w_, ms);
        flush_lat(slat_, slat_w_, ms);
    }
    close_rate_windows(at);
}

void IoLog::files(std::size_t job, std::vector<result::FioLogFile>& out) const {
    const std::pair<const result::FioLog*, const char*> logs[] = {{&lat_, "write_lat_log"},
                                                                 {&clat_, "write_lat_log"},
                                                                 {&slat_, "write_lat_log"},
                                                                 {&bw_, "write_bw_log"},
                                                                 {&iops_, "write_iops_log"}};
    for (const auto& [log, option] : logs)
        if (!log->path.empty())
            out.push_back({job, option, log->path});
}

void IoLog::take(std::vector<result::FioLog>& out) {
    // fio stamps slat when the I/O is issued; blksim records it at completion, so order the
    // per-I/O samples by time (stable: same-msec samples keep completion order).
    if (!cfg_.avg_msec)
        std::stable_sort(slat_.samples.begin(), slat_.samples.end(),
                         [](const result::LogSample& a, const result::LogSample& b) { return a.time_ms < b.time_ms; });
    for (result::FioLog* log : {&lat_, &clat_, &slat_, &bw_, &iops_})
        if (!log->path.empty())
            out.push_back(std::move(*log));
}

}  // namespace blksim::workload
