#include "tools/blksim/perfetto_output.h"

#include <cstdio>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/scenario/units.h"

namespace blksim::cli {

void add_perfetto_options(CLI::App* cmd, PerfettoOptions& o, bool with_file) {
    if (with_file)
        cmd->add_option("--perfetto", o.file,
                        "write the run as Chrome trace-event JSON to FILE, for ui.perfetto.dev or chrome://tracing "
                        "(docs/timeline.md)");
    cmd->add_option("--perfetto-window", o.window,
                    "keep only what overlaps this span of simulated time, e.g. 10ms..20ms (default: the whole run)");
    cmd->add_option("--perfetto-sample", o.sample, "keep every Nth request's timeline (default 1: every request)");
}

namespace {

std::optional<int64_t> window_end(const std::string& text, const std::string& whole) {
    try {
        const int64_t ns = units::parse_time(text, units::TimeUnit::MSEC).count();
        if (ns >= 0)
            return ns;
        fmt::print(stderr, "blksim: --perfetto-window {}: {} is negative\n", whole, text);
    } catch (const units::ValueError& e) {
        fmt::print(stderr, "blksim: --perfetto-window {}: {}: {} (allowed: A..B, A.. or ..B, e.g. 10ms..20ms)\n",
                   whole, text, e.what());
    }
    return std::nullopt;
}

}  // namespace

std::optional<report::PerfettoWriter::Options> perfetto_bounds(const PerfettoOptions& o) {
    report::PerfettoWriter::Options b;
    if (!o.window.empty()) {
        const std::size_t dots = o.window.find("..");
        if (dots == std::string::npos || o.window == "..") {
            fmt::print(stderr, "blksim: --perfetto-window {}: not a span of time (allowed: A..B, A.. or ..B, "
                               "e.g. 10ms..20ms)\n", o.window);
            return std::nullopt;
        }
        const std::string from = o.window.substr(0, dots), to = o.window.substr(dots + 2);
        if (!from.empty()) {
            const auto ns = window_end(from, o.window);
            if (!ns)
                return std::nullopt;
            b.from = sim::Time::from_ns(*ns);
        }
        if (!to.empty()) {
            const auto ns = window_end(to, o.window);
            if (!ns)
                return std::nullopt;
            b.to = sim::Time::from_ns(*ns);
        }
        if (b.to <= b.from) {
            fmt::print(stderr, "blksim: --perfetto-window {}: the end must come after the start\n", o.window);
            return std::nullopt;
        }
    }
    if (!o.sample.empty()) {
        std::size_t used = 0;
        unsigned long long n = 0;
        try {
            n = std::stoull(o.sample, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != o.sample.size() || o.sample[0] == '-' || n < 1 || n > 1'000'000'000) {
            fmt::print(stderr, "blksim: --perfetto-sample {}: not a whole number from 1 to 1000000000 (every Nth "
                               "request is kept)\n", o.sample);
            return std::nullopt;
        }
        b.sample = static_cast<uint32_t>(n);
    }
    return b;
}

std::string perfetto_meta(const std::string& scenario) {
    return "\"scenario\":" + nlohmann::json(scenario).dump();
}

void print_perfetto_summary(const report::PerfettoWriter& w, const std::string& path, bool quiet) {
    if (!quiet)
        fmt::print(stderr, "blksim: perfetto: {} requests in {} (open it in ui.perfetto.dev or chrome://tracing)\n",
                   w.requests(), path);
    if (w.truncated_at() >= 0)
        fmt::print(stderr, "blksim: perfetto: warning: the trace stops at {:.6f} s, where it reached its size limit "
                           "(narrow it with --perfetto-window or --perfetto-sample)\n",
                   static_cast<double>(w.truncated_at()) / 1e9);
    if (w.dropped() > 0)
        fmt::print(stderr, "blksim: perfetto: warning: {} slices left out: more overlapped on a track than it has "
                           "lanes\n", w.dropped());
}

}  // namespace blksim::cli
