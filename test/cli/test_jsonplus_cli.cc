// `--output-format json+` end to end: fio's own fio_jsonplus_clat2csv (Debian's fio package;
// scripts/setup.sh installs it) reads what `blksim run` and `blksim fio` print, and its CSV
// agrees with the report: one row per bin, the cumulative count ends at the I/O count, and
// the row where the cumulative fraction first reaches each of fio's percentiles is the
// value the report printed for that percentile.
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

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using Result = clitest::CliResult;

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
        const auto b = cell.find_first_not_of(' ');
        out.push_back(b == std::string::npos ? std::string{} : cell.substr(b));
    }
    return out;
}

// Runs clat2csv (and its --validate) on `json_text`; checks every job's read/write clat columns against it.
void check_clat2csv(const std::string& json_text, const std::string& tag) {
    INFO("fio_jsonplus_clat2csv (Debian package fio) must be installed: run scripts/setup.sh");
    REQUIRE(clitest::shell("command -v fio_jsonplus_clat2csv >/dev/null").status == 0);
    const fs::path dir = fs::temp_directory_path() / ("blksim-jsonplus-" + std::to_string(getpid()) + "-" + tag);
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string src = (dir / "out.json").string();
    std::ofstream(src) << json_text;
    const ordered_json j = ordered_json::parse(json_text);
    REQUIRE(j["jobs"].size() > 0);

    const Result conv = clitest::shell("cd " + dir.string() + " && fio_jsonplus_clat2csv out.json out.csv 2>&1");
    INFO(conv.out);
    REQUIRE(conv.status == 0);
    // The script's own check: every CSV count equals the json+ bin it came from.
    const Result val =
        clitest::shell("cd " + dir.string() + " && fio_jsonplus_clat2csv --validate out.json out.csv 2>&1");
    INFO(val.out);
    CHECK(val.status == 0);
    CHECK(val.out.find("out_job0.csv validated") != std::string::npos);

    for (std::size_t jobnum = 0; jobnum < j["jobs"].size(); ++jobnum) {
        INFO("job " << jobnum);
        const ordered_json& job = j["jobs"][jobnum];
        const std::string csv = read_file((dir / ("out_job" + std::to_string(jobnum) + ".csv")).string());
        std::stringstream lines(csv);
        std::string header;
        REQUIRE(std::getline(lines, header));
        const std::vector<std::string> cols = split(header);
        REQUIRE(cols.size() > 1);
        CHECK(cols[0] == "nsec");
        std::vector<std::vector<std::string>> rows;
        for (std::string l; std::getline(lines, l);)
            if (!l.empty())
                rows.push_back(split(l));

        std::size_t bins_total = 0;
        for (const std::string ddir : {"read", "write"}) {
            INFO(ddir);
            const ordered_json& clat = job[ddir]["clat_ns"];
            const uint64_t n = clat["N"].get<uint64_t>();
            CHECK(n == job[ddir]["total_ios"].get<uint64_t>());
            if (n == 0) {
                CHECK_FALSE(clat.contains("bins"));
                continue;
            }
            REQUIRE(clat.contains("bins"));
            bins_total += clat["bins"].size();
            std::size_t c_count = 0, c_cum = 0, c_pct = 0;
            for (std::size_t i = 0; i < cols.size(); ++i) {
                if (cols[i] == ddir + "_clat_ns_count") c_count = i;
                if (cols[i] == ddir + "_clat_ns_cumulative") c_cum = i;
                if (cols[i] == ddir + "_clat_ns_percentile") c_pct = i;
            }
            REQUIRE(c_count > 0);
            REQUIRE(c_cum > 0);
            REQUIRE(c_pct > 0);
            // The rows that carry this direction's clat, in ascending nsec.
            std::vector<uint64_t> nsec, cum;
            uint64_t sum = 0;
            double last_pct = 0.0;
            for (const auto& row : rows) {
                if (row.size() <= c_pct || row[c_count].empty())
                    continue;
                nsec.push_back(std::stoull(row[0]));
                sum += std::stoull(row[c_count]);
                cum.push_back(std::stoull(row[c_cum]));
                CHECK(cum.back() == sum);
                last_pct = std::stod(row[c_pct]);
            }
            CHECK(nsec.size() == clat["bins"].size());
            CHECK(sum == n);
            REQUIRE_FALSE(cum.empty());
            CHECK(cum.back() == n);
            CHECK(last_pct == Approx(1.0));
            // fio's percentile: the first bin whose cumulative count reaches p% of N.
            const ordered_json& pl = clat["percentile"];
            for (auto it = pl.begin(); it != pl.end(); ++it) {
                const long double p = std::stold(it.key());
                std::size_t k = 0;
                while (k + 1 < cum.size() && static_cast<long double>(cum[k]) < p / 100.0L * static_cast<long double>(n))
                    ++k;
                INFO("percentile " << it.key());
                CHECK(nsec[k] == it.value().get<uint64_t>());
            }
        }
        // A row per distinct bin value; here only clat has bins, so with one direction
        // the rows are exactly its bins.
        CHECK(rows.size() <= bins_total);
        if (job["write"]["clat_ns"]["N"] == 0 || job["read"]["clat_ns"]["N"] == 0)
            CHECK(rows.size() == bins_total);
    }
    fs::remove_all(dir);
}

}  // namespace

TEST_CASE("json+: fio's clat2csv reads `blksim run --output-format json+`", "[cli][jsonplus]") {
    const Result r = clitest::run_blksim("run -q " + clitest::source_path("scenarios/seeds/e3-nvme-jobs1-4k-none.json") +
                                             " --set jobs.0.runtime=20ms --output-format json+",
                                         false);
    REQUIRE(r.status == 0);
    REQUIRE(r.out.find("\"bins\" : {") != std::string::npos);
    check_clat2csv(r.out, "run");

    // Without json+ there are no bins, the rest is the same report.
    const Result plain = clitest::run_blksim("run -q " + clitest::source_path("scenarios/seeds/e3-nvme-jobs1-4k-none.json") +
                                                 " --set jobs.0.runtime=20ms --output-format json",
                                             false);
    REQUIRE(plain.status == 0);
    CHECK(plain.out.find("\"bins\"") == std::string::npos);
}

TEST_CASE("json+: `blksim fio -- --output-format=json+`, two jobs and mixed reads/writes, per-priority bins",
          "[cli][jsonplus][fio]") {
    const Result r = clitest::run_blksim(
        "fio -q --device nvme -- --output-format=json+ --ioengine=libaio --iodepth=8 --runtime=10ms --time_based "
        "--name=a --rw=randrw --cmdprio_percentage=20 --cmdprio_class=1 --name=b --rw=randread",
        false);
    REQUIRE(r.status == 0);
    const ordered_json j = ordered_json::parse(r.out);
    REQUIRE(j["jobs"].size() == 2);
    const ordered_json& prios = j["jobs"][0]["read"]["prios"];
    REQUIRE(prios.size() == 2);
    for (const ordered_json& p : prios)
        CHECK(p["clat_ns"].contains("bins"));
    check_clat2csv(r.out, "fio");

    // The scenario's "output": {"format": "json+"} does the same.
    const Result s = clitest::run_blksim("run -q " + clitest::source_path("scenarios/seeds/e3-nvme-jobs1-4k-none.json") +
                                             " --set jobs.0.runtime=5ms --set 'output={\"format\": \"json+\"}'",
                                         false);
    REQUIRE(s.status == 0);
    CHECK(s.out.find("\"bins\" : {") != std::string::npos);
}
