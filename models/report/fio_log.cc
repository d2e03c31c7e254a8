#include "models/report/fio_log.h"

#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

namespace blksim::report {

namespace {

constexpr uint16_t IOPRIO_CLASS_RT = 1;

void append_line(fmt::memory_buffer& buf, const FioLog& log, const LogSample& s) {
    auto out = std::back_inserter(buf);
    fmt::format_to(out, "{}, {}, {}, {}", s.time_ms, s.value, s.ddir, s.bs);
    if (log.log_offset)
        fmt::format_to(out, ", {}", s.offset);
    if (log.log_prio)
        fmt::format_to(out, ", 0x{:04x}\n", s.ioprio);
    else
        fmt::format_to(out, ", {}\n", (s.ioprio >> 13) == IOPRIO_CLASS_RT ? 1 : 0);
}

}  // namespace

std::string format_log_line(const FioLog& log, const LogSample& s) {
    fmt::memory_buffer buf;
    append_line(buf, log, s);
    return fmt::to_string(buf);
}

std::string write_fio_logs(const std::vector<FioLog>& logs, const std::string& dir) {
    namespace fs = std::filesystem;
    for (const FioLog& log : logs) {
        const std::string path = dir.empty() ? log.path : (fs::path(dir) / log.path).string();
        const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "w"), &std::fclose);
        if (!f)
            return fmt::format("{}: cannot open for writing", path);
        // Format into a bounded buffer and write it in chunks: a per-I/O log can be millions of lines.
        fmt::memory_buffer buf;
        bool ok = true;
        for (const LogSample& s : log.samples) {
            append_line(buf, log, s);
            if (buf.size() >= (1u << 16)) {
                ok = ok && std::fwrite(buf.data(), 1, buf.size(), f.get()) == buf.size();
                buf.clear();
            }
        }
        ok = ok && std::fwrite(buf.data(), 1, buf.size(), f.get()) == buf.size();
        ok = ok && std::fflush(f.get()) == 0;
        if (!ok)
            return fmt::format("{}: writing failed", path);
    }
    return {};
}

}  // namespace blksim::report
