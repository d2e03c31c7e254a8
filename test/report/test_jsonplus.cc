// fio's --output-format=json+: the JSON report plus, in every latency object that prints
// percentiles (clat_ns and the prios' clat_ns), a "bins" object mapping each non-empty
// histogram bucket's plat_idx_to_val() (ns, as a decimal string) to its count.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "test/report/report_fixture.h"

using namespace blksim;
using namespace blksim::report;
using namespace blksim::sim::literals;
using nlohmann::ordered_json;
using testing::keys_of;

namespace {

RunResult run_with(const std::vector<uint64_t>& clats, bool with_prios) {
    JobResult j;
    j.name = "jp";
    j.options = testing::libaio_randread(4);
    j.runtime = 1_s;
    DirResult& d = j.dir[DDIR_READ];
    for (const uint64_t ns : clats) {
        d.add_clat(ns);
        d.lat.add(static_cast<double>(ns + 100));
        d.io_bytes += 4096;
        ++d.total_ios;
    }
    if (with_prios) {
        PrioResult rt, be;
        rt.ioprio_class = 1;
        be.ioprio_class = 2;
        for (std::size_t i = 0; i < clats.size(); ++i) {
            PrioResult& p = i % 3 == 0 ? rt : be;
            p.clat.add(static_cast<double>(clats[i]));
            p.clat_hist.add(clats[i]);
        }
        d.prios = {be, rt};
    }
    RunResult r;
    r.jobs.push_back(j);
    r.sim_time = 1_s;
    return r;
}

uint64_t bins_sum(const ordered_json& bins) {
    uint64_t s = 0;
    for (auto it = bins.begin(); it != bins.end(); ++it)
        s += it.value().get<uint64_t>();
    return s;
}

// Remove every "bins" object: what is left must be the json output.
void strip_bins(ordered_json& j) {
    if (j.is_object()) {
        j.erase("bins");
        for (auto& [k, v] : j.items())
            strip_bins(v);
    } else if (j.is_array()) {
        for (auto& v : j)
            strip_bins(v);
    }
}

}  // namespace

TEST_CASE("json+ bins: fio's bucket values as keys, counts summing to the clat samples", "[report][jsonplus]") {
    // Values worked out by hand with fio's plat_val_to_idx() / plat_idx_to_val(): below 128 ns
    // a bucket per value; 128 -> bucket 128 whose midpoint is 129; 1000 -> 1004; 12345 ->
    // 12352; 1000000 -> 1003520 (a value fio's own clat2csv docstring shows).
    const std::vector<uint64_t> clats = {0, 12, 12, 127, 128, 129, 1000, 1003, 12345, 12345, 12345, 1000000};
    const RunResult r = run_with(clats, false);
    const ordered_json j = ordered_json::parse(format_json(r, false, true));
    const ordered_json& rd = j["jobs"][0]["read"];

    REQUIRE(rd["clat_ns"].contains("bins"));
    CHECK(keys_of(rd["clat_ns"]) == std::vector<std::string>{"min", "max", "mean", "stddev", "N", "percentile", "bins"});
    const ordered_json& bins = rd["clat_ns"]["bins"];
    CHECK(bins_sum(bins) == rd["clat_ns"]["N"].get<uint64_t>());
    CHECK(bins_sum(bins) == clats.size());
    CHECK(rd["total_ios"].get<uint64_t>() == clats.size());
    // Ascending bucket order, as fio walks its array; 128 and 129 share the bucket "129".
    CHECK(keys_of(bins) == std::vector<std::string>{"0", "12", "127", "129", "1004", "12352", "1003520"});
    CHECK(bins["12"] == 2);
    CHECK(bins["129"] == 2);
    CHECK(bins["1004"] == 2);
    CHECK(bins["12352"] == 3);
    // Every key is the value of the bucket its own value falls in (fio's keys are fixed points).
    for (auto it = bins.begin(); it != bins.end(); ++it) {
        const uint64_t v = std::stoull(it.key());
        CHECK(sim::LatencyHistogram::idx_to_val(sim::LatencyHistogram::val_to_idx(v)) == v);
    }

    // Only the objects with percentiles get bins: not slat/lat, not an empty direction.
    CHECK_FALSE(rd["slat_ns"].contains("bins"));
    CHECK_FALSE(rd["lat_ns"].contains("bins"));
    CHECK_FALSE(j["jobs"][0]["write"]["clat_ns"].contains("bins"));
    CHECK_FALSE(j["jobs"][0]["sync"]["lat_ns"].contains("bins"));
}

TEST_CASE("json+ is json with bins: per-priority clat too, nothing else differs", "[report][jsonplus]") {
    std::vector<uint64_t> clats;
    for (uint64_t i = 0; i < 5000; ++i)
        clats.push_back(20000 + (i * 7919) % 3000000);
    const RunResult r = run_with(clats, true);
    const std::string json = format_json(r, false);
    const std::string plus = format_json(r, false, true);
    CHECK(json.find("\"bins\"") == std::string::npos);
    CHECK(format_json(r, false, false) == json);

    ordered_json p = ordered_json::parse(plus);
    const ordered_json& rd = p["jobs"][0]["read"];
    REQUIRE(rd["prios"].size() == 2);
    uint64_t prio_total = 0;
    for (const ordered_json& pr : rd["prios"]) {
        REQUIRE(pr["clat_ns"].contains("bins"));
        CHECK(bins_sum(pr["clat_ns"]["bins"]) == pr["clat_ns"]["N"].get<uint64_t>());
        prio_total += bins_sum(pr["clat_ns"]["bins"]);
    }
    CHECK(prio_total == clats.size());
    CHECK(bins_sum(rd["clat_ns"]["bins"]) == clats.size());

    strip_bins(p);
    CHECK(p == ordered_json::parse(json));
    // fio's layout: "bins" right after the percentile object's closing brace.
    CHECK(plus.find("          },\n          \"bins\" : {\n") != std::string::npos);
}
