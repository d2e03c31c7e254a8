// Trace readers (tools/replay): the real 6.18 blktrace capture, fio iologs v2/v3 (one written
// by fio 3.33 itself), and every kind of bad input giving one message naming the file and
// the record or line.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <unistd.h>
#include <vector>

#include "models/report/blktrace_format.h"
#include "tools/replay/trace_reader.h"

using namespace blksim;
using replay::TraceError;
using workload::ReplayTiming;
namespace bt = blksim::report::blktrace;

namespace {

std::string fixture(const std::string& rel) { return std::string(BLKSIM_SOURCE_DIR) + "/test/fixtures/" + rel; }
const std::string kCapture = fixture("real-linux-6.18/blktrace/loop0-mqdl-qd128-rt10");

std::string tmp(const std::string& name) {
    return "/tmp/blksim-replay-test-" + std::to_string(getpid()) + "-" + name;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_file(const std::string& name, const std::string& bytes) {
    const std::string p = tmp(name);
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

std::string record_bytes(const bt::Record& r) {
    unsigned char b[bt::RECORD_BYTES];
    bt::encode(r, b);
    return std::string(reinterpret_cast<const char*>(b), bt::RECORD_BYTES);
}

bt::Record queue(uint64_t time, uint64_t sector, uint32_t bytes, bool write, uint32_t dev = bt::mkdev(8, 0)) {
    bt::Record r;
    r.time = time;
    r.sector = sector;
    r.bytes = bytes;
    r.action = bt::TA_QUEUE | bt::tc_act(bt::TC_QUEUE | (write ? bt::TC_WRITE | bt::TC_SYNC : bt::TC_READ));
    r.device = dev;
    return r;
}

std::string error_of(const std::string& path) {
    try {
        replay::load_replay_log(path);
    } catch (const TraceError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("the real 6.18 capture: every Q event of both per-CPU files, merged by time", "[replay]") {
    const workload::ReplayLog log = replay::load_replay_log(kCapture);
    CHECK(log.format == "blktrace");
    CHECK(log.timing == ReplayTiming::ABSOLUTE);
    // blkparse's summary of this capture: "Reads Queued: 4932, 19728KiB", no writes.
    REQUIRE(log.entries.size() == 4932);
    uint64_t bytes = 0, sectors = 0;
    for (const auto& e : log.entries) {
        bytes += e.bytes;
        sectors += e.offset >> 9;
        CHECK(e.ddir == 0);
    }
    CHECK(bytes == 19728ULL * 1024);
    CHECK(sectors == 5153003152ULL);
    // The first Q is fio's read of sector 1817024 (test_blkparse.cc); the others follow by time.
    CHECK(log.entries[0].time_ns == 0);
    CHECK(log.entries[0].offset == 1817024ULL * 512);
    CHECK(log.entries[1].time_ns == 7171);
    CHECK(log.entries[1].offset == 2035456ULL * 512);
    CHECK(log.entries.back().time_ns == 39860574);
    CHECK(log.entries.back().offset == 170840ULL * 512);
    CHECK(std::is_sorted(log.entries.begin(), log.entries.end(),
                         [](const auto& a, const auto& b) { return a.time_ns < b.time_ns; }));

    // One per-CPU file alone: blkparse counts 1563 reads queued on CPU 0.
    CHECK(replay::load_replay_log(kCapture + ".blktrace.0").entries.size() == 1563);
    CHECK(replay::replay_files(kCapture).size() == 2);

    // Every record is read, notify and others included (9202 + 25452 in the two files).
    uint64_t n = 0, last_index = 0;
    replay::read_blktrace_records(kCapture + ".blktrace.1", [&](const bt::Record& r, const unsigned char*,
                                                                 uint64_t index, uint64_t) {
        CHECK(r.magic == (bt::MAGIC | bt::VERSION));
        ++n;
        last_index = index;
    });
    CHECK(n == 25452);
    CHECK(last_index == n);
}

TEST_CASE("blktrace reader: big-endian traces, skipped events, several devices", "[replay]") {
    // A trace from a big-endian machine: every field byte-swapped (blkparse reads those too).
    std::string le = record_bytes(queue(1000, 64, 4096, false)) + record_bytes(queue(3000, 128, 8192, true));
    std::string be = le;
    const int widths[] = {4, 4, 8, 8, 4, 4, 4, 4, 4, 2, 2};
    for (std::size_t rec = 0; rec < be.size(); rec += bt::RECORD_BYTES) {
        std::size_t off = rec;
        for (int w : widths) {
            std::reverse(be.begin() + static_cast<std::ptrdiff_t>(off), be.begin() + static_cast<std::ptrdiff_t>(off + w));
            off += w;
        }
    }
    for (const std::string& bytes : {le, be}) {
        const auto log = replay::load_replay_log(write_file("endian.bin", bytes));
        REQUIRE(log.entries.size() == 2);
        CHECK(log.entries[1].time_ns == 2000);
        CHECK(log.entries[1].offset == 128 * 512);
        CHECK(log.entries[1].bytes == 8192);
        CHECK(log.entries[1].ddir == 1);
    }

    // Non-Q events, a flush without data, a discard and notify records are not replayed.
    bt::Record d = queue(1500, 64, 4096, false);
    d.action = bt::TA_ISSUE | bt::tc_act(bt::TC_ISSUE | bt::TC_READ | bt::TC_FS);
    bt::Record flush = queue(1600, 0, 0, true);
    bt::Record discard = queue(1700, 256, 4096, true);
    discard.action |= bt::tc_act(bt::TC_DISCARD);
    bt::Record note;
    note.action = bt::TN_PROCESS;
    note.pdu_len = 16;
    const std::string mixed = record_bytes(note) + std::string(16, 'x') + le.substr(0, 48) + record_bytes(d) +
                              record_bytes(flush) + record_bytes(discard) + le.substr(48);
    CHECK(replay::load_replay_log(write_file("mixed.bin", mixed)).entries.size() == 2);

    // Two devices in one dump: a job replays one.
    const std::string two = le + record_bytes(queue(4000, 8, 4096, false, bt::mkdev(8, 16)));
    const std::string msg = error_of(write_file("two.bin", two));
    CHECK_THAT(msg, Catch::Contains("2 devices (8,0 8,16)"));
}

TEST_CASE("blktrace reader: a truncated or corrupted trace names the file, record and offset", "[replay]") {
    const std::string capture = read_all(kCapture + ".blktrace.0");
    REQUIRE(capture.size() == 454200);

    SECTION("cut inside a record") {
        const std::string p = write_file("cut.blktrace", capture.substr(0, 1000));
        const std::string msg = error_of(p);
        INFO(msg);
        // The file starts with 48-byte C records: record 21 starts at byte 960.
        CHECK_THAT(msg, Catch::Contains(p + ": record 21 at byte offset 960: truncated: the record needs 48 bytes, the file ends after 40"));
    }
    SECTION("cut inside an unplug's payload") {
        // Record 398 of file .0 is its first U (48 + 8 bytes), at offset 19056.
        bt::Record r = bt::decode(reinterpret_cast<const unsigned char*>(capture.data()) + 19056, false);
        REQUIRE((r.action & 0xffff) == bt::TA_UNPLUG_IO);
        const std::string msg = error_of(write_file("cutpdu.blktrace", capture.substr(0, 19056 + 52)));
        CHECK_THAT(msg, Catch::Contains("record 398 at byte offset 19056: truncated: the record and its 8-byte payload need 56 bytes, the file ends after 52"));
    }
    SECTION("a corrupted magic") {
        std::string bad = capture;
        bad[193] = '\x55';  // the magic of record 5 (offset 192; byte 0 is the version)
        const std::string p = write_file("magic.blktrace", bad);
        const std::string msg = error_of(p);
        INFO(msg);
        CHECK_THAT(msg, Catch::Contains(p + ": record 5 at byte offset 192: bad magic 0x65615507 (expected 0x65617407)"));
    }
    SECTION("another version") {
        std::string bad = capture;
        bad[0] = '\x06';
        CHECK_THAT(error_of(write_file("v6.blktrace", bad)), Catch::Contains("record 1 at byte offset 0: blktrace version 6"));
    }
    SECTION("not a trace at all") {
        CHECK_THAT(error_of(write_file("text.bin", "hello, world\n")), Catch::Contains("neither a fio iolog"));
        CHECK_THAT(error_of(write_file("empty.bin", "")), Catch::Contains("empty file"));
        CHECK_THAT(error_of(tmp("missing")), Catch::Contains("no such file"));
        CHECK_THAT(error_of("/tmp"), Catch::Contains("is a directory"));
    }
    SECTION("a time stamp far beyond the rest") {
        std::string bytes = record_bytes(queue(1000, 64, 4096, false)) +
                            record_bytes(queue(uint64_t{1} << 62, 64, 4096, false));
        CHECK_THAT(error_of(write_file("time.bin", bytes)), Catch::Contains("record 2 at byte offset 48: Q at 4611686018427387904 ns"));
    }
    SECTION("random bytes never crash or hang the reader") {
        uint64_t x = 88172645463325252ULL;
        for (int round = 0; round < 200; ++round) {
            std::string bytes = capture.substr(0, 2000);
            for (int k = 0; k < 8; ++k) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                bytes[x % bytes.size()] = static_cast<char>(x >> 32);
            }
            const std::string p = write_file("fuzz.blktrace", bytes.substr(0, 100 + x % 1900));
            try {
                replay::load_replay_log(p);
            } catch (const TraceError& e) {
                CHECK_THAT(e.what(), Catch::Contains(p));
            }
        }
    }
}

TEST_CASE("fio iolog v3 written by fio 3.33: timestamps in microseconds, fio's gaps", "[replay][iolog]") {
    const auto log = replay::load_replay_log(fixture("fio-iolog/randrw-null-v3.log"));
    CHECK(log.format == "fio iolog v3");
    CHECK(log.timing == ReplayTiming::GAP);
    REQUIRE(log.entries.size() == 16);
    CHECK(log.entries[0].time_ns == 0);  // "646 /dev/nullb0 read 0 4096"
    CHECK(log.entries[0].offset == 0);
    CHECK(log.entries[0].ddir == 0);
    CHECK(log.entries[1].time_ns == 65000);  // "711 /dev/nullb0 read 45056 4096"
    CHECK(log.entries[1].offset == 45056);
    CHECK(log.entries[3].ddir == 1);         // "725 /dev/nullb0 write 28672 4096"
    CHECK(log.entries[3].offset == 28672);
    CHECK(log.entries.back().time_ns == 99000);
    const auto writes = std::count_if(log.entries.begin(), log.entries.end(), [](const auto& e) { return e.ddir == 1; });
    CHECK(writes == 6);
}

TEST_CASE("fio iolog v2: waits hold the I/Os after them until N ms after the start, as fio does", "[replay][iolog]") {
    // fio 3.33 replays this file (with ioengine=null) as 2 reads and 2 writes in 1.9 s.
    const auto log = replay::load_replay_log(fixture("fio-iolog/waits-v2.log"));
    CHECK(log.format == "fio iolog v2");
    CHECK(log.timing == ReplayTiming::ABSOLUTE);
    REQUIRE(log.entries.size() == 4);  // the trim is skipped
    CHECK(log.entries[0].time_ns == 0);
    CHECK(log.entries[1].time_ns == 1'000'000'000);
    CHECK(log.entries[1].bytes == 8192);
    CHECK(log.entries[2].time_ns == 1'000'000'000);
    CHECK(log.entries[2].offset == 1048576);
    CHECK(log.entries[3].time_ns == 2'000'000'000);
    CHECK(log.entries[3].ddir == 1);
}

TEST_CASE("fio iolog errors name the file and line", "[replay][iolog]") {
    const auto check = [](const std::string& name, const std::string& text, const std::string& expect) {
        const std::string p = write_file(name, text);
        const std::string msg = error_of(p);
        INFO(msg);
        CHECK_THAT(msg, Catch::Contains(p + ": " + expect));
    };
    const std::string v2 = "fio version 2 iolog\n/dev/x add\n";
    check("unknown-act.log", v2 + "/dev/x open\n/dev/x frobnicate 0 4096\n", "line 4: unknown I/O action 'frobnicate'");
    check("not-added.log", v2 + "/dev/y read 0 4096\n", "line 3: read on '/dev/y', which was not added");
    check("open-unknown.log", v2 + "/dev/y open\n", "line 3: open of '/dev/y', which was not added");
    check("number.log", v2 + "/dev/x read 0 4k\n", "line 3: length '4k' is not a non-negative integer");
    check("align.log", v2 + "/dev/x write 0 1000\n", "line 3: length 1000 is not a multiple of 512");
    check("offset.log", v2 + "/dev/x write 100 4096\n", "line 3: offset 100 is not a multiple of 512");
    check("fields.log", v2 + "/dev/x read 0\n", "line 3: expected 'filename action' or 'filename action offset length', got 3 fields");
    check("v3-fields.log", "fio version 3 iolog\n1 /dev/x add\n/dev/x read 0 4096\n",
          "line 3: expected 'timestamp filename action' or 'timestamp filename action offset length', got 4 fields");
    check("v3-ts.log", "fio version 3 iolog\nnow /dev/x add\n", "line 2: timestamp 'now' is not a non-negative integer");
    check("version.log", "fio version 1 iolog\n", "line 1: unsupported iolog version");
    check("nothing.log", v2 + "/dev/x open\n/dev/x close\n", "no read or write to replay");
    // A v3 log ignores wait lines, as fio does.
    const auto log = replay::load_replay_log(
        write_file("v3wait.log", "fio version 3 iolog\n0 /dev/x add\n5 /dev/x wait 100 0\n7 /dev/x write 0 512\n"));
    REQUIRE(log.entries.size() == 1);
    CHECK(log.entries[0].bytes == 512);
}
