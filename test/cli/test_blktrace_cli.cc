// blktrace out and trace replay in, end to end with the real tools: Debian's blktrace
// package (blkparse, btt; scripts/setup.sh installs it) reads what `blksim run --blktrace`
// writes, and blksim replays real and simulated traces and fio iologs.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/replay/trace_reader.h"

namespace fs = std::filesystem;
using blksim::workload::ReplayEntry;
using blksim::workload::ReplayLog;

namespace {

using Run = clitest::CliResult;
Run sh(const std::string& cmd) { return clitest::shell(cmd); }
std::string src(const std::string& rel) { return clitest::source_path(rel); }
std::string blksim_bin() { return BLKSIM_BINARY; }

// A fresh directory per test and process: other builds may run their tests meanwhile.
std::string scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("blksim-bt-test-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(p);
    fs::create_directories(p);
    return p.string();
}

std::string write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
    return path;
}

void require_tools() {
    // scripts/setup.sh installs Debian's blktrace package: these tests need its tools.
    INFO("blkparse and btt (Debian package blktrace) must be installed: run scripts/setup.sh");
    REQUIRE(sh("command -v blkparse >/dev/null && command -v btt >/dev/null").status == 0);
}

// "blksim: blktrace: 225072 events in ..." from blksim's stderr.
uint64_t blksim_event_count(const std::string& out) {
    std::smatch m;
    REQUIRE(std::regex_search(out, m, std::regex("blktrace: ([0-9]+) events in")));
    return std::stoull(m[1]);
}

// A blkparse default-format line without its sequence column, its time relative to the
// first event of the file: the same event prints the same in blksim's --trace text and in
// blkparse's output of the binary files (blkparse subtracts the first event's time, and
// numbers each CPU's events in time order).
using Line = std::tuple<std::string, int64_t, std::string>;  // dev+cpu, time, rest
std::vector<Line> event_lines(const std::string& text) {
    static const std::regex re(R"(^\s*(\d+,\d+\s+\d+)\s+\d+\s+(\d+)\.(\d{9})\s+(.*)$)");
    std::vector<Line> out;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
        std::smatch m;
        if (!std::regex_match(l, m, re))
            continue;
        out.emplace_back(m[1], std::stoll(m[2]) * 1000000000 + std::stoll(m[3]), m[4]);
    }
    if (!out.empty()) {
        const int64_t t0 = std::get<1>(*std::min_element(out.begin(), out.end(), [](const Line& a, const Line& b) {
            return std::get<1>(a) < std::get<1>(b);
        }));
        for (Line& x : out)
            std::get<1>(x) -= t0;
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// btt's "All Devices" row for a stage: average and count.
struct BttStage {
    double avg_ns = -1;
    uint64_t n = 0;
};
BttStage btt_stage(const std::string& btt, const std::string& stage) {
    std::smatch m;
    const std::regex re("\\n" + stage + R"(\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+([0-9]+))");
    if (!std::regex_search(btt, m, re))
        return {};
    return {std::stod(m[2]) * 1e9, std::stoull(m[4])};
}

bool same_stream(const std::vector<ReplayEntry>& a, const std::vector<ReplayEntry>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ReplayEntry& x, const ReplayEntry& y) {
        return x.offset == y.offset && x.bytes == y.bytes && x.ddir == y.ddir;
    });
}

// Scenarios with every kind of event: writes (WS) merged in the plug and in mq-deadline
// (M), inserts (I), tag sleeps (UT), a device that refuses every 5th request (R); reads
// larger than max_sectors_kb, split (X).
const char* kAllEvents = R"({
  "seed": 3,
  "host": { "cpus": 3, "cost_profile": "desktop-8t" },
  "devices": [ { "name": "nullb0", "model": "null_blk",
                 "params": { "irqmode": 2, "completion_nsec": "25us", "hw_queue_depth": 4, "requeue_every": 5 } } ],
  "queues": [ { "device": "nullb0", "scheduler": "mq-deadline", "max_sectors_kb": 64 } ],
  "jobs": [
    { "name": "seqw", "ioengine": "libaio", "rw": "write", "bs": "4k", "iodepth": 16,
      "iodepth_batch_submit": 8, "number_ios": 400 },
    { "name": "randrw", "ioengine": "io_uring", "rw": "randrw", "bs": "8k", "iodepth": 8, "numjobs": 2,
      "iodepth_batch_submit": 8, "number_ios": 300 }
  ]
})";
const char* kSplits = R"({
  "seed": 3,
  "host": { "cpus": 2, "cost_profile": "desktop-8t" },
  "devices": [ { "name": "nullb0", "model": "null_blk", "params": { "irqmode": 2, "completion_nsec": "25us" } } ],
  "queues": [ { "device": "nullb0", "scheduler": "none", "max_sectors_kb": 64 } ],
  "jobs": [ { "name": "big", "ioengine": "libaio", "iodepth": 4, "rw": "randread", "bs": "256k", "number_ios": 50 } ]
})";

}  // namespace

TEST_CASE("blkparse reads every record blksim writes: same events as --trace, no errors", "[cli][blktrace]") {
    require_tools();
    struct Case {
        const char* name;
        const char* scenario;
        std::set<std::string> actions;
        int cpus;
    };
    const Case cases[] = {
        {"all-events", kAllEvents, {"C", "D", "G", "I", "M", "P", "Q", "R", "U", "UT"}, 3},
        {"splits", kSplits, {"C", "D", "G", "P", "Q", "U", "X"}, 2},
    };
    for (const Case& c : cases) {
        INFO(c.name);
        const std::string dir = scratch(c.name);
        const std::string scen = write(dir + "/scenario.json", c.scenario);
        const Run r = sh(blksim_bin() + " run " + scen + " --blktrace " + dir + "/bt --trace " + dir +
                         "/trace.txt 2>&1 >/dev/null");
        INFO(r.out);
        REQUIRE(r.status == 0);
        const uint64_t events = blksim_event_count(r.out);
        CHECK(r.out.find("warning") == std::string::npos);
        for (int cpu = 0; cpu < c.cpus; ++cpu)
            CHECK(fs::exists(dir + "/bt/nullb0.blktrace." + std::to_string(cpu)));

        const Run p = sh("blkparse -i nullb0 -D " + dir + "/bt -o " + dir + "/parsed.txt 2>&1 >/dev/null");
        INFO(p.out);
        REQUIRE(p.status == 0);
        CHECK(p.out.empty());  // no "Bad magic", "Bad fs action", skips or other complaints on stderr
        const std::string parsed = slurp(dir + "/parsed.txt");
        std::smatch m;
        REQUIRE(std::regex_search(parsed, m, std::regex(R"(Events \(nullb0\): ([0-9,]+) entries)")));
        std::string count = m[1];
        count.erase(std::remove(count.begin(), count.end(), ','), count.end());
        CHECK(std::stoull(count) == events);
        CHECK(parsed.find("Skips: 0 forward") != std::string::npos);

        // Line for line the same events as blksim's own blkparse-style text, command names
        // included (blkparse learns "fio" from the process-name records).
        const std::vector<Line> from_blkparse = event_lines(parsed);
        const std::vector<Line> from_blksim = event_lines(slurp(dir + "/trace.txt"));
        CHECK(from_blkparse.size() == events);
        CHECK(from_blkparse == from_blksim);
        std::set<std::string> actions;
        for (const Line& l : from_blkparse) {
            std::istringstream f(std::get<2>(l));
            std::string pid, act;
            f >> pid >> act;
            actions.insert(act);
        }
        CHECK(actions == c.actions);
        fs::remove_all(dir);
    }
}

TEST_CASE("btt's Q2C and D2C averages agree with blksim's own to rounding", "[cli][blktrace]") {
    require_tools();
    struct Case {
        const char* scenario;
        const char* sets;
        const char* disk;
    };
    const Case cases[] = {
        {"scenarios/examples/nullblk-mq-deadline-10jobs.json", "--set jobs.0.runtime=10ms", "nullb0"},
        {"scenarios/examples/nullblk-libaio-qd32.json", "--set jobs.0.runtime=5ms", "nullb0"},
        {"scenarios/examples/nullblk-psync-qd1.json", "--set jobs.0.runtime=20ms", "nullb0"},
        // NVMe, 10 jobs behind mq-deadline's lock: Q2C and D2C vary from request to request.
        {"scenarios/seeds/e3-nvme-jobs10-4k-mq-deadline.json", "--set jobs.0.runtime=2ms", "nvme0"},
    };
    for (const Case& c : cases) {
        const std::string dir = scratch("btt");
        const Run r = sh(blksim_bin() + " run -q --output-format json " + src(c.scenario) + " " + c.sets +
                         " --blktrace " + dir + " 2>/dev/null");
        REQUIRE(r.status == 0);
        const auto j = nlohmann::json::parse(r.out);
        const auto& stages = j["blksim"]["queues"][0]["stages_ns"];

        REQUIRE(sh("blkparse -q -O -i " + std::string(c.disk) + " -D " + dir + " -d " + dir + "/all.bin >/dev/null 2>&1").status == 0);
        // btt writes its *_fp.dat files into the working directory: run it in the scratch one.
        const Run b = sh("cd " + dir + " && btt -i all.bin 2>&1");
        REQUIRE(b.status == 0);
        for (const char* stage : {"Q2C", "D2C"}) {
            const BttStage s = btt_stage(b.out, stage);
            std::string key = stage;
            std::transform(key.begin(), key.end(), key.begin(), ::tolower);
            const double mean = stages[key]["mean"].get<double>();
            INFO(c.scenario << " " << stage << ": btt " << s.avg_ns << " ns over " << s.n << ", blksim " << mean
                            << " ns over " << stages[key]["N"]);
            CHECK(s.n == stages[key]["N"].get<uint64_t>());
            // btt prints seconds with 9 decimals: agreement to the nanosecond it rounds to.
            CHECK(std::abs(s.avg_ns - mean) <= 0.5 + 1e-6 * mean);
        }
        fs::remove_all(dir);
    }
}

TEST_CASE("the real 6.18 capture replays through blksim: its Q events, in order", "[cli][replay]") {
    const std::string capture = src("test/fixtures/real-linux-6.18/blktrace/loop0-mqdl-qd128-rt10");
    const std::string dir = scratch("fixture");
    // The captured loop device: 1 GiB, mq-deadline; fio ran 2 jobs x QD128 libaio.
    const std::string scen = write(dir + "/replay.json", R"({
      "seed": 1,
      "host": { "cpus": 2, "cost_profile": "desktop-8t", "os_jitter": false },
      "devices": [ { "name": "loop0", "model": "null_blk",
                     "params": { "irqmode": 2, "completion_nsec": "20us", "gb": 2 } } ],
      "queues": [ { "device": "loop0", "scheduler": "mq-deadline" } ],
      "jobs": [ { "name": "replay", "ioengine": "libaio", "iodepth": 256, "read_iolog": ")" + capture + R"(" } ]
    })");
    const Run r = sh(blksim_bin() + " run -q " + scen + " --blktrace " + dir + "/out 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("replay: (g=0): rw=read, bs=(R) 4096B-4096B") != std::string::npos);
    CHECK(r.out.find("issued rwts: total=4932,0,0,0") != std::string::npos);

    const ReplayLog in = blksim::replay::load_replay_log(capture);
    const ReplayLog out = blksim::replay::load_replay_log(dir + "/out/loop0");
    REQUIRE(in.entries.size() == 4932);
    CHECK(out.entries.size() == in.entries.size());
    CHECK(same_stream(in.entries, out.entries));
    // Issued at the recorded instants or later (the replay keeps the 40 ms of the capture).
    for (std::size_t i = 0; i < std::min(in.entries.size(), out.entries.size()); ++i)
        if (out.entries[i].time_ns < in.entries[i].time_ns) {
            FAIL_CHECK("I/O " << i << " issued before its recorded time");
            break;
        }
    CHECK(out.entries.back().time_ns - in.entries.back().time_ns < 1'000'000);

    // What fio's read_iolog takes, blkparse's merged dump of the per-CPU files, reads the same.
    require_tools();
    REQUIRE(sh("blkparse -q -O -i " + capture + " -d " + dir + "/dump.bin >/dev/null 2>&1").status == 0);
    const ReplayLog dump = blksim::replay::load_replay_log(dir + "/dump.bin");
    CHECK(same_stream(in.entries, dump.entries));
    CHECK(dump.entries.back().time_ns == in.entries.back().time_ns);
    fs::remove_all(dir);
}

TEST_CASE("round trip: a run's blktrace output replayed reproduces its request stream", "[cli][replay]") {
    const std::string dir = scratch("roundtrip");
    SECTION("psync QD1: the same stream at the same instants") {
        const std::string scen = src("scenarios/examples/nullblk-psync-qd1.json");
        REQUIRE(sh(blksim_bin() + " run -q " + scen + " --set jobs.0.runtime=5ms --blktrace " + dir + "/a >/dev/null 2>&1").status == 0);
        REQUIRE(sh(blksim_bin() + " run -q " + scen + " --set jobs.0.read_iolog=" + dir + "/a/nullb0 --blktrace " + dir +
                   "/b >/dev/null 2>&1").status == 0);
        const ReplayLog a = blksim::replay::load_replay_log(dir + "/a/nullb0");
        const ReplayLog b = blksim::replay::load_replay_log(dir + "/b/nullb0");
        REQUIRE(a.entries.size() > 300);
        CHECK(same_stream(a.entries, b.entries));
        bool same_times = a.entries.size() == b.entries.size();
        for (std::size_t i = 0; same_times && i < a.entries.size(); ++i)
            same_times = a.entries[i].time_ns == b.entries[i].time_ns;
        CHECK(same_times);
    }
    SECTION("4 libaio jobs replayed by one deeper job: same order, never early") {
        const std::string scen = src("scenarios/examples/nullblk-libaio-qd32.json");
        REQUIRE(sh(blksim_bin() + " run -q " + scen + " --set jobs.0.runtime=1ms --set jobs.0.rw=randrw --blktrace " + dir +
                   "/a >/dev/null 2>&1").status == 0);
        const Run r = sh(blksim_bin() + " run -q " + scen + " --set jobs.0.read_iolog=" + dir +
                         "/a/nullb0 --set jobs.0.numjobs=1 --set jobs.0.iodepth=256 --blktrace " + dir + "/b 2>&1");
        INFO(r.out);
        REQUIRE(r.status == 0);
        CHECK(r.out.find("rw=rw, bs=(R) 4096B-4096B, (W) 4096B-4096B") != std::string::npos);
        const ReplayLog a = blksim::replay::load_replay_log(dir + "/a/nullb0");
        const ReplayLog b = blksim::replay::load_replay_log(dir + "/b/nullb0");
        REQUIRE(a.entries.size() > 1000);
        CHECK(same_stream(a.entries, b.entries));
        bool never_early = a.entries.size() == b.entries.size();
        for (std::size_t i = 0; never_early && i < a.entries.size(); ++i)
            never_early = b.entries[i].time_ns >= a.entries[i].time_ns;
        CHECK(never_early);
    }
    fs::remove_all(dir);
}

TEST_CASE("fio iologs v2 and v3 replay with fio's timing", "[cli][replay][iolog]") {
    const std::string dir = scratch("iolog");
    const std::string scen = src("scenarios/examples/nullblk-psync-qd1.json");
    SECTION("v3 written by fio: 16 I/Os, each no earlier than the recorded gap after the last") {
        const std::string log = src("test/fixtures/fio-iolog/randrw-null-v3.log");
        const Run r = sh(blksim_bin() + " run -q " + scen + " --set jobs.0.read_iolog=" + log + " --blktrace " + dir + " 2>&1");
        INFO(r.out);
        REQUIRE(r.status == 0);
        CHECK(r.out.find("issued rwts: total=10,6,0,0") != std::string::npos);
        const ReplayLog in = blksim::replay::load_replay_log(log);
        const ReplayLog out = blksim::replay::load_replay_log(dir + "/nullb0");
        CHECK(same_stream(in.entries, out.entries));
        REQUIRE(out.entries.size() == 16);
        for (std::size_t i = 1; i < 16; ++i)
            CHECK(out.entries[i].time_ns - out.entries[i - 1].time_ns >= in.entries[i].time_ns - in.entries[i - 1].time_ns);
        // "646 read 0" → "711 read 45056": 65 us apart, more than one psync I/O takes here; the
        // job sleeps out the gap and pays the wake-up before it submits.
        CHECK(out.entries[1].time_ns - out.entries[0].time_ns >= 65000);
        CHECK(out.entries[1].time_ns - out.entries[0].time_ns < 70000);
    }
    SECTION("v2 with waits: I/Os held until 1 s and 2 s after the start") {
        // The example's 1 s runtime would end the replay before the second wait.
        const Run r = sh(blksim_bin() + " run -q " + scen + " --set jobs.0.runtime=10s --set jobs.0.read_iolog=" +
                         src("test/fixtures/fio-iolog/waits-v2.log") + " --blktrace " + dir + " 2>&1");
        INFO(r.out);
        REQUIRE(r.status == 0);
        CHECK(r.out.find("issued rwts: total=2,2,0,0") != std::string::npos);
        const ReplayLog out = blksim::replay::load_replay_log(dir + "/nullb0");
        REQUIRE(out.entries.size() == 4);
        CHECK(out.entries[0].ddir == 1);
        // Each wait ends with a wake-up (context switch) before the submission: a few us.
        CHECK(out.entries[1].time_ns >= 1'000'000'000);
        CHECK(out.entries[1].time_ns < 1'000'010'000);
        CHECK(out.entries[1].bytes == 8192);
        CHECK(out.entries[2].time_ns > 1'000'000'000);
        CHECK(out.entries[2].time_ns < 1'000'100'000);
        CHECK(out.entries[3].time_ns >= 2'000'000'000);
        CHECK(out.entries[3].time_ns < 2'000'010'000);
    }
    fs::remove_all(dir);
}

TEST_CASE("a truncated or corrupted trace: one message naming file and record, exit 2", "[cli][replay]") {
    const std::string dir = scratch("badtrace");
    const std::string capture = slurp(src("test/fixtures/real-linux-6.18/blktrace/loop0-mqdl-qd128-rt10.blktrace.1"));
    const std::string scen = src("scenarios/examples/nullblk-psync-qd1.json");
    const auto run = [&](const std::string& trace) {
        return sh(blksim_bin() + " run -q " + scen + " --set jobs.0.read_iolog=" + trace + " 2>&1 >/dev/null");
    };
    {
        const std::string t = write(dir + "/cut.bin", capture.substr(0, 48020));
        const Run r = run(t);
        CHECK(r.status == 2);
        // Records are 48 bytes, unplugs 56: record 978 starts at byte 47992.
        CHECK(r.out == "blksim: " + scen + ": /jobs/0/read_iolog: " + t +
                           ": record 978 at byte offset 47992: truncated: the record needs 48 bytes, the file ends "
                           "after 28 (value from --set jobs.0.read_iolog=" + t + ")\n");
    }
    {
        std::string bad = capture;
        bad[48 * 7 + 2] = 'X';
        const std::string t = write(dir + "/magic.bin", bad);
        const Run r = run(t);
        CHECK(r.status == 2);
        CHECK(r.out.find(t + ": record 8 at byte offset 336: bad magic 0x65587407") != std::string::npos);
        CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
    }
    {
        const Run r = run(write(dir + "/bad.log", "fio version 3 iolog\n0 /dev/sda add\n5 /dev/sda read 0\n"));
        CHECK(r.status == 2);
        CHECK(r.out.find("bad.log: line 3: expected") != std::string::npos);
    }
    {
        // Beyond the simulated disk: named by I/O number.
        const Run r = run(write(dir + "/far.log", "fio version 2 iolog\n/dev/sda add\n/dev/sda read 0 4096\n"
                                                  "/dev/sda read 999999999999999488 4096\n"));
        CHECK(r.status == 2);
        CHECK(r.out.find("I/O 2 of the fio iolog v2 (read of 4096 bytes at byte offset 999999999999999488) ends "
                         "beyond nullb0") != std::string::npos);
    }
    fs::remove_all(dir);
}

// --- explained decisions (--explain) ---------------------------------------------------------

namespace {

// The teaching scenario where reads and writes wait in mq-deadline, cut short.
std::string starved_run(const std::string& dir, const std::string& extra) {
    return blksim_bin() + " run " + src("scenarios/teaching/mq-deadline-writes-starved.json") +
           " --set global.runtime=30ms -q --trace " + dir + "/trace.txt " + extra;
}

// The text of the message lines ("m   N <text>") of a blkparse-style trace, in order.
std::vector<std::string> message_texts(const std::string& text) {
    static const std::regex re(R"(^\s*\d+,\d+\s+\d+\s+0\s+\d+\.\d{9}\s+0\s+m\s+N (.*)$)");
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
        std::smatch m;
        if (std::regex_match(l, m, re))
            out.push_back(m[1]);
    }
    return out;
}

}  // namespace

TEST_CASE("--explain: mq-deadline's switches to writes quote the writes_starved tunable", "[cli][blktrace][explain]") {
    const int starved = GENERATE(2, 3);
    const std::string dir = scratch("explain-starved-" + std::to_string(starved));
    const Run r = sh(starved_run(dir, "--explain --set 'queues.0.iosched={\"writes_starved\":" + std::to_string(starved) +
                                          "}' 2>&1 >/dev/null"));
    INFO(r.out);
    REQUIRE(r.status == 0);
    const std::vector<std::string> msgs = message_texts(slurp(dir + "/trace.txt"));
    // Every switch to writes comes after exactly `starved` read batches that passed over the
    // waiting writes, and those read batches say so, counting up from 1.
    static const std::regex sw(R"(^mq-deadline: prio 1 writes starved (\d+)/(\d+), switching to writes$)");
    static const std::regex rd(R"(^mq-deadline: prio 1 reads preferred, writes starved (\d+)/(\d+)(, switching to reads)?$)");
    int switches = 0, reads = 0, count = 0;
    for (const std::string& m : msgs) {
        std::smatch x;
        if (std::regex_match(m, x, sw)) {
            CHECK(std::stoi(x[1]) == starved);
            CHECK(std::stoi(x[2]) == starved);
            CHECK(count == starved);
            count = 0;
            ++switches;
        } else if (std::regex_match(m, x, rd)) {
            ++count;
            CHECK(std::stoi(x[1]) == count);
            CHECK(std::stoi(x[2]) == starved);
            ++reads;
        } else if (m.rfind("mq-deadline: prio 1 write batch", 0) == 0) {
            count = 0;  // no reads: writes go, and the count starts again
        }
    }
    CHECK(switches >= 5);
    CHECK(reads >= switches * starved);
    fs::remove_all(dir);
}

TEST_CASE("--explain adds message lines and changes nothing else", "[cli][blktrace][explain]") {
    const std::string dir = scratch("explain-same");
    const Run off = sh(starved_run(dir, "--output-format json 2>&1"));
    REQUIRE(off.status == 0);
    const std::string trace_off = slurp(dir + "/trace.txt");
    const Run on = sh(starved_run(dir, "--explain --output-format json 2>&1"));
    REQUIRE(on.status == 0);
    const std::string trace_on = slurp(dir + "/trace.txt");
    CHECK(on.out == off.out);  // the same report
    CHECK(message_texts(trace_off).empty());
    const std::vector<std::string> msgs = message_texts(trace_on);
    CHECK(msgs.size() > 100);
    // Plug flushes and tag waits are explained too (8 readers and a writer on 2 driver tags).
    CHECK(std::any_of(msgs.begin(), msgs.end(), [](const std::string& m) { return m.rfind("plug flush: ", 0) == 0; }));
    CHECK(std::any_of(msgs.begin(), msgs.end(),
                      [](const std::string& m) { return m.rfind("tag wait: no driver tag on hctx 0 (2/2 in use)", 0) == 0; }));
    // The same events, only numbered on past the messages (the kernel counts a message in
    // its CPU's sequence).
    std::vector<Line> events_on = event_lines(trace_on);
    events_on.erase(std::remove_if(events_on.begin(), events_on.end(),
                                   [](const Line& l) { return std::get<2>(l).rfind("0  m   N ", 0) == 0; }),
                    events_on.end());
    CHECK(events_on.size() + msgs.size() == event_lines(trace_on).size());
    CHECK(events_on == event_lines(trace_off));

    const Run alone = sh(blksim_bin() + " run " + src("scenarios/teaching/mq-deadline-writes-starved.json") +
                         " --explain 2>&1 >/dev/null");
    CHECK(alone.status == 2);
    CHECK(alone.out == "blksim: --explain: the decisions go into a trace: give --trace FILE or --blktrace DIR too\n");
    fs::remove_all(dir);
}

TEST_CASE("blkparse prints --explain's decisions from the blktrace files as its message lines", "[cli][blktrace][explain]") {
    if (sh("command -v blkparse >/dev/null").status != 0) {
        WARN("blkparse (Debian package blktrace) is not installed: skipped");
        return;
    }
    const std::string dir = scratch("explain-blkparse");
    const Run r = sh(starved_run(dir, "--explain --blktrace " + dir + "/bt 2>&1 >/dev/null"));
    INFO(r.out);
    REQUIRE(r.status == 0);
    const Run p = sh("blkparse -i nullb0 -D " + dir + "/bt -o " + dir + "/parsed.txt 2>&1 >/dev/null");
    INFO(p.out);
    REQUIRE(p.status == 0);
    CHECK(p.out.empty());
    const std::string parsed = slurp(dir + "/parsed.txt");
    CHECK(parsed.find("Skips: 0 forward") != std::string::npos);
    // Line for line what blksim's own text has, messages included, in blkparse's layout.
    const std::vector<Line> from_blkparse = event_lines(parsed);
    const std::vector<Line> from_blksim = event_lines(slurp(dir + "/trace.txt"));
    CHECK(from_blkparse == from_blksim);
    const std::vector<std::string> msgs = message_texts(parsed);
    CHECK(msgs.size() > 100);
    CHECK(std::count_if(msgs.begin(), msgs.end(), [](const std::string& m) {
              return m == "mq-deadline: prio 1 writes starved 2/2, switching to writes";
          }) >= 5);
    fs::remove_all(dir);
}

TEST_CASE("--explain: kyber's resizes, bfq's slots and the HDD's RPO choices say what drove them", "[cli][blktrace][explain]") {
    const auto messages = [](const std::string& scenario, const std::string& sets) {
        const Run r = sh(blksim_bin() + " run " + src(scenario) + " " + sets + " -q --explain --trace - 2>/dev/null");
        REQUIRE(r.status == 0);
        return message_texts(r.out);
    };
    std::smatch x;
    // kyber: the new depth is the old one scaled by the p99's bucket, (bucket + 1) / 4 of it.
    int resizes = 0;
    for (const std::string& m : messages("scenarios/examples/nvme-kyber-mixed.json",
                                         "--set jobs.0.ramp_time=0 --set jobs.1.ramp_time=0 --set jobs.0.runtime=500ms "
                                         "--set jobs.1.runtime=500ms")) {
        static const std::regex re(R"(^kyber: (READ|WRITE) depth (\d+) -> (\d+): p99 latency < (\d+) us \(target (\d+) us\).*$)");
        if (!std::regex_match(m, x, re))
            continue;
        ++resizes;
        const uint64_t from = std::stoull(x[2]), to = std::stoull(x[3]), below = std::stoull(x[4]), target = std::stoull(x[5]);
        CHECK(target == (x[1] == "READ" ? 2000u : 10000u));
        CHECK(to == std::max<uint64_t>(1, from * (below * 4 / target) / 4));
    }
    CHECK(resizes >= 2);
    // bfq: slots start and end with a reason.
    const std::vector<std::string> bfq = messages("scenarios/examples/hdd-bfq-two-readers.json", "--set global.runtime=300ms");
    static const std::regex slot(R"(^bfq\d+S set_in_service_queue, budget \d+, weight \d+.*$)");
    static const std::regex expire(R"(^bfq\d+S expire: (too_idle|budget_timeout|budget_exhausted|no_more_requests|preempted).*$)");
    CHECK(std::count_if(bfq.begin(), bfq.end(), [](const std::string& m) { return std::regex_match(m, slot); }) >= 2);
    CHECK(std::count_if(bfq.begin(), bfq.end(), [](const std::string& m) { return std::regex_match(m, expire); }) >= 1);
    // The HDD chooses among what its NCQ queue holds: at most 32 commands.
    int picks = 0;
    for (const std::string& m : messages("scenarios/examples/sas-hba-2hdd-mq-deadline.json", "--set global.runtime=100ms")) {
        static const std::regex re(R"(^hdd: rpo picks command lba \d+ among (\d+) queued: positioning \d+ us$)");
        if (!std::regex_match(m, x, re))
            continue;
        ++picks;
        CHECK(std::stoi(x[1]) >= 2);
        CHECK(std::stoi(x[1]) <= 32);
    }
    CHECK(picks >= 10);
}

TEST_CASE("--explain: every tag wait has its wake-up, and each wake-up counts the sleepers left", "[cli][blktrace][explain]") {
    // 128 I/Os on 8 driver tags: each job sleeps for a tag, a completion wakes it.
    const std::string dir = scratch("explain-tags");
    const Run r = sh(blksim_bin() + " run " + src("scenarios/teaching/tag-exhaustion.json") +
                     " --set jobs.0.runtime=5ms -q --explain --trace " + dir + "/trace.txt >/dev/null 2>&1");
    REQUIRE(r.status == 0);
    static const std::regex wait(R"(tag wait: no driver tag on hctx 0 \(8/8 in use, .*\), the task sleeps)");
    static const std::regex wake(R"(tag wake-up: (\d+) of (\d+) sleepers \((\d+)/8 tags in use, wake batch (\d+)\))");
    int asleep = 0, waits = 0, wakeups = 0;
    for (const std::string& m : message_texts(slurp(dir + "/trace.txt"))) {
        std::smatch x;
        if (std::regex_match(m, wait)) {
            ++asleep;
            ++waits;
        } else if (std::regex_match(m, x, wake)) {
            INFO(m);
            ++wakeups;
            // The wake-up names as many sleepers as went to sleep and were not woken yet,
            // wakes at most a wake batch of them, and a tag was freed for each.
            CHECK(std::stoi(x[2]) == asleep);
            CHECK(std::stoi(x[1]) >= 1);
            CHECK(std::stoi(x[1]) <= std::stoi(x[4]));
            CHECK(std::stoi(x[3]) < 8);
            asleep -= std::stoi(x[1]);
        }
    }
    CHECK(waits > 20);
    CHECK(wakeups > 20);
    CHECK(asleep == 0);  // nobody is left asleep: no wake-up was lost
    fs::remove_all(dir);
}
