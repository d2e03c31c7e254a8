// fio's log files end to end: write_lat_log / write_bw_log / write_iops_log on `blksim fio`
// and in a scenario's jobs write fio's files (NAME_lat.N.log, NAME_clat.N.log, NAME_slat.N.log,
// NAME_bw.N.log, NAME_iops.N.log) in the current directory: without log_avg_msec one line per
// I/O whose values average to the report's; with log_avg_msec=100 one line per direction and
// window; the same run writes the same bytes; bad values exit 2.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/report/fio_log.h"
#include "models/result/fio_log.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A fresh directory to run in: fio writes its logs in the current directory.
struct RunDir : clitest::TempDir {
    explicit RunDir(const std::string& name) : TempDir("fio-logs-" + name) {}
    clitest::CliResult blksim(const std::string& args) const {
        return clitest::shell("cd " + dir.string() + " && " + BLKSIM_BINARY + " " + args + " 2>/dev/null");
    }
    std::string read(const std::string& name) const {
        std::ifstream in(dir / name);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    bool exists(const std::string& name) const { return fs::exists(dir / name); }
};

struct Line {
    uint64_t time = 0, value = 0, ddir = 0, bs = 0;
    std::vector<std::string> rest;  // offset and/or prio
};

std::vector<Line> parse_log(const std::string& text) {
    std::vector<Line> out;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line)) {
        std::vector<std::string> f;
        std::stringstream ls(line);
        std::string cell;
        while (std::getline(ls, cell, ','))
            f.push_back(cell.substr(cell.find_first_not_of(' ')));
        REQUIRE(f.size() >= 5);
        Line l{std::stoull(f[0]), std::stoull(f[1]), std::stoull(f[2]), std::stoull(f[3]), {f.begin() + 4, f.end()}};
        out.push_back(l);
    }
    return out;
}

// Per direction: the number of lines and the mean of their values.
struct DirSummary {
    uint64_t n = 0;
    double sum = 0;
    double mean() const { return n ? sum / static_cast<double>(n) : 0; }
};
std::array<DirSummary, 2> by_ddir(const std::vector<Line>& ls) {
    std::array<DirSummary, 2> s{};
    for (const Line& l : ls) {
        REQUIRE(l.ddir < 2);
        ++s[l.ddir].n;
        s[l.ddir].sum += static_cast<double>(l.value);
    }
    return s;
}

const char* kDirs[] = {"read", "write"};

}  // namespace

TEST_CASE("fio logs: one line per I/O, values averaging to the report's", "[fio-logs][cli]") {
    const RunDir run("per-io");
    const auto r = run.blksim("fio -q --device nullb --output-format json -- --name=t --ioengine=libaio --iodepth=4 "
                              "--rw=randrw --runtime=3ms --time_based --write_lat_log=t --write_bw_log=t "
                              "--write_iops_log=t --log_offset=1");
    REQUIRE(r.status == 0);
    const json job = json::parse(r.out)["jobs"][0];
    for (const char* kind : {"lat", "clat", "slat", "bw", "iops"}) {
        const std::string name = std::string("t_") + kind + ".1.log";
        INFO(name);
        REQUIRE(run.exists(name));
        const std::vector<Line> ls = parse_log(run.read(name));
        const auto s = by_ddir(ls);
        for (unsigned d = 0; d < 2; ++d) {
            INFO(kDirs[d]);
            const json& dir = job[kDirs[d]];
            REQUIRE(dir["total_ios"].get<uint64_t>() > 0);
            CHECK(s[d].n == dir["total_ios"].get<uint64_t>());
            const std::string stat = std::string(kind) + "_ns";
            if (dir.contains(stat))  // latencies: the mean of the lines is the report's mean
                CHECK(s[d].mean() == Approx(dir[stat]["mean"].get<double>()).epsilon(1e-9));
        }
        uint64_t last = 0;
        for (const Line& l : ls) {
            CHECK(l.bs == 4096);
            REQUIRE(l.rest.size() == 2);  // log_offset=1: offset, then prio
            CHECK(std::stoull(l.rest[0]) % 4096 == 0);
            CHECK(l.rest[1] == "0");
            CHECK(l.time >= last);  // in time order
            last = l.time;
            if (std::string(kind) == "iops")
                CHECK(l.value == 1);
        }
        CHECK(last <= 3);
    }
}

TEST_CASE("fio logs: log_avg_msec=100 gives one line per direction and window", "[fio-logs][cli]") {
    const RunDir run("avg");
    const auto r = run.blksim("fio -q --device nullb --output-format json -- --name=a --rw=randrw --runtime=300ms "
                              "--time_based --write_lat_log=a --write_bw_log=a --write_iops_log=a --log_avg_msec=100");
    REQUIRE(r.status == 0);
    const json job = json::parse(r.out)["jobs"][0];
    // bw and iops: a line per window that ended, stamped with its end; KiB/s and I/Os per s.
    for (const char* kind : {"bw", "iops"}) {
        INFO(kind);
        const std::vector<Line> ls = parse_log(run.read(std::string("a_") + kind + ".1.log"));
        const auto s = by_ddir(ls);
        for (unsigned d = 0; d < 2; ++d) {
            INFO(kDirs[d]);
            CHECK(s[d].n == 3);  // 300 ms / 100 ms
            const double report = std::string(kind) == "bw" ? job[kDirs[d]]["bw"].get<double>()
                                                            : job[kDirs[d]]["iops"].get<double>();
            CHECK(s[d].mean() == Approx(report).epsilon(0.01));
        }
        for (const Line& l : ls) {
            CHECK(l.time % 100 == 0);
            CHECK(l.bs == 0);
            CHECK(l.rest == std::vector<std::string>{"0"});
        }
    }
    // Latencies: a line when an I/O finds 100 ms passed since the last, and the open window
    // at the end; each the window's mean, so their mean is the report's.
    for (const char* kind : {"lat", "clat"}) {
        INFO(kind);
        const auto s = by_ddir(parse_log(run.read(std::string("a_") + kind + ".1.log")));
        for (unsigned d = 0; d < 2; ++d) {
            INFO(kDirs[d]);
            CHECK((s[d].n == 3 || s[d].n == 4));
            CHECK(s[d].mean() == Approx(job[kDirs[d]][std::string(kind) + "_ns"]["mean"].get<double>()).epsilon(0.01));
        }
    }
    CHECK(run.read("a_slat.1.log").empty());  // psync: no slat, as in fio
}

TEST_CASE("fio logs: clones have their own files, runs are deterministic, scenarios take the options",
          "[fio-logs][cli]") {
    const RunDir run("clones");
    const std::string args = "fio -q --device nullb -- --name=c --rw=randread --ioengine=io_uring --iodepth=2 "
                             "--runtime=2ms --time_based --numjobs=2 --write_lat_log --log_prio=1 "
                             "--prioclass=2 --prio=3";
    REQUIRE(run.blksim(args).status == 0);
    const std::string first = run.read("c_clat.1.log") + run.read("c_clat.2.log");  // bare: the job's name
    CHECK_FALSE(run.read("c_clat.2.log").empty());
    for (const Line& l : parse_log(run.read("c_clat.1.log")))
        CHECK(l.rest == std::vector<std::string>{"0x4003"});  // class BE (2) << 13 | 3
    REQUIRE(run.blksim(args).status == 0);
    CHECK(run.read("c_clat.1.log") + run.read("c_clat.2.log") == first);

    const std::string scen = clitest::source_path("scenarios/examples/nullblk-psync-qd1.json");
    REQUIRE(run.blksim("run -q " + scen + " --set jobs.0.runtime=2ms --set jobs.0.write_iops_log=s").status == 0);
    CHECK_FALSE(run.read("s_iops.1.log").empty());
}

TEST_CASE("fio logs: bad values exit 2", "[fio-logs][cli]") {
    const RunDir run("bad");
    CHECK(run.blksim("fio -q --device nullb -- --name=b --runtime=1ms --write_bw_log=b --log_avg_msec=abc").status == 2);
    CHECK(run.blksim("fio -q --device nullb -- --name=b --runtime=1ms --log_offset=maybe").status == 2);
    const std::string scen = clitest::source_path("scenarios/examples/nullblk-psync-qd1.json");
    CHECK(run.blksim("run -q " + scen + " --set jobs.0.runtime=1ms --set jobs.0.log_avg_msec=-5").status == 2);
    // A log that cannot be written (its directory does not exist) is an error too.
    CHECK(run.blksim("fio -q --device nullb -- --name=b --runtime=1ms --write_lat_log=nodir/x").status == 2);
}

TEST_CASE("fio logs: fio's line format", "[fio-logs]") {
    using blksim::result::FioLog;
    using blksim::report::format_log_line;
    FioLog log;
    const blksim::result::LogSample s{12, 345, 8192, 4096, 1 << 13, 1};
    CHECK(format_log_line(log, s) == "12, 345, 1, 4096, 1\n");  // RT class: 1
    log.log_offset = true;
    CHECK(format_log_line(log, s) == "12, 345, 1, 4096, 8192, 1\n");
    log.log_prio = true;
    CHECK(format_log_line(log, s) == "12, 345, 1, 4096, 8192, 0x2000\n");
}
