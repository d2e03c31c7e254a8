#include "tools/experiment/progress.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include <fmt/format.h>

namespace blksim::experiment {

std::string hms(double secs) {
    const auto s = static_cast<long long>(secs + 0.5);
    if (s >= 3600)
        return fmt::format("{:02}h:{:02}m:{:02}s", s / 3600, s / 60 % 60, s % 60);
    return fmt::format("{:02}m:{:02}s", s / 60, s % 60);
}

bool stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, std::size_t total, unsigned threads, bool enabled)
    : label_(std::move(label)), total_(total), threads_(threads), enabled_(enabled),
      start_(std::chrono::steady_clock::now()) {}

std::string Progress::line(const std::string& label, std::size_t done, std::size_t total, unsigned threads,
                           double elapsed) {
    const double pct = total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0;
    const std::string eta =
        done == 0 ? "--m:--s" : hms(elapsed / static_cast<double>(done) * static_cast<double>(total - done));
    return fmt::format("{}: {} thread{}: [{}/{} runs] [{:.1f}% done] [elapsed {}] [eta {}]", label, threads,
                       threads == 1 ? "" : "s", done, total, pct, hms(elapsed), eta);
}

void Progress::update(std::size_t done) {
    if (!enabled_)
        return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const std::string l = line(label_, done, total_, threads_, elapsed);
    // Pad over a longer previous line.
    fmt::print(stderr, "\r{:<{}}", l, std::max(l.size(), last_len_));
    last_len_ = l.size();
    std::fflush(stderr);
}

void Progress::finish() {
    if (enabled_ && last_len_ > 0)
        fmt::print(stderr, "\n");
    last_len_ = 0;
}

}  // namespace blksim::experiment
