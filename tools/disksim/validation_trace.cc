#include "tools/disksim/validation_trace.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tools/disksim/param_file.h"
#include "tools/input/input_file.h"

namespace blksim::disksim {

const char* outcome_name(Outcome o) {
    switch (o) {
        case Outcome::HIT: return "Hit";
        case Outcome::MISS: return "Miss";
        case Outcome::DOUBLE: return "Doub";
        case Outcome::TRIPLE: return "Trip";
    }
    return "?";
}

namespace {

// A line holds six short fields.
constexpr size_t kMaxLineBytes = 4096;
// The idle gaps of a trace add up to at most this (about 31.7 years): the replay's clock, in
// int64 nanoseconds, reaches 292 years, and the rest is left to the simulated service times.
constexpr double kMaxIdleTotalUs = 1e15;

// Line by line: a trace is kept as records only, never as a whole text.
std::vector<TraceRecord> parse(std::istream& in, const std::string& file, uint64_t limit) {
    std::vector<TraceRecord> out;
    std::string line;
    int ln = 0;
    double idle_total_us = 0;
    for (;;) {
        if (limit != 0 && out.size() >= limit)
            break;
        const input::Line got = input::read_line(in, line, kMaxLineBytes);
        if (got == input::Line::END)
            break;
        ++ln;
        if (got == input::Line::TOO_LONG)
            throw DisksimError(fmt::format("{}:{}: longer than {} bytes: not a validation trace line", file, ln,
                                           kMaxLineBytes));
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;  // blank lines carry nothing
        std::istringstream ls(line);
        std::vector<std::string> f;
        for (std::string w; ls >> w;)
            f.push_back(w);
        const auto bad = [&](size_t i, const char* name, const std::string& allowed) {
            throw DisksimError(fmt::format("{}:{}: field {} ({}) '{}': allowed {}", file, ln, i + 1, name,
                                           i < f.size() ? excerpt(f[i]) : "", allowed));
        };
        if (f.size() != 6)
            throw DisksimError(fmt::format("{}:{}: {} fields, expected 6: R|W, Hit|Miss|Doub|Trip, first block, blocks, "
                                           "service time (us), idle time (us)",
                                           file, ln, f.size()));
        TraceRecord r;
        r.line = ln;
        if (f[0] == "R")
            r.write = false;
        else if (f[0] == "W")
            r.write = true;
        else
            bad(0, "direction", "R or W");
        if (f[1] == "Hit")
            r.outcome = Outcome::HIT;
        else if (f[1] == "Miss")
            r.outcome = Outcome::MISS;
        else if (f[1] == "Doub")
            r.outcome = Outcome::DOUBLE;
        else if (f[1] == "Trip")
            r.outcome = Outcome::TRIPLE;
        else
            bad(1, "cache outcome", "Hit, Miss, Doub or Trip");
        const auto integer = [&](size_t i, const char* name, uint64_t lo, uint64_t hi) {
            char* end = nullptr;
            errno = 0;
            const unsigned long long v = std::strtoull(f[i].c_str(), &end, 10);
            if (f[i][0] == '-' || *end != '\0' || errno == ERANGE || v < lo || v > hi)
                bad(i, name, fmt::format("an integer {} .. {}", lo, hi));
            return static_cast<uint64_t>(v);
        };
        const auto real = [&](size_t i, const char* name) {
            char* end = nullptr;
            errno = 0;
            const double v = std::strtod(f[i].c_str(), &end);
            if (*end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0)
                bad(i, name, "a number of microseconds >= 0");
            return v;
        };
        r.lba = integer(2, "first block", 0, uint64_t{1} << 48);
        r.blocks = static_cast<uint32_t>(integer(3, "blocks", 1, 65535));
        r.service_us = real(4, "service time");
        r.idle_us = real(5, "idle time");
        idle_total_us += r.idle_us;
        if (idle_total_us > kMaxIdleTotalUs)
            throw DisksimError(fmt::format("{}:{}: field 6 (idle time) '{}': the idle times up to this line add up to "
                                           "{:g} us; a trace may span at most {:g} us (31 years)",
                                           file, ln, excerpt(f[5]), idle_total_us, kMaxIdleTotalUs));
        out.push_back(r);
    }
    if (out.empty())
        throw DisksimError(fmt::format("{}: no requests (expected lines 'R|W Hit|Miss|Doub|Trip block blocks service-us idle-us')", file));
    return out;
}

}  // namespace

std::vector<TraceRecord> parse_validation_trace(const std::string& text, const std::string& file, uint64_t limit) {
    std::istringstream in(text);
    return parse(in, file, limit);
}

std::vector<TraceRecord> read_validation_trace(const std::string& path, uint64_t limit) {
    if (const std::string why = input::not_a_regular_file(path); !why.empty())
        throw DisksimError(fmt::format("{}: cannot open the trace: {}", path, why));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw DisksimError(fmt::format("{}: cannot open the trace: {}", path, std::strerror(errno)));
    return parse(in, path, limit);
}

}  // namespace blksim::disksim
