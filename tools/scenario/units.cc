#include "tools/scenario/units.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

namespace blksim::units {

namespace {

constexpr std::string_view kSizeExample = "expected a size like 4k, 64k, 1m or 512 (bytes)";
constexpr std::string_view kTimeExample = "expected a time like 10s, 500ms, 250us or 100ns";

std::string squote(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits "128KiB" into the leading decimal digits and the rest (spaces between the two
// are allowed: "4 KiB"). Throws when there is no digit, or a fraction, which fio would
// silently truncate ("1.5m" is 1m to fio), so refusing it is the honest answer.
struct NumberAndSuffix {
    uint64_t number;
    std::string_view suffix;
};

NumberAndSuffix split_number(std::string_view text, std::string_view expected) {
    std::string_view s = trim(text);
    size_t i = 0;
    uint64_t v = 0;
    while (i < s.size() && is_digit(s[i])) {
        const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
        if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10)
            throw ValueError("number " + squote(s) + " is too large");
        v = v * 10 + digit;
        ++i;
    }
    if (i == 0) {
        if (!s.empty() && s[0] == '-')
            throw ValueError("negative values are not allowed: " + std::string(expected) +
                             ", got " + squote(s));
        throw ValueError(std::string(expected) + ", got " + squote(s));
    }
    if (i < s.size() && s[i] == '.')
        throw ValueError("fractional values are not accepted (fio would truncate them): " +
                         std::string(expected) + ", got " + squote(s));
    return {v, trim(s.substr(i))};
}

uint64_t checked_mul(uint64_t a, uint64_t b, uint64_t limit, const std::string& what) {
    if (b != 0 && a > limit / b) throw ValueError(what);
    return a * b;
}

uint64_t ipow(uint64_t base, unsigned exp) {
    uint64_t r = 1;
    while (exp--) r *= base;
    return r;
}

// Multiplier of a size suffix ("k", "KiB", "mb", "B", ""), following fio's
// __get_mult_bytes(): SI-looking prefixes use kb_base, IEC ones the other base.
uint64_t size_multiplier(std::string_view suffix, KbBase kb_base, std::string_view text) {
    const std::string s = lower(suffix);
    if (s.empty() || s == "b") return 1;

    static constexpr std::string_view kPrefixes = "kmgtp";
    const size_t pos = kPrefixes.find(s[0]);
    const std::string rest = s.substr(1);
    if (pos != std::string_view::npos && (rest.empty() || rest == "b" || rest == "i" || rest == "ib")) {
        const bool iec = !rest.empty() && rest[0] == 'i';
        const uint64_t base = static_cast<uint64_t>(kb_base);
        const uint64_t other = kb_base == KbBase::B1024 ? 1000 : 1024;
        return ipow(iec ? other : base, static_cast<unsigned>(pos + 1));
    }
    throw ValueError("unknown size unit " + squote(suffix) + " in " + squote(trim(text)) +
                     " (use k, m, g, t or p, optionally followed by b or iB; or B for bytes)");
}

uint64_t time_multiplier_ns(TimeUnit unit) {
    switch (unit) {
        case TimeUnit::NSEC: return 1;
        case TimeUnit::USEC: return 1'000;
        case TimeUnit::MSEC: return 1'000'000;
        case TimeUnit::SEC: return 1'000'000'000;
    }
    return 1;
}

uint64_t time_suffix_ns(std::string_view suffix, TimeUnit default_unit, std::string_view text) {
    const std::string s = lower(suffix);
    if (s.empty()) return time_multiplier_ns(default_unit);
    if (s == "ns" || s == "nsec") return 1;
    if (s == "us" || s == "usec") return 1'000;
    if (s == "ms" || s == "msec") return 1'000'000;
    if (s == "s" || s == "sec") return 1'000'000'000;
    if (s == "m" || s == "min") return 60ULL * 1'000'000'000;
    if (s == "h") return 3600ULL * 1'000'000'000;
    if (s == "d") return 86400ULL * 1'000'000'000;
    throw ValueError("unknown time unit " + squote(suffix) + " in " + squote(trim(text)) +
                     " (use ns, us, ms, s, m, h or d)");
}

}  // namespace

uint64_t parse_size(std::string_view text, KbBase kb_base) {
    const std::string_view s = trim(text);
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        const uint64_t v = parse_uint(s);
        if (v > kMaxSize) throw ValueError("size " + squote(s) + " is larger than 2^63 bytes");
        return v;
    }
    const auto [number, suffix] = split_number(s, kSizeExample);
    if (suffix == "%")
        throw ValueError("a percentage is not allowed here: " + std::string(kSizeExample) +
                         ", got " + squote(s));
    const uint64_t mult = size_multiplier(suffix, kb_base, s);
    return checked_mul(number, mult, kMaxSize, "size " + squote(s) + " is larger than 2^63 bytes");
}

SizeOrPercent parse_size_or_percent(std::string_view text, KbBase kb_base) {
    const std::string_view s = trim(text);
    if (!s.empty() && s.back() == '%') {
        const auto [number, suffix] =
            split_number(s.substr(0, s.size() - 1), "expected a percentage like 50%");
        if (!suffix.empty())
            throw ValueError("expected a percentage like 50%, got " + squote(s));
        if (number < 1 || number > 100)
            throw ValueError("percentage " + squote(s) + " is out of range (1%..100%)");
        return {true, 0, static_cast<uint32_t>(number)};
    }
    return {false, parse_size(s, kb_base), 0};
}

DdirSizes parse_ddir_sizes(std::string_view text, KbBase kb_base) {
    std::string_view s = trim(text);
    if (s.empty()) throw ValueError(std::string(kSizeExample) + ", got ''");
    std::vector<std::string_view> parts;
    while (true) {
        const size_t comma = s.find(',');
        parts.push_back(trim(s.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    if (parts.size() > 3)
        throw ValueError("expected at most three comma-separated sizes (read,write,trim), got " +
                         squote(trim(text)));
    // fio splits "4k-64k" or "4k:64k" like "4k,64k" (reads 4k, writes 64k): surely not what
    // was meant, which is a range of sizes (bsrange). Refused, with both readings spelled out.
    for (std::string_view p : parts)
        if (p.find_first_of("-:", 1) != std::string_view::npos)
            throw ValueError(squote(p) + " is a range, but this option takes one size per direction (fio would "
                             "read it as 'reads,writes'); for a range of block sizes use bsrange=" +
                             std::string(p) + ", for different read and write sizes write them with a comma");
    DdirSizes out;
    std::optional<uint64_t>* slots[3] = {&out.read, &out.write, &out.trim};
    for (size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].empty()) *slots[i] = parse_size(parts[i], kb_base);
    if (!out.read && !out.write && !out.trim)
        throw ValueError(std::string(kSizeExample) + ", got " + squote(trim(text)));
    // As in fio's handle_option(): the last value given also covers the directions after
    // it ("4k" is 4k for all, "8k,32k" writes and trims 32k), unless the list ends with a
    // comma ("4k," sets reads only; writes and trims keep their defaults).
    for (size_t i = parts.size(); i < 3 && !parts.back().empty(); ++i)
        *slots[i] = *slots[parts.size() - 1];
    return out;
}

namespace {

// Splits fio's per-direction list "read[,write[,trim]]" (also '/' for bsrange) into its
// parts; at most three.
std::vector<std::string_view> ddir_parts(std::string_view text, std::string_view seps) {
    std::string_view s = trim(text);
    std::vector<std::string_view> parts;
    while (true) {
        const size_t sep = s.find_first_of(seps);
        parts.push_back(trim(s.substr(0, sep)));
        if (sep == std::string_view::npos) break;
        s.remove_prefix(sep + 1);
    }
    if (parts.size() > 3)
        throw ValueError("expected at most three lists (read,write,trim), got " + squote(trim(text)));
    return parts;
}

}  // namespace

SizeRange parse_size_range(std::string_view text, KbBase kb_base) {
    const std::string_view s = trim(text);
    // The separator is the first '-' or ':' after the first character (a leading '-' is a
    // negative number, which parse_size refuses with its own message).
    const size_t sep = s.find_first_of("-:", 1);
    if (sep == std::string_view::npos) {
        const uint64_t v = parse_size(s, kb_base);
        return {v, v};
    }
    const std::string_view lo = trim(s.substr(0, sep)), hi = trim(s.substr(sep + 1));
    if (lo.empty() || hi.empty())
        throw ValueError("expected a size range like 4k-64k, got " + squote(s));
    const uint64_t a = parse_size(lo, kb_base), b = parse_size(hi, kb_base);
    // fio swaps bounds given backwards without a word; a range that runs backwards is more
    // likely a typo than a wish, so it is refused with both readings spelled out.
    if (a > b)
        throw ValueError("size range " + squote(s) + " runs backwards (" + std::to_string(a) + " > " +
                         std::to_string(b) + "): write the smaller size first, " + std::string(hi) + "-" +
                         std::string(lo) + " (fio would swap them silently)");
    return {a, b};
}

DdirRanges parse_ddir_ranges(std::string_view text, KbBase kb_base) {
    const std::vector<std::string_view> parts = ddir_parts(text, ",/");
    DdirRanges out;
    std::optional<SizeRange>* slots[3] = {&out.read, &out.write, &out.trim};
    for (size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].empty()) *slots[i] = parse_size_range(parts[i], kb_base);
    if (!out.read && !out.write && !out.trim)
        throw ValueError("expected a size range like 4k-64k, got " + squote(trim(text)));
    for (size_t i = parts.size(); i < 3 && !parts.back().empty(); ++i) *slots[i] = *slots[parts.size() - 1];
    return out;
}

namespace {

BsSplit parse_one_bssplit(std::string_view text, KbBase kb_base) {
    constexpr std::string_view kExpected = "expected entries like 4k/10:64k/90 (block size/percent)";
    BsSplit out;
    std::vector<bool> missing;
    std::string_view s = trim(text);
    while (!s.empty()) {
        const size_t colon = s.find(':');
        const std::string_view item = trim(s.substr(0, colon));
        s = colon == std::string_view::npos ? std::string_view() : s.substr(colon + 1);
        if (item.empty()) break;  // fio stops at an empty entry
        const size_t slash = item.find('/');
        BsSplitEntry e;
        e.bs = parse_size(item.substr(0, slash), kb_base);
        bool pct_missing = true;
        if (slash != std::string_view::npos && !trim(item.substr(slash + 1)).empty()) {
            uint64_t pct = 0;
            try {
                pct = parse_uint(item.substr(slash + 1));
            } catch (const ValueError&) {
                throw ValueError(std::string(kExpected) + ", got " + squote(item));
            }
            e.percent = static_cast<uint32_t>(std::min<uint64_t>(pct, 100));
            pct_missing = pct == 0;  // fio: a percentage of 0 counts as missing
        }
        out.push_back(e);
        missing.push_back(pct_missing);
        if (out.size() > 64) throw ValueError("more than 64 bssplit entries (fio's BSSPLIT_MAX)");
    }
    if (out.empty()) return out;
    uint32_t sum = 0, nr_missing = 0;
    for (size_t i = 0; i < out.size(); ++i) {
        if (missing[i]) ++nr_missing;
        else sum += out[i].percent;
    }
    if (sum > 100)
        throw ValueError("bssplit percentages add up to " + std::to_string(sum) + "% in " + squote(trim(text)) +
                         " (at most 100%)");
    for (size_t i = 0; i < out.size(); ++i)
        if (missing[i]) out[i].percent = (100 - sum) / nr_missing;
    return out;
}

}  // namespace

DdirBsSplit parse_bssplit(std::string_view text, KbBase kb_base) {
    const std::vector<std::string_view> parts = ddir_parts(text, ",");
    DdirBsSplit out;
    std::optional<BsSplit>* slots[3] = {&out.read, &out.write, &out.trim};
    for (size_t i = 0; i < parts.size(); ++i) {
        BsSplit split = parse_one_bssplit(parts[i], kb_base);
        if (!split.empty()) *slots[i] = std::move(split);
    }
    if (!out.read && !out.write && !out.trim)
        throw ValueError("expected entries like 4k/10:64k/90 (block size/percent), got " + squote(trim(text)));
    // fio's str_split_parse(): one list covers every direction; "r,w" also gives trims w.
    for (size_t i = parts.size(); i < 3; ++i) *slots[i] = *slots[parts.size() - 1];
    return out;
}

namespace {

// The slots of "r[,w[,t]]" filled as fio's bs does (see parse_ddir_sizes).
template <class F>
DdirSizes ddir_values(std::string_view text, std::string_view expected, F parse) {
    const std::vector<std::string_view> parts = ddir_parts(text, ",");
    DdirSizes out;
    std::optional<uint64_t>* slots[3] = {&out.read, &out.write, &out.trim};
    for (size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].empty()) *slots[i] = parse(parts[i]);
    if (!out.read && !out.write && !out.trim)
        throw ValueError(std::string(expected) + ", got " + squote(trim(text)));
    for (size_t i = parts.size(); i < 3 && !parts.back().empty(); ++i) *slots[i] = *slots[parts.size() - 1];
    return out;
}

CmdprioSplitEntry parse_cmdprio_entry(std::string_view item, KbBase kb_base) {
    constexpr std::string_view kExpected = "expected entries like 64k/30 or 64k/30/1/0 (block size/percent[/class/level])";
    std::vector<std::string_view> fields;
    for (std::string_view rest = item;;) {
        const size_t slash = rest.find('/');
        fields.push_back(trim(rest.substr(0, slash)));
        if (slash == std::string_view::npos) break;
        rest.remove_prefix(slash + 1);
    }
    if (fields.size() == 3 || fields.size() > 4)
        throw ValueError(std::string(kExpected) + ", got " + squote(item) + " (fio 3.33 takes 2 or 4 fields)");
    const auto number = [&](std::string_view f) {
        try {
            return parse_uint(f);
        } catch (const ValueError&) {
            throw ValueError(std::string(kExpected) + ", got " + squote(item));
        }
    };
    CmdprioSplitEntry e;
    e.bs = parse_size(fields[0], kb_base);
    if (fields.size() >= 2 && !fields[1].empty())
        e.percent = static_cast<uint32_t>(std::min<uint64_t>(number(fields[1]), 100));
    if (fields.size() == 4) {
        e.has_prio = true;
        const uint64_t cls = number(fields[2]), level = number(fields[3]);
        if (cls < 1 || cls > 3)
            throw ValueError("priority class " + std::to_string(cls) + " in " + squote(item) +
                             " is out of range (1 RT, 2 BE, 3 IDLE)");
        if (level > 7)
            throw ValueError("priority level " + std::to_string(level) + " in " + squote(item) +
                             " is out of range (0..7)");
        e.ioprio_class = static_cast<uint32_t>(cls);
        e.level = static_cast<uint32_t>(level);
    }
    return e;
}

std::vector<CmdprioSplitEntry> parse_cmdprio_list(std::string_view text, KbBase kb_base) {
    std::vector<CmdprioSplitEntry> out;
    size_t given = 0;
    for (std::string_view s = trim(text); !s.empty();) {
        const size_t colon = s.find(':');
        const std::string_view item = trim(s.substr(0, colon));
        s = colon == std::string_view::npos ? std::string_view() : s.substr(colon + 1);
        if (item.empty()) break;  // fio stops at an empty entry
        if (++given > 64) throw ValueError("more than 64 cmdprio_bssplit entries (fio's BSSPLIT_MAX)");
        const CmdprioSplitEntry e = parse_cmdprio_entry(item, kb_base);
        if (e.percent != 0) out.push_back(e);  // fio: a 0 % entry provides no information
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bs < b.bs; });
    return out;
}

}  // namespace

DdirSizes parse_ddir_rates(std::string_view text, KbBase kb_base) {
    return ddir_values(text, "expected a rate like 1m or 500k (bytes or I/Os per second), or 'reads,writes'",
                       [&](std::string_view p) { return parse_size(p, kb_base); });
}

DdirSizes parse_ddir_uints(std::string_view text) {
    return ddir_values(text, "expected an integer, or 'reads,writes' such as 10,20",
                       [](std::string_view p) { return parse_uint(p); });
}

DdirCmdprioSplit parse_cmdprio_bssplit(std::string_view text, KbBase kb_base) {
    const std::vector<std::string_view> parts = ddir_parts(text, ",");
    DdirCmdprioSplit out;
    out.read = parse_cmdprio_list(parts[0], kb_base);
    // fio's str_split_parse(): one list is also the writes'; "r,w[,t]" gives each its own.
    out.write = parts.size() == 1 ? out.read : parse_cmdprio_list(parts[1], kb_base);
    return out;
}

sim::Duration parse_time(std::string_view text, TimeUnit default_unit) {
    const std::string_view s = trim(text);
    const auto [number, suffix] = split_number(s, kTimeExample);
    const uint64_t mult = time_suffix_ns(suffix, default_unit, s);
    const uint64_t ns = checked_mul(
        number, mult, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
        "time " + squote(s) + " is too long (the limit is about 292 years of nanoseconds)");
    return sim::Duration::ns(static_cast<int64_t>(ns));
}

uint64_t parse_uint(std::string_view text) {
    const std::string_view s = trim(text);
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        uint64_t v = 0;
        for (char c : s.substr(2)) {
            const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                        : (c >= 'a' && c <= 'f')                      ? c - 'a' + 10
                        : (c >= 'A' && c <= 'F')                      ? c - 'A' + 10
                                                                      : -1;
            if (d < 0) throw ValueError("expected a hexadecimal integer, got " + squote(s));
            if (v > (std::numeric_limits<uint64_t>::max() >> 4))
                throw ValueError("number " + squote(s) + " is too large");
            v = (v << 4) | static_cast<uint64_t>(d);
        }
        return v;
    }
    const auto [number, suffix] = split_number(s, "expected a non-negative integer");
    if (!suffix.empty()) throw ValueError("expected a non-negative integer, got " + squote(s));
    return number;
}

bool parse_bool(std::string_view text) {
    const std::string s = lower(trim(text));
    if (s == "1" || s == "true") return true;
    if (s == "0" || s == "false") return false;
    throw ValueError("expected a boolean (1 or 0, true or false), got " + squote(trim(text)));
}

std::vector<uint32_t> parse_cpu_list(std::string_view text) {
    constexpr std::string_view kExpected = "expected a CPU list like 0-3,6";
    constexpr uint64_t kMaxCpu = 1u << 20;  // guards the range expansion below
    std::vector<uint32_t> cpus;
    std::string_view s = trim(text);
    if (s.empty()) throw ValueError(std::string(kExpected) + ", got ''");
    while (true) {
        const size_t comma = s.find(',');
        const std::string_view item = trim(s.substr(0, comma));
        const size_t dash = item.find('-');
        const auto cpu = [&](std::string_view v) {
            uint64_t n = 0;
            try {
                n = parse_uint(v);
            } catch (const ValueError&) {
                throw ValueError(std::string(kExpected) + ", got " + squote(trim(text)));
            }
            if (n >= kMaxCpu) throw ValueError("CPU number " + std::string(trim(v)) + " is too large");
            return static_cast<uint32_t>(n);
        };
        const uint32_t first = cpu(item.substr(0, dash));
        const uint32_t last = dash == std::string_view::npos ? first : cpu(item.substr(dash + 1));
        if (last < first)
            throw ValueError("CPU range " + squote(item) + " runs backwards in " + squote(trim(text)));
        for (uint32_t c = first; c <= last; ++c) cpus.push_back(c);
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

}  // namespace blksim::units

namespace blksim::units {

namespace {

// One direction's zone list "access/size:access/size..." (fio's zone_split_ddir()): a number
// left out ("20/", or "/10" for zoned) is an equal share of what the others leave.
std::vector<ZoneSplitEntry> parse_one_zone_split(std::string_view text, bool absolute, KbBase kb_base) {
    const std::string expected = absolute ? "expected entries like 60/1g:40/3g (percent of the accesses/zone size)"
                                          : "expected entries like 60/10:30/20:10/70 (percent of the accesses/percent "
                                            "of the region)";
    std::vector<ZoneSplitEntry> out;
    std::vector<bool> access_missing, size_missing;
    uint64_t access = 0, size = 0;
    for (std::string_view s = trim(text); !s.empty();) {
        const size_t colon = s.find(':');
        const std::string_view item = trim(s.substr(0, colon));
        s = colon == std::string_view::npos ? std::string_view() : s.substr(colon + 1);
        const size_t slash = item.find('/');
        if (item.empty() || slash == std::string_view::npos)
            throw ValueError(expected + ", got " + squote(item));
        const std::string_view a = trim(item.substr(0, slash)), z = trim(item.substr(slash + 1));
        if (z.empty() && absolute)
            throw ValueError(expected + ", got " + squote(item) + " (a zoned_abs zone needs its size)");
        ZoneSplitEntry e;
        try {
            if (!a.empty()) e.access = static_cast<uint32_t>(std::min<uint64_t>(parse_uint(a), 101));
            if (!z.empty()) e.size = absolute ? parse_size(z, kb_base) : parse_uint(z);
        } catch (const ValueError&) {
            throw ValueError(expected + ", got " + squote(item));
        }
        access += e.access;
        size += absolute ? 0 : e.size;
        access_missing.push_back(a.empty());
        size_missing.push_back(z.empty());
        out.push_back(e);
        if (out.size() > 256) throw ValueError("more than 256 zones (fio's ZONESPLIT_MAX)");
    }
    if (out.empty()) throw ValueError(expected + ", got " + squote(trim(text)));
    const auto nr = [](const std::vector<bool>& v) { return static_cast<uint64_t>(std::count(v.begin(), v.end(), true)); };
    const uint64_t na = nr(access_missing), ns = nr(size_missing);
    if (access > 100 || size > 100 || (access < 100 && na == 0))
        throw ValueError("the zones' " + std::string(size > 100 ? "sizes" : "access percentages") + " add up to " +
                         std::to_string(size > 100 ? size : access) + "% in " + squote(trim(text)) +
                         (size > 100 ? " (at most 100%)" : " (they must add up to 100%)"));
    for (size_t i = 0; i < out.size(); ++i) {
        if (access_missing[i]) out[i].access = static_cast<uint32_t>((100 - access) / na);
        if (size_missing[i]) out[i].size = (100 - size) / ns;
    }
    return out;
}

}  // namespace

DdirZoneSplit parse_zone_split(std::string_view text, bool absolute, KbBase kb_base) {
    const std::vector<std::string_view> parts = ddir_parts(text, ",");
    DdirZoneSplit out;
    for (size_t i = 0; i < parts.size() && i < 2; ++i) out[i] = parse_one_zone_split(parts[i], absolute, kb_base);
    if (parts.size() == 1) out[1] = out[0];  // one list covers every direction
    return out;
}

}  // namespace blksim::units
