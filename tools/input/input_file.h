// Reading the files a user names: scenarios, fio job files, device profiles, DiskSim
// descriptions, traces, sweep results. Every reader goes through here, so that a wrong path
// (a directory, /dev/zero, a FIFO, a disk image) is refused with one precise message instead
// of being read until memory runs out or blocking forever.
//
// The functions return why a file cannot be read as a phrase without the path
// ("a directory, not a regular file"); the caller puts the path and what the file was for in
// front of it, in its own error type: "x.json: cannot read scenario: a directory, not a
// regular file".
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>

namespace blksim::input {

// Size limits of files read whole. Far above any real file of the kind (the largest shipped
// scenario is a few KiB, a sweep of 10^5 points writes about 20 MiB), low enough that the
// text and what is parsed from it fit in memory.
inline constexpr uint64_t kMaxTextFile = uint64_t{16} << 20;  // scenario, profile, DiskSim description
inline constexpr uint64_t kMaxDataFile = uint64_t{1} << 30;   // sweep results, published figures, plots

// Why `path` cannot be opened as an input file, or "" when it can: it must exist and be a
// regular file once symbolic links are followed ("no such file", "a FIFO, not a regular
// file", "a symbolic link loop: a.json -> b.json -> a.json", "permission denied").
std::string not_a_regular_file(const std::string& path);

// The whole of `path`, a regular file of at most max_bytes; nullopt with `why` set otherwise.
std::optional<std::string> read_file(const std::string& path, uint64_t max_bytes, std::string& why);

// One line of a text stream read line by line (traces, which may be larger than memory
// wants): at most max_bytes before the '\n', so that a file without newlines cannot grow the
// line without bound. A '\r' before the '\n' stays in the line, as std::getline leaves it.
enum class Line { READ, END, TOO_LONG };
Line read_line(std::istream& in, std::string& line, std::size_t max_bytes);

}  // namespace blksim::input
