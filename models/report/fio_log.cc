#include "models/report/fio_log.h"

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

void write_fio_log(const FioLog& log, std::ostream& out) {
    // Format into a bounded buffer and write it in chunks: a per-I/O log can be millions of lines.
    fmt::memory_buffer buf;
    for (const LogSample& s : log.samples) {
        append_line(buf, log, s);
        if (buf.size() >= (1u << 16)) {
            out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
            buf.clear();
        }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace blksim::report
