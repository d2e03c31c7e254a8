#include "tools/replay/trace_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "tools/input/input_file.h"

namespace blksim::replay {

namespace {

namespace bt = report::blktrace;
namespace fs = std::filesystem;
using workload::ReplayEntry;
using workload::ReplayLog;
using workload::ReplayTiming;

// The largest I/O a replay may carry (the scenario decoder's bs limit) and the longest
// replay: a recorded time beyond it is a corrupted time stamp, and keeping times this far
// below 2^63 ns keeps every instant the replay computes representable.
constexpr uint64_t kMaxBytes = 128ULL << 20;
constexpr uint64_t kMaxSpanNs = 30ULL * 24 * 3600 * 1000000000ULL;  // 30 days
constexpr uint64_t kMaxSpanUs = kMaxSpanNs / 1000;
// An iolog line is a file name (at most PATH_MAX) and a few numbers.
constexpr std::size_t kMaxLineBytes = 64 * 1024;

std::string record_at(const std::string& path, uint64_t index, uint64_t offset) {
    return fmt::format("{}: record {} at byte offset {}", path, index, offset);
}

// ---------------------------------------------------------------------------------------
// blktrace binary

struct QueuedIo {
    uint64_t time;
    uint64_t sector;
    uint32_t bytes;
    uint8_t ddir;
    uint32_t file;     // index into the file list, for messages
    uint64_t index;    // record number in that file
    uint64_t offset;   // byte offset of the record
};

ReplayLog load_blktrace(const std::vector<std::string>& files) {
    std::vector<QueuedIo> qs;
    std::set<uint32_t> devices;
    for (uint32_t f = 0; f < files.size(); ++f) {
        read_blktrace_records(files[f], [&](const bt::Record& r, const unsigned char*, uint64_t index,
                                            uint64_t offset) {
            if (r.action & bt::tc_act(bt::TC_NOTIFY))
                return;
            if ((r.action & 0xffff) != bt::TA_QUEUE)
                return;
            // fio's blktrace replay and btreplay issue reads and writes; a flush without data
            // (REQ_PREFLUSH on an empty bio), a discard and a passthrough command are skipped.
            if (r.bytes == 0 || (r.action & bt::tc_act(bt::TC_DISCARD | bt::TC_PC)))
                return;
            if (r.bytes % 512 != 0)
                throw TraceError(fmt::format("{}: Q of {} bytes, not a whole number of 512-byte sectors",
                                             record_at(files[f], index, offset), r.bytes));
            if (r.bytes > kMaxBytes)
                throw TraceError(fmt::format("{}: Q of {} bytes, more than blksim's 128 MiB per I/O",
                                             record_at(files[f], index, offset), r.bytes));
            if (r.sector > (UINT64_MAX >> 9) - (r.bytes >> 9))
                throw TraceError(fmt::format("{}: Q at sector {}: beyond any disk (corrupted?)",
                                             record_at(files[f], index, offset), r.sector));
            devices.insert(r.device);
            qs.push_back({r.time, r.sector, r.bytes,
                          static_cast<uint8_t>((r.action & bt::tc_act(bt::TC_WRITE)) ? 1 : 0), f, index, offset});
        });
    }
    const std::string source = files.size() == 1 ? files[0]
                                                  : fmt::format("{} ({} per-CPU files)", files[0], files.size());
    if (qs.empty())
        throw TraceError(fmt::format("{}: no Q (queue) events with data to replay", source));
    if (devices.size() > 1) {
        std::vector<std::string> names;
        for (uint32_t d : devices)
            names.push_back(fmt::format("{},{}", bt::dev_major(d), bt::dev_minor(d)));
        throw TraceError(fmt::format("{}: Q events of {} devices ({}); a job replays one device: split the trace "
                                     "(blkparse -i <one device> -d file)", source, devices.size(),
                                     fmt::join(names, " ")));
    }
    // Per-CPU files are each in time order; together they are merged by time, as blkparse
    // does (ties keep file order).
    std::stable_sort(qs.begin(), qs.end(), [](const QueuedIo& a, const QueuedIo& b) { return a.time < b.time; });
    ReplayLog log;
    log.source = source;
    log.format = "blktrace";
    log.timing = ReplayTiming::ABSOLUTE;  // btreplay: each I/O at its time since the first
    log.entries.reserve(qs.size());
    const uint64_t t0 = qs.front().time;
    for (const QueuedIo& q : qs) {
        if (q.time - t0 > kMaxSpanNs)
            throw TraceError(fmt::format("{}: Q at {} ns, {:.0f} s after the first Q: a corrupted time stamp? "
                                         "(a replay may span at most 30 days)",
                                         record_at(files[q.file], q.index, q.offset), q.time,
                                         static_cast<double>(q.time - t0) / 1e9));
        log.entries.push_back({static_cast<int64_t>(q.time - t0), q.sector << 9, q.bytes, q.ddir});
    }
    return log;
}

// ---------------------------------------------------------------------------------------
// fio iolog v2 / v3 (fio's iolog.c read_iolog())

bool parse_u64(std::string_view s, uint64_t& out) {
    if (s.empty())
        return false;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
}

std::vector<std::string_view> split_ws(std::string_view line) {
    std::vector<std::string_view> tok;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            ++i;
        if (i > start)
            tok.push_back(line.substr(start, i - start));
    }
    return tok;
}

using FileSet = std::set<std::string, std::less<>>;

// A file action (add, open, close) of an iolog: "" when valid, else what is wrong. Files must
// be added before use; open/close are accepted in any order (blksim replays every file of
// the log onto the job's one device).
std::string iolog_file_action(FileSet& added, std::string_view file, std::string_view act, int version) {
    if (act == "add") {
        added.emplace(file);
        return {};
    }
    if (act == "open" || act == "close") {
        if (!added.count(file))
            return fmt::format("{} of '{}', which was not added (a line '{}{} add' must come first)", act, file,
                               version == 3 ? "<timestamp> " : "", file);
        return {};
    }
    return fmt::format("unknown file action '{}' (allowed: add, open, close)", act);
}

// What is wrong with an I/O's extent for a direct-I/O replay to a block device; "" if nothing.
std::string iolog_extent_problem(uint64_t offset, uint64_t length) {
    if (length == 0 || length % 512 != 0 || length > kMaxBytes)
        return fmt::format("length {} is not a multiple of 512 bytes between 512 and 128 MiB "
                           "(blksim replays direct I/O to a block device)", length);
    if (offset % 512 != 0)
        return fmt::format("offset {} is not a multiple of 512 bytes", offset);
    if (offset > UINT64_MAX - length)
        return fmt::format("offset {} + length {} overflows", offset, length);
    return {};
}

// Reads one fio iolog, v2 or v3, line by line into a ReplayLog.
class IologReader {
public:
    IologReader(const std::string& path, int version) : in_(path), path_(path), version_(version) {
        if (!in_)
            throw TraceError(fmt::format("{}: cannot open", path));
        log_.source = path;
        log_.format = fmt::format("fio iolog v{}", version);
        log_.timing = version == 3 ? ReplayTiming::GAP : ReplayTiming::ABSOLUTE;
    }

    ReplayLog read() {
        next_line();  // the version line, checked by the caller
        while (next_line())
            if (const std::vector<std::string_view> tok = split_ws(line_); !tok.empty())
                parse(tok);
        if (in_.bad())
            throw TraceError(fmt::format("{}: read error after line {}", path_, lineno_));
        if (log_.entries.empty())
            throw TraceError(fmt::format("{}: no read or write to replay", path_));
        return std::move(log_);
    }

private:
    bool next_line() {
        const input::Line got = input::read_line(in_, line_, kMaxLineBytes);
        if (got == input::Line::TOO_LONG)
            throw TraceError(fmt::format("{}: line {}: longer than {} bytes (not a fio iolog)", path_, lineno_ + 1,
                                         kMaxLineBytes));
        lineno_ += got == input::Line::READ;
        return got == input::Line::READ;
    }
    TraceError fail(const std::string& what) const {
        return TraceError(fmt::format("{}: line {}: {}", path_, lineno_, what));
    }
    uint64_t number(std::string_view s, const char* what) const {
        uint64_t v = 0;
        if (!parse_u64(s, v))
            throw fail(fmt::format("{} '{}' is not a non-negative integer", what, s));
        return v;
    }

    // One line: "[timestamp] filename action" or "[timestamp] filename action offset length".
    void parse(const std::vector<std::string_view>& tok) {
        const std::size_t io_tokens = version_ == 3 ? 5 : 4;
        const std::size_t file_tokens = version_ == 3 ? 3 : 2;
        if (tok.size() != io_tokens && tok.size() != file_tokens)
            throw fail(fmt::format("expected '{}filename action' or '{}filename action offset length', got {} fields",
                                   version_ == 3 ? "timestamp " : "", version_ == 3 ? "timestamp " : "", tok.size()));
        uint64_t ts = 0;
        std::size_t k = 0;
        if (version_ == 3) {
            ts = number(tok[0], "timestamp");
            if (ts > kMaxSpanUs)
                throw fail(fmt::format("timestamp {} us is more than 30 days", ts));
            k = 1;
        }
        const std::string_view file = tok[k], act = tok[k + 1];
        if (tok.size() == file_tokens) {
            if (const std::string why = iolog_file_action(added_, file, act, version_); !why.empty())
                throw fail(why);
            return;
        }
        io(ts, file, act, number(tok[k + 2], "offset"), number(tok[k + 3], "length"));
    }

    // An I/O action: a read or write becomes an entry; wait moves v2's clock; the rest is skipped.
    void io(uint64_t ts, std::string_view file, std::string_view act, uint64_t offset, uint64_t length) {
        if (act == "wait") {
            if (version_ == 3)
                return;  // fio: "ignoring wait command with version 3"
            // fio's read_iolog_get() sleeps until `offset` milliseconds since the start
            // (mtime_since_genesis()), whatever its HOWTO says (microseconds since the last
            // wait); fio 3.33 replays this file's waits that way, and so does blksim.
            if (offset > kMaxSpanNs / 1000000)
                throw fail(fmt::format("wait {} ms is more than 30 days", offset));
            wait_ms_ = std::max(wait_ms_, offset);
            return;
        }
        if (act == "sync" || act == "datasync" || act == "trim")
            return;  // no flush or discard model: skipped
        if (act != "read" && act != "write")
            throw fail(fmt::format("unknown I/O action '{}' (allowed: read, write, wait{}, sync, datasync, trim)",
                                   act, version_ == 3 ? " (ignored in v3)" : ""));
        const uint8_t ddir = act == "write" ? 1 : 0;
        if (!added_.count(file))
            throw fail(fmt::format("{} on '{}', which was not added", act, file));
        if (const std::string why = iolog_extent_problem(offset, length); !why.empty())
            throw fail(why);
        int64_t t = 0;
        if (version_ == 3) {
            if (!first_ts_)
                first_ts_ = ts;
            t = (static_cast<int64_t>(ts) - static_cast<int64_t>(*first_ts_)) * 1000;
        } else {
            t = static_cast<int64_t>(wait_ms_) * 1000000;
        }
        log_.entries.push_back({t, offset, static_cast<uint32_t>(length), ddir});
    }

    std::ifstream in_;
    const std::string path_;
    const int version_;
    ReplayLog log_;
    FileSet added_;
    std::string line_;
    uint64_t lineno_ = 0;
    uint64_t wait_ms_ = 0;              // v2: the latest instant a wait asked for
    std::optional<uint64_t> first_ts_;  // v3: the first I/O's time stamp
};

ReplayLog load_iolog(const std::string& path, int version) { return IologReader(path, version).read(); }

}  // namespace

void read_blktrace_records(const std::string& path, const RecordFn& fn) {
    if (const std::string why = input::not_a_regular_file(path); !why.empty())
        throw TraceError(fmt::format("{}: {}", path, why));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw TraceError(fmt::format("{}: cannot open", path));
    // One buffer, refilled as records are consumed: memory stays flat for any file size.
    // It holds at least one whole record (48 bytes + a payload of at most 65535).
    std::vector<unsigned char> buf(1u << 20);
    std::size_t pos = 0, have = 0;
    uint64_t base = 0;  // file offset of buf[0]
    bool eof = false;
    const auto fill = [&]() {
        if (eof)
            return;
        std::copy(buf.begin() + static_cast<std::ptrdiff_t>(pos), buf.begin() + static_cast<std::ptrdiff_t>(have),
                  buf.begin());
        base += pos;
        have -= pos;
        pos = 0;
        in.read(reinterpret_cast<char*>(buf.data() + have), static_cast<std::streamsize>(buf.size() - have));
        const auto got = static_cast<std::size_t>(in.gcount());
        have += got;
        if (got == 0 || !in)
            eof = true;
        if (in.bad())
            throw TraceError(fmt::format("{}: read error at byte offset {}", path, base + have));
    };
    bool order_known = false, big_endian = false;
    uint64_t index = 0;
    for (;;) {
        if (have - pos < bt::RECORD_BYTES)
            fill();
        if (have == pos)
            return;  // a clean end: the last record ended with the file
        ++index;
        const uint64_t offset = base + pos;
        if (have - pos < bt::RECORD_BYTES)
            throw TraceError(fmt::format("{}: truncated: the record needs {} bytes, the file ends after {}",
                                         record_at(path, index, offset), bt::RECORD_BYTES, have - pos));
        const unsigned char* p = buf.data() + pos;
        if (!order_known) {
            const bt::ByteOrder o = bt::detect_byte_order(p);
            if (!o.ok)
                throw TraceError(fmt::format("{}: bad magic {:#010x} (expected {:#010x}): not a blktrace file",
                                             record_at(path, index, offset), bt::detail::get<uint32_t>(p, false),
                                             bt::MAGIC | bt::VERSION));
            order_known = true;
            big_endian = o.big_endian;
        }
        const bt::Record r = bt::decode(p, big_endian);
        if ((r.magic & 0xffffff00u) != bt::MAGIC)
            throw TraceError(fmt::format("{}: bad magic {:#010x} (expected {:#010x}): the file is corrupted here",
                                         record_at(path, index, offset), r.magic, bt::MAGIC | bt::VERSION));
        if ((r.magic & 0xffu) != bt::VERSION)
            throw TraceError(fmt::format("{}: blktrace version {} (blkparse and blksim read version {})",
                                         record_at(path, index, offset), r.magic & 0xffu, bt::VERSION));
        const std::size_t need = bt::RECORD_BYTES + r.pdu_len;
        if (have - pos < need) {
            fill();
            p = buf.data() + pos;
        }
        if (have - pos < need)
            throw TraceError(fmt::format("{}: truncated: the record and its {}-byte payload need {} bytes, the file "
                                         "ends after {}", record_at(path, index, offset), r.pdu_len, need, have - pos));
        fn(r, p + bt::RECORD_BYTES, index, offset);
        pos += need;
    }
}

std::vector<std::string> replay_files(const std::string& path) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec)))  // a symbolic link loop too: load_replay_log says so
        return {path};
    std::vector<std::string> files;
    // blkparse's setup_file(): <name>.blktrace.<cpu> for cpu = 0, 1, ... until one is missing.
    for (uint32_t cpu = 0;; ++cpu) {
        const std::string f = fmt::format("{}.blktrace.{}", path, cpu);
        if (!fs::exists(f, ec))
            break;
        files.push_back(f);
    }
    return files;
}

workload::ReplayLog load_replay_log(const std::string& path) {
    const std::vector<std::string> files = replay_files(path);
    if (files.empty())
        throw TraceError(fmt::format("{}: no such file (nor per-CPU blktrace files {}.blktrace.0, ...)", path, path));
    if (files.size() > 1 || files[0] != path)
        return load_blktrace(files);
    std::error_code ec;
    if (fs::is_directory(path, ec))
        throw TraceError(fmt::format("{}: is a directory (give a file, or the base name of per-CPU blktrace files "
                                     "such as {}/<disk>)", path, path));
    if (const std::string why = input::not_a_regular_file(path); !why.empty())
        throw TraceError(fmt::format("{}: {}", path, why));
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw TraceError(fmt::format("{}: cannot open", path));
    char head[64] = {};
    in.read(head, sizeof head);
    const auto n = static_cast<std::size_t>(in.gcount());
    const std::string_view h(head, n);
    if (n == 0)
        throw TraceError(fmt::format("{}: empty file", path));
    if (h.starts_with("fio version 2 iolog"))
        return load_iolog(path, 2);
    if (h.starts_with("fio version 3 iolog"))
        return load_iolog(path, 3);
    if (h.starts_with("fio version "))
        throw TraceError(fmt::format("{}: line 1: unsupported iolog version (blksim reads 'fio version 2 iolog' "
                                     "and 'fio version 3 iolog')", path));
    if (n >= 4 && bt::detect_byte_order(reinterpret_cast<const unsigned char*>(head)).ok)
        return load_blktrace(files);
    throw TraceError(fmt::format("{}: neither a fio iolog (first line 'fio version 2 iolog' or 'fio version 3 iolog') "
                                 "nor a blktrace binary (record 1 has no blktrace magic)", path));
}

}  // namespace blksim::replay
