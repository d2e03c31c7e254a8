// fio's terse output (version 3) end to end: `--output-format terse` on `blksim run` and
// `blksim fio` (and fio's own --output-format=... / --minimal) prints one ';'-separated line
// per job with fio's 121 fields + 9 per disk, whose IOPS, bandwidth and latency fields are
// the JSON report's of the same run in terse's units; comma lists print every format in fio's
// order; a bad format exits 2 naming the allowed ones.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/report/fio_output.h"

namespace {

using json = nlohmann::ordered_json;
using clitest::run_blksim;

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cell;
    std::stringstream ss(s);
    while (std::getline(ss, cell, sep))
        out.push_back(cell);
    return out;
}

std::vector<std::string> lines(const std::string& s) {
    return split(s, '\n');
}

// Mixed reads and writes at depth 4 on null_blk, a few ms of simulated time.
const std::string kJob = "--name=t --ioengine=libaio --iodepth=4 --rw=randrw --runtime=4ms --time_based";

// Terse field positions (fio's HOWTO "Terse output", version 3), 0-based.
constexpr std::size_t READ = 5, WRITE = 46;      // each direction's first field (io KiB)
constexpr std::size_t CPU = 87, DEPTHS = 92, LAT_U = 99, LAT_M = 109, DISK = 121;

uint64_t u(const std::string& s) { return std::stoull(s); }
double d(const std::string& s) { return std::stod(s); }

// One direction's terse fields against the JSON report's object for it.
void check_dir(const std::vector<std::string>& f, std::size_t at, const json& j) {
    CHECK(u(f[at]) == j["io_kbytes"].get<uint64_t>());
    CHECK(u(f[at + 1]) == j["bw"].get<uint64_t>());
    CHECK(u(f[at + 2]) == static_cast<uint64_t>(std::floor(j["iops"].get<double>())));
    CHECK(u(f[at + 3]) == j["runtime"].get<uint64_t>());
    auto lat = [&](std::size_t p, const json& l) {
        CHECK(u(f[p]) == l["min"].get<uint64_t>() / 1000);
        CHECK(u(f[p + 1]) == l["max"].get<uint64_t>() / 1000);
        CHECK(f[p + 2] == fmt::format("{:f}", l["mean"].get<double>() / 1000.0));
        CHECK(d(f[p + 3]) == Approx(l["stddev"].get<double>() / 1000.0).margin(1e-5));
    };
    lat(at + 4, j["slat_ns"]);
    lat(at + 8, j["clat_ns"]);
    // 17 percentiles "p%=usec" then "0%=0" up to 20.
    const json& pct = j["clat_ns"]["percentile"];
    std::size_t i = 0;
    for (auto it = pct.begin(); it != pct.end(); ++it, ++i)
        CHECK(f[at + 12 + i] == it.key() + "%=" + std::to_string(it.value().get<uint64_t>() / 1000));
    CHECK(i == 17);
    for (; i < 20; ++i)
        CHECK(f[at + 12 + i] == "0%=0");
    lat(at + 32, j["lat_ns"]);
    CHECK(u(f[at + 36]) == j["bw_min"].get<uint64_t>());
    CHECK(u(f[at + 37]) == j["bw_max"].get<uint64_t>());
    CHECK(f[at + 38].back() == '%');
    CHECK(f[at + 39] == fmt::format("{:f}", j["bw_mean"].get<double>()));
    CHECK(f[at + 40] == fmt::format("{:f}", j["bw_dev"].get<double>()));
}

}  // namespace

TEST_CASE("terse: fio's field count, and the fields are the JSON report's", "[terse][cli]") {
    const auto t = run_blksim("fio -q --device nullb --output-format terse -- " + kJob, false);
    const auto j = run_blksim("fio -q --device nullb --output-format json -- " + kJob, false);
    REQUIRE(t.status == 0);
    REQUIRE(j.status == 0);
    const std::vector<std::string> ls = lines(t.out);
    REQUIRE(ls.size() == 1);  // one job, one line, nothing else
    const std::vector<std::string> f = split(ls[0], ';');
    REQUIRE(f.size() == 121 + 9);  // one disk
    CHECK(f[0] == "3");
    CHECK(f[2] == "t");
    CHECK(f[3] == "0");  // groupid
    CHECK(f[4] == "0");  // error

    const json r = json::parse(j.out);
    const json& job = r["jobs"][0];
    REQUIRE(job["read"]["total_ios"].get<uint64_t>() > 0);
    REQUIRE(job["write"]["total_ios"].get<uint64_t>() > 0);
    {
        INFO("read");
        check_dir(f, READ, job["read"]);
    }
    {
        INFO("write");
        check_dir(f, WRITE, job["write"]);
    }
    CHECK(f[CPU] == fmt::format("{:f}%", job["usr_cpu"].get<double>()));
    CHECK(f[CPU + 1] == fmt::format("{:f}%", job["sys_cpu"].get<double>()));
    CHECK(u(f[CPU + 2]) == job["ctx"].get<uint64_t>());
    CHECK(f[CPU + 3] == "0");
    CHECK(f[CPU + 4] == "0");
    CHECK(f[DEPTHS + 2] == fmt::format("{:3.1f}%", job["iodepth_level"]["4"].get<double>()));
    // The usec buckets, with the nsec ones folded into the first; then the msec ones.
    double lat_sum = 0;
    for (std::size_t i = LAT_U; i < DISK; ++i) {
        REQUIRE(f[i].back() == '%');
        lat_sum += d(f[i]);
    }
    CHECK(lat_sum == Approx(100.0).margin(0.1));
    const json& du = r["disk_util"][0];
    CHECK(f[DISK] == du["name"].get<std::string>());
    CHECK(u(f[DISK + 1]) == du["read_ios"].get<uint64_t>());
    CHECK(u(f[DISK + 2]) == du["write_ios"].get<uint64_t>());
    CHECK(u(f[DISK + 7]) == du["in_queue"].get<uint64_t>());
    CHECK(f[DISK + 8] == fmt::format("{:3.2f}%", du["util"].get<double>()));
}

TEST_CASE("terse: a direction without I/O is fio's zeros; sync engines have no slat", "[terse][cli]") {
    const auto t = run_blksim("fio -q --device nullb -- --minimal --name=r --rw=read --runtime=2ms --time_based", false);
    REQUIRE(t.status == 0);
    const std::vector<std::string> f = split(lines(t.out).at(0), ';');
    REQUIRE(f.size() == 130);
    CHECK(u(f[READ + 2]) > 0);
    CHECK(f[READ + 4] + ";" + f[READ + 5] + ";" + f[READ + 6] + ";" + f[READ + 7] == "0;0;0.000000;0.000000");  // psync: no slat
    CHECK(f[WRITE] == "0");
    CHECK(f[WRITE + 12] == "1.000000%=0");  // fio computes the percentiles of nothing: 0
    CHECK(f[WRITE + 36] + ";" + f[WRITE + 37] + ";" + f[WRITE + 38] == "0;0;0.000000%");
}

TEST_CASE("terse: one line per job, or per group with group_reporting", "[terse][cli]") {
    const std::string job = "--name=g --rw=randread --runtime=2ms --time_based --numjobs=3";
    const auto per_job = run_blksim("fio -q --device nullb --output-format terse -- " + job, false);
    CHECK(lines(per_job.out).size() == 3);
    const auto grouped = run_blksim("fio -q --device nullb --output-format terse -- --group_reporting " + job, false);
    REQUIRE(lines(grouped.out).size() == 1);
    CHECK(split(lines(grouped.out)[0], ';').size() == 130);
    // A scenario's output.format does the same, and the same run gives the same bytes.
    const std::string scen = clitest::source_path("scenarios/examples/nullblk-psync-qd1.json");
    const std::string args = "run -q " + scen + " --set jobs.0.runtime=2ms --set 'output={\"format\": \"terse\"}'";
    const auto a = run_blksim(args, false);
    const auto b = run_blksim(args, false);
    CHECK(a.status == 0);
    CHECK(a.out.rfind("3;blksim-0.1;", 0) == 0);
    CHECK(a.out == b.out);
}

TEST_CASE("terse: comma lists print every format in fio's order", "[terse][cli]") {
    const std::string job = "--name=x --rw=randread --runtime=2ms --time_based";
    // normal,terse: the start-up lines, the terse line, then the normal report.
    const auto nt = run_blksim("fio -q --device nullb -- --output-format=terse,normal " + job, false);
    REQUIRE(nt.status == 0);
    const std::vector<std::string> ls = lines(nt.out);
    REQUIRE(ls.size() > 6);
    CHECK(ls[0].rfind("x: (g=0): rw=randread", 0) == 0);
    CHECK(ls[2] == "Starting 1 process");
    CHECK(ls[3].rfind("3;blksim-0.1;x;", 0) == 0);
    CHECK(ls[4].empty());
    CHECK(ls[5].rfind("x: (groupid=0, jobs=1)", 0) == 0);
    CHECK(nt.out.find("blksim (what fio cannot show):") != std::string::npos);
    // json,terse: terse first, then the JSON document.
    const auto jt = run_blksim("fio -q --device nullb --output-format json,terse -- " + job, false);
    REQUIRE(jt.status == 0);
    const std::size_t nl = jt.out.find('\n');
    CHECK(jt.out.rfind("3;", 0) == 0);
    CHECK(json::parse(jt.out.substr(nl + 1))["jobs"][0]["jobname"] == "x");
    // normal,json: the JSON between the start-up lines and the statuses.
    const auto nj = run_blksim("fio -q --device nullb --output-format normal,json -- " + job, false);
    const std::size_t brace = nj.out.find("\n{\n");
    const std::size_t status = nj.out.find("x: (groupid=0");
    CHECK(nj.out.find("Starting 1 process") < brace);
    CHECK(brace < status);
}

TEST_CASE("terse: a bad --output-format exits 2 and lists the formats", "[terse][cli]") {
    for (const std::string& args :
         {std::string("run -q " + clitest::source_path("scenarios/examples/nullblk-psync-qd1.json") +
                      " --output-format xml"),
          std::string("fio -q --device nullb --output-format normal,,terse -- --name=x --runtime=1ms"),
          std::string("fio -q --device nullb -- --output-format=bogus --name=x --runtime=1ms")}) {
        INFO(args);
        const auto r = run_blksim(args);
        CHECK(r.status == 2);
        CHECK(r.out.find("normal, json, json+, terse") != std::string::npos);
    }
}

TEST_CASE("terse: parse_output_formats reads fio's lists", "[terse]") {
    using blksim::report::parse_output_formats;
    // The names of a set, in the order they print.
    const auto names = [](const std::optional<blksim::report::OutputFormats>& set) {
        std::vector<std::string> v;
        for (const blksim::report::OutputFormat* f : set.value().slot)
            if (f)
                v.emplace_back(f->name);
        return v;
    };
    CHECK(names(parse_output_formats("terse")) == std::vector<std::string>{"terse"});
    CHECK(names(parse_output_formats("normal,terse")) == std::vector<std::string>{"terse", "normal"});
    CHECK(names(parse_output_formats("json+,normal")) == std::vector<std::string>{"json+", "normal"});
    // fio's json+ is json with "bins": naming both, in either order, prints json+ once.
    CHECK(names(parse_output_formats("json,json+")) == std::vector<std::string>{"json+"});
    CHECK(names(parse_output_formats("json+,json")) == std::vector<std::string>{"json+"});
    CHECK(names(parse_output_formats("json,json")) == std::vector<std::string>{"json"});
    CHECK_FALSE(parse_output_formats(""));
    CHECK_FALSE(parse_output_formats("json,"));
    CHECK_FALSE(parse_output_formats("JSON"));
}

TEST_CASE("terse: bandwidth samples and the group share, from the same run's JSON", "[terse][cli]") {
    // 1 s simulated: two bwavgtime (500 ms) samples per direction.
    const std::string scen = clitest::source_path("scenarios/examples/nullblk-psync-qd1.json");
    const auto r = run_blksim("run -q " + scen + " --set jobs.0.runtime=1s --output-format json,terse", false);
    REQUIRE(r.status == 0);
    const std::size_t nl = r.out.find('\n');
    const std::vector<std::string> f = split(r.out.substr(0, nl), ';');
    REQUIRE(f.size() == 130);
    const json rd = json::parse(r.out.substr(nl + 1))["jobs"][0]["read"];
    REQUIRE(rd["bw_samples"].get<uint64_t>() > 0);
    check_dir(f, READ, rd);
    // Terse's share: the mean over the group's aggregate in whole KiB/s (one job: its own bw).
    const double agg_kib = static_cast<double>(rd["bw_bytes"].get<uint64_t>() / 1024);
    CHECK(f[READ + 38] == fmt::format("{:f}%", std::min(rd["bw_mean"].get<double>() * 100.0 / agg_kib, 100.0)));
}
