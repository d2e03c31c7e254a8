// fio's value syntax: sizes ("4k", "1m", "512B", "50%"), times ("10s", "500us"), plain
// integers, booleans and CPU lists. Shared by the JSON scenario loader and (later) a fio
// job-file parser, so that both read "4k" exactly as fio does.
//
// Size suffixes follow fio's parse.c, whose default (kb_base=1024) is a compatibility mode
// in which the SI-looking prefixes are powers of two and the IEC ones powers of ten:
//
//     kb_base=1024 (fio's default):  4k = 4kb = 4KB = 4096     4KiB = 4Ki = 4000
//     kb_base=1000:                  4k = 4kb = 4KB = 4000     4KiB = 4Ki = 4096
//
// That is surprising, but a job file written for fio must mean here what it means to fio.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace blksim::units {

// A value that does not follow the expected syntax. The message says what was expected;
// the caller adds where the value came from (file, JSON path, option name).
class ValueError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// fio's kb_base option.
enum class KbBase : uint32_t { B1024 = 1024, B1000 = 1000 };

// Largest size accepted: 2^63 bytes, so that sizes always fit an int64 byte offset.
inline constexpr uint64_t kMaxSize = uint64_t{1} << 63;

// "4096", "4k", "4KiB", "1m", "512B", "0x1000". A bare number is bytes.
uint64_t parse_size(std::string_view text, KbBase kb_base = KbBase::B1024);

// A size, or a percentage such as "50%" (fio allows that for size and offset, meaning a
// share of the device). percent is 1..100 when is_percent.
struct SizeOrPercent {
    bool is_percent = false;
    uint64_t bytes = 0;
    uint32_t percent = 0;
};
SizeOrPercent parse_size_or_percent(std::string_view text, KbBase kb_base = KbBase::B1024);

// fio's per-direction list "read[,write[,trim]]" as used by bs: "4k" sets all directions,
// "4k,8k" reads 4k and writes 8k, ",8k" only writes (reads keep their default).
struct DdirSizes {
    std::optional<uint64_t> read, write, trim;
};
DdirSizes parse_ddir_sizes(std::string_view text, KbBase kb_base = KbBase::B1024);

// fio's size range (bsrange): "4k-64k" or "4k:64k". A single size "4k" is the range 4k-4k.
// Bounds given backwards ("64k-4k") are refused; fio swaps them silently.
struct SizeRange {
    uint64_t min = 0, max = 0;
    bool operator==(const SizeRange&) const = default;
};
SizeRange parse_size_range(std::string_view text, KbBase kb_base = KbBase::B1024);

// bsrange's per-direction list "1k-4k,8k-32k[,trim]" (',' or '/' between the directions),
// with parse_ddir_sizes' rule for directions left out.
struct DdirRanges {
    std::optional<SizeRange> read, write, trim;
};
DdirRanges parse_ddir_ranges(std::string_view text, KbBase kb_base = KbBase::B1024);

// fio's bssplit: "4k/10:64k/50:32k/40", and per direction "reads,writes[,trims]". As in
// fio's bssplit_ddir(), an entry without a percentage (or with 0) gets an equal share of
// what the others leave, and a percentage above 100 counts as 100; percentages adding up
// to more than 100 are refused (fio only refuses some of those). Entries keep their order.
struct BsSplitEntry {
    uint64_t bs = 0;
    uint32_t percent = 0;
    bool operator==(const BsSplitEntry&) const = default;
};
using BsSplit = std::vector<BsSplitEntry>;
struct DdirBsSplit {
    std::optional<BsSplit> read, write, trim;
};
DdirBsSplit parse_bssplit(std::string_view text, KbBase kb_base = KbBase::B1024);

// fio's per-direction values "read[,write[,trim]]" of the options that are not block sizes:
// rate=1m,500k and rate_iops=100,200 (sizes: "1k" is 1024, as fio reads them), and
// cmdprio_percentage=10,20 / cmdprio_class / cmdprio (plain integers). The rule for
// directions left out is parse_ddir_sizes'.
DdirSizes parse_ddir_rates(std::string_view text, KbBase kb_base = KbBase::B1024);
DdirSizes parse_ddir_uints(std::string_view text);

// fio's cmdprio_bssplit: "bs/percent[/class/level]:..." per direction, "reads,writes" (one
// list covers both; trims are ignored, as fio ignores them). As fio's
// split_parse_prio_ddir(): an entry without a percentage or with 0 % is dropped, a
// percentage above 100 counts as 100, and the entries are sorted by block size (stably).
// Stricter than fio: 3 or 5+ fields, a class outside 1..3 or a level above 7 are refused
// (fio clamps the last two).
struct CmdprioSplitEntry {
    uint64_t bs = 0;
    uint32_t percent = 0;
    bool has_prio = false;        // the 4-field form
    uint32_t ioprio_class = 0, level = 0;
    bool operator==(const CmdprioSplitEntry&) const = default;
};
struct DdirCmdprioSplit {
    std::vector<CmdprioSplitEntry> read, write;
};
DdirCmdprioSplit parse_cmdprio_bssplit(std::string_view text, KbBase kb_base = KbBase::B1024);

// The unit a bare number has: seconds for runtime/ramp_time, nanoseconds for options that
// carry the unit in their name (completion_nsec), and so on.
enum class TimeUnit : uint8_t { NSEC, USEC, MSEC, SEC };

// "10" (default_unit), "10s", "500ms", "250us", "100ns", "2m", "1h", "1d"; suffixes are
// case-insensitive; "usec", "msec", "sec", "min" are accepted too. Refuses times that
// do not fit int64 nanoseconds.
sim::Duration parse_time(std::string_view text, TimeUnit default_unit);

// A plain non-negative integer, decimal or 0x-hex, no suffix.
uint64_t parse_uint(std::string_view text);

// fio's bool: "1"/"0" (fio parses bools as integers); "true"/"false" are accepted too.
bool parse_bool(std::string_view text);

// fio's random_distribution=zoned:/zoned_abs: zones "access/size:..." per direction
// ("reads,writes"; one list covers both). size is a percentage of the region (zoned) or a
// size (zoned_abs). The access percentages must add up to 100, zoned's sizes to at most 100
// (fio's zone_split_ddir()); stricter than fio: every entry gives both numbers.
struct ZoneSplitEntry {
    uint32_t access = 0;
    uint64_t size = 0;
};
using DdirZoneSplit = std::array<std::vector<ZoneSplitEntry>, 2>;
DdirZoneSplit parse_zone_split(std::string_view text, bool absolute, KbBase kb_base = KbBase::B1024);

// fio's cpus_allowed list: "0-3,6,8-9" -> {0,1,2,3,6,8,9}, sorted, without duplicates.
std::vector<uint32_t> parse_cpu_list(std::string_view text);

}  // namespace blksim::units
