// fio's per-priority completion latency (clat_prio) in the text and JSON reports and its
// group_reporting merge. Expected text is copied from a real fio 3.33 run
// (fixtures/real-linux-6.18/fio/cmdprio_normal_output.txt, job pid 3671) and the JSON is
// checked against cmdprio10rt_mq-deadline.jsonplus.json.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/report/fio_format.h"
#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "test/report/report_fixture.h"

using namespace blksim;
using namespace blksim::report;
using namespace blksim::sim::literals;
using nlohmann::ordered_json;
using testing::bin_value_for_usec;
using testing::keys_of;
using testing::libaio_randread;

namespace {

// A RunningStat of n samples with exactly the given min, max, mean and sample stddev: one
// sample at min, one at max, and the other n-2 at two values p < q, weighted so that p and
// q stay inside [min, max] (possible whenever the variance is below the Bhatia-Davis bound).
sim::RunningStat stat_with(uint64_t n, double min, double max, double mean, double stddev) {
    REQUIRE(n > 2);
    const double r = static_cast<double>(n - 2);
    const double rest_mean = (static_cast<double>(n) * mean - min - max) / r;
    const double ss = stddev * stddev * static_cast<double>(n - 1) - (min - mean) * (min - mean) -
                      (max - mean) * (max - mean);
    const double rest_var = ss / r - (rest_mean - mean) * (rest_mean - mean);  // population
    REQUIRE(rest_var > 0.0);
    // p = m - sqrt(v (1-w)/w) >= min and q = m + sqrt(v w/(1-w)) <= max bound the weight w
    // of p; take the middle of the range.
    const double w_lo = rest_var / (rest_var + (rest_mean - min) * (rest_mean - min));
    const double w_hi = (max - rest_mean) * (max - rest_mean) / ((max - rest_mean) * (max - rest_mean) + rest_var);
    REQUIRE(w_lo < w_hi);
    const uint64_t n_p = static_cast<uint64_t>(std::llround((w_lo + w_hi) / 2 * r));
    const double w = static_cast<double>(n_p) / r;
    const double p = rest_mean - std::sqrt(rest_var * (1 - w) / w);
    const double q = rest_mean + std::sqrt(rest_var * w / (1 - w));
    REQUIRE(p >= min);
    REQUIRE(q <= max);

    sim::RunningStat s;
    s.add(min);
    s.add(max);
    for (uint64_t i = 0; i < n_p; ++i)
        s.add(p);
    for (uint64_t i = n_p; i < n - 2; ++i)
        s.add(q);
    return s;
}

// A histogram of n samples whose default percentiles print as `usec` (ascending): each
// value carries the running count one past its percentile's threshold (p% of n, in long
// double as fio computes it), so that percentile, and not the one before, lands on it.
sim::LatencyHistogram hist_with(uint64_t n, const std::vector<uint64_t>& usec) {
    const auto plist = sim::LatencyHistogram::default_percentiles();
    REQUIRE(usec.size() == plist.size());
    sim::LatencyHistogram h;
    uint64_t placed = 0;
    for (std::size_t i = 0; i < plist.size(); ++i) {
        const long double threshold = static_cast<long double>(plist[i]) / 100.0 * n;
        const uint64_t upto = i + 1 < plist.size() ? static_cast<uint64_t>(std::floor(threshold)) + 1 : n;
        const uint64_t v = bin_value_for_usec(usec[i]);
        REQUIRE(v != 0);
        for (; placed < upto; ++placed)
            h.add(v);
    }
    return h;
}

PrioResult prio(uint8_t cls, uint8_t level, sim::RunningStat clat, sim::LatencyHistogram hist) {
    PrioResult p;
    p.ioprio_class = cls;
    p.ioprio_level = level;
    p.clat = std::move(clat);
    p.clat_hist = std::move(hist);
    return p;
}

// One of the fixture's two jobs as far as the read line and bw/iops lines go.
JobResult fixture_job(uint32_t pid, uint64_t ios, std::array<double, 3> bw_kib,
                      std::array<double, 3> iops) {
    JobResult j;
    j.name = "randread_4k_j2_qd128_libaio_cmdprio10rt";
    j.pid = pid;
    j.options = libaio_randread(128);
    j.runtime = 2000500_us;  // reported as 2001 msec
    DirResult& d = j.dir[DDIR_READ];
    d.io_bytes = ios * 4096;
    d.total_ios = ios;
    for (double v : bw_kib)
        d.bw_samples.add(v * 1024);
    for (double v : iops)
        d.iops_samples.add(v);
    return j;
}

// The fixture's job pid 3671: 172210 reads, of which (guessing counts that give the
// printed shares) 154972 at the default priority 0/0 and 17238 at RT level 0, with stats
// and histograms that print the fixture's digits.
JobResult fixture_job_3671() {
    JobResult j = fixture_job(3671, 172210, {325732, 386392, 345624}, {81433, 96598, 86406});
    DirResult& d = j.dir[DDIR_READ];
    d.clat = stat_with(172210, 571, 15486000, 1478922.44, 821242.65);
    d.lat = stat_with(172210, 20000, 15489000, 1486110, 820030);
    d.clat_hist = hist_with(172210, {314, 498, 594, 816, 996, 1172, 1352, 1549, 1762, 2024, 2474,
                                     2868, 4228, 4817, 7504, 8225, 11338});
    d.prios.push_back(prio(0, 0, stat_with(154972, 32000, 15486000, 1563380, 812590),
                           hist_with(154972, {433, 570, 693, 914, 1090, 1270, 1434, 1614, 1827,
                                              2089, 2540, 2933, 4293, 4948, 7570, 8225, 11731})));
    d.prios.push_back(prio(1, 0, stat_with(17238, 571, 8190000, 719464.54, 400732.91),
                           hist_with(17238, {149, 269, 347, 433, 498, 562, 635, 734, 848, 963,
                                             1123, 1369, 2114, 2442, 4424, 4490, 4555})));
    return j;
}

// A completion as the workload model records it for a job with a priority option.
void complete(JobResult& j, uint8_t cls, uint8_t level, uint64_t clat_ns) {
    DirResult& d = j.dir[DDIR_READ];
    d.io_bytes += 4096;
    ++d.total_ios;
    d.add_clat(clat_ns);
    d.lat.add(static_cast<double>(clat_ns + 1000));
    auto it = std::find_if(d.prios.begin(), d.prios.end(), [&](const PrioResult& p) {
        return p.ioprio_class == cls && p.ioprio_level == level;
    });
    if (it == d.prios.end()) {
        d.prios.push_back(prio(cls, level, {}, {}));
        it = d.prios.end() - 1;
    }
    it->clat.add(static_cast<double>(clat_ns));
    it->clat_hist.add(clat_ns);
}

// A job without any priority option: no per-priority entries at all.
void complete_plain(JobResult& j, uint64_t clat_ns) {
    complete(j, 0, 0, clat_ns);
    j.dir[DDIR_READ].prios.clear();
}

JobResult small_job(const std::string& name, uint32_t pid) {
    JobResult j;
    j.name = name;
    j.pid = pid;
    j.options = libaio_randread(4);
    j.runtime = 1_s;
    return j;
}

// The lines of `text` that do not mention a priority.
std::string without_prio_lines(const std::string& text) {
    std::string out;
    std::size_t pos = 0;
    bool in_prio_block = false;
    while (pos < text.size()) {
        const std::size_t end = text.find('\n', pos);
        const std::string line = text.substr(pos, end - pos + 1);
        pos = end + 1;
        if (line.find(" prio ") != std::string::npos) {
            in_prio_block = line.find("percentiles") != std::string::npos;
            continue;
        }
        if (in_prio_block && line.starts_with("     |"))
            continue;  // a percentile row of a per-priority block
        in_prio_block = false;
        out += line;
    }
    return out;
}

}  // namespace

TEST_CASE("normal report prints the real fio run's per-priority lines", "[report]") {
    RunResult r;
    r.jobs.push_back(fixture_job_3671());
    r.jobs.push_back(fixture_job(3672, 174932, {332606, 339696, 334848}, {83151, 84924, 83712}));
    const std::string out = format_normal(r, false);

    // The fixture's job block from the read line to the iops line (blksim's model left no
    // slat in this rebuilt job, so that line is left out): the "clat prio" stat lines after
    // " lat", the per-priority percentile blocks after "clat percentiles".
    const std::string expected =
        "randread_4k_j2_qd128_libaio_cmdprio10rt: (groupid=0, jobs=1): err= 0: pid=3671: Thu Jan  1 00:00:00 1970\n"
        "  read: IOPS=86.1k, BW=336MiB/s (353MB/s)(673MiB/2001msec)\n"
        "    clat (nsec): min=571, max=15486k, avg=1478922.44, stdev=821242.65\n"
        "     lat (usec): min=20, max=15489, avg=1486.11, stdev=820.03\n"
        "    clat prio 0/0 (usec): min=32, max=15486, avg=1563.38, stdev=812.59\n"
        "    clat prio 1/0 (nsec): min=571, max=8190.0k, avg=719464.54, stdev=400732.91\n"
        "    clat percentiles (usec):\n"
        "     |  1.00th=[  314],  5.00th=[  498], 10.00th=[  594], 20.00th=[  816],\n"
        "     | 30.00th=[  996], 40.00th=[ 1172], 50.00th=[ 1352], 60.00th=[ 1549],\n"
        "     | 70.00th=[ 1762], 80.00th=[ 2024], 90.00th=[ 2474], 95.00th=[ 2868],\n"
        "     | 99.00th=[ 4228], 99.50th=[ 4817], 99.90th=[ 7504], 99.95th=[ 8225],\n"
        "     | 99.99th=[11338]\n"
        "    clat prio 0/0 (89.99% of IOs) percentiles (usec):\n"
        "     |  1.00th=[  433],  5.00th=[  570], 10.00th=[  693], 20.00th=[  914],\n"
        "     | 30.00th=[ 1090], 40.00th=[ 1270], 50.00th=[ 1434], 60.00th=[ 1614],\n"
        "     | 70.00th=[ 1827], 80.00th=[ 2089], 90.00th=[ 2540], 95.00th=[ 2933],\n"
        "     | 99.00th=[ 4293], 99.50th=[ 4948], 99.90th=[ 7570], 99.95th=[ 8225],\n"
        "     | 99.99th=[11731]\n"
        "    clat prio 1/0 (10.01% of IOs) percentiles (usec):\n"
        "     |  1.00th=[  149],  5.00th=[  269], 10.00th=[  347], 20.00th=[  433],\n"
        "     | 30.00th=[  498], 40.00th=[  562], 50.00th=[  635], 60.00th=[  734],\n"
        "     | 70.00th=[  848], 80.00th=[  963], 90.00th=[ 1123], 95.00th=[ 1369],\n"
        "     | 99.00th=[ 2114], 99.50th=[ 2442], 99.90th=[ 4424], 99.95th=[ 4490],\n"
        "     | 99.99th=[ 4555]\n"
        "   bw (  KiB/s): min=325732, max=386392, per=50.81%, avg=352582.67, stdev=30922.91, samples=3\n"
        "   iops        : min=81433, max=96598, avg=88145.67, stdev=7730.73, samples=3\n";
    INFO(out);
    CHECK(out.find(expected) != std::string::npos);

    // The second job set the same options but its rebuilt result has no prios: nothing extra.
    const std::size_t job2 = out.find("pid=3672");
    REQUIRE(job2 != std::string::npos);
    CHECK(out.find(" prio ", job2) == std::string::npos);
}

TEST_CASE("per-priority lines appear only with two or more priorities", "[report]") {
    JobResult j = small_job("p", 1);
    for (int i = 0; i < 9; ++i)
        complete(j, 0, 0, 100000 + 1000 * i);
    complete(j, 1, 0, 20000);
    RunResult with;
    with.jobs.push_back(j);
    const std::string text_with = format_normal(with, false);
    INFO(text_with);
    CHECK(text_with.find("    clat prio 0/0 (usec): min=100, max=108, avg=104.00, stdev= 2.74\n") !=
          std::string::npos);
    CHECK(text_with.find("    clat prio 1/0 (nsec): min=20000, max=20000, avg=20000.00, stdev= 0.00\n") !=
          std::string::npos);
    CHECK(text_with.find("    clat prio 0/0 (90.00% of IOs) percentiles (usec):\n") != std::string::npos);
    CHECK(text_with.find("    clat prio 1/0 (10.00% of IOs) percentiles (nsec):\n") != std::string::npos);

    // The same job without a priority option: exactly the old report, i.e. the one above
    // minus its per-priority lines.
    RunResult without = with;
    without.jobs[0].dir[DDIR_READ].prios.clear();
    const std::string text_without = format_normal(without, false);
    CHECK(text_without.find("prio") == std::string::npos);
    CHECK(without_prio_lines(text_with) == text_without);
    CHECK(format_json(without, false).find("prios") == std::string::npos);

    // One priority with samples (prioclass=1 alone, or a second one never used): fio skips
    // the section, since that priority's stats are the direction's own.
    RunResult single = without;
    DirResult& d = single.jobs[0].dir[DDIR_READ];
    d.prios.push_back(prio(1, 0, d.clat, d.clat_hist));
    d.prios.push_back(prio(2, 4, {}, {}));
    CHECK(format_normal(single, false) == text_without);
    CHECK(format_json(single, false) == format_json(without, false));
}

TEST_CASE("class NONE prints level 0, as fio's default ioprio", "[report]") {
    // The model may tag default-priority I/O with the level the kernel derives for class
    // NONE (4 for nice 0); fio's ioprio value for it is 0, printed "0/0".
    JobResult j = small_job("none", 1);
    complete(j, 0, 4, 100000);
    complete(j, 1, 3, 50000);
    RunResult r;
    r.jobs.push_back(j);
    const std::string text = format_normal(r, false);
    CHECK(text.find("    clat prio 0/0 (nsec): min=100000, max=100000") != std::string::npos);
    CHECK(text.find("    clat prio 1/3 (nsec): min=50000, max=50000") != std::string::npos);
    const ordered_json json = ordered_json::parse(format_json(r, false));
    CHECK(json["jobs"][0]["read"]["prios"][0]["prioclass"] == 0);
    CHECK(json["jobs"][0]["read"]["prios"][0]["prio"] == 0);
    CHECK(json["jobs"][0]["read"]["prios"][1]["prioclass"] == 1);
    CHECK(json["jobs"][0]["read"]["prios"][1]["prio"] == 3);
}

TEST_CASE("group_reporting merges per-priority stats priority by priority", "[report]") {
    JobResult a = small_job("grp", 1);
    for (uint64_t ns : {100000, 110000, 120000})
        complete(a, 0, 0, ns);
    complete(a, 1, 0, 50000);
    JobResult b = small_job("grp", 2);
    complete(b, 1, 0, 70000);    // b saw RT first: the merged order stays a's
    complete(b, 0, 4, 200000);   // class NONE, same fio ioprio as a's 0/0
    complete(b, 2, 7, 300000);   // a priority only b used: appended
    JobResult c = small_job("grp", 3);
    complete_plain(c, 400000);   // no priority option: all of it counts as 0/0

    JobResult m = a;
    m.merge(b);
    m.merge(c);
    const std::vector<PrioResult>& prios = m.dir[DDIR_READ].prios;
    REQUIRE(prios.size() == 3);
    CHECK(fio::prio_name(prios[0]) == "prio 0/0");
    CHECK(prios[0].clat.count() == 5);
    CHECK(prios[0].clat.min() == 100000);
    CHECK(prios[0].clat.max() == 400000);
    CHECK(prios[0].clat.mean() == Approx(186000));
    CHECK(prios[0].clat_hist.total() == 5);
    CHECK(fio::prio_name(prios[1]) == "prio 1/0");
    CHECK(prios[1].clat.count() == 2);
    CHECK(prios[1].clat.mean() == Approx(60000));
    CHECK(prios[1].clat_hist.total() == 2);
    CHECK(fio::prio_name(prios[2]) == "prio 2/7");
    CHECK(prios[2].clat.count() == 1);
    CHECK(m.dir[DDIR_READ].clat.count() == 8);

    RunResult r;
    r.jobs = {a, b, c};
    const std::string text = format_normal(r, true);
    CHECK(text.find("(groupid=0, jobs=3)") != std::string::npos);
    CHECK(text.find("    clat prio 0/0 (usec): min=100, max=400, avg=186.00,") != std::string::npos);
    CHECK(text.find("    clat prio 0/0 (62.50% of IOs) percentiles (usec):\n") != std::string::npos);
    CHECK(text.find("    clat prio 1/0 (25.00% of IOs) percentiles (nsec):\n") != std::string::npos);
    CHECK(text.find("    clat prio 2/7 (12.50% of IOs) percentiles (usec):\n") != std::string::npos);
    CHECK(text.find("    clat prio 0/0 (62.50%") < text.find("    clat prio 1/0 (25.00%"));

    const ordered_json json = ordered_json::parse(format_json(r, true));
    const ordered_json& jp = json["jobs"][0]["read"]["prios"];
    REQUIRE(jp.size() == 3);
    CHECK(jp[0]["clat_ns"]["N"] == 5);
    CHECK(jp[1]["clat_ns"]["N"] == 2);
    CHECK(jp[2]["prioclass"] == 2);
    CHECK(jp[2]["prio"] == 7);

    // Members that all ran without a priority option stay without per-priority stats.
    JobResult plain1 = small_job("plain", 1), plain2 = small_job("plain", 2);
    complete_plain(plain1, 100000);
    complete_plain(plain2, 200000);
    plain1.merge(plain2);
    CHECK(plain1.dir[DDIR_READ].prios.empty());
}

TEST_CASE("JSON prios match the real json+ run: keys in fio's order and values", "[report]") {
    const std::string path = std::string(BLKSIM_SOURCE_DIR) +
                             "/test/fixtures/real-linux-6.18/fio/cmdprio10rt_mq-deadline.jsonplus.json";
    std::ifstream in(path);
    INFO(path);
    REQUIRE(in.good());
    const ordered_json fx = ordered_json::parse(in);
    const ordered_json& fread = fx["jobs"][0]["read"];

    // Rebuild the first job's read direction: the histograms from fio's json+ bins, the
    // stats from its min/max/mean/stddev/N.
    auto hist_from_bins = [](const ordered_json& lat) {
        sim::LatencyHistogram h;
        for (auto it = lat["bins"].begin(); it != lat["bins"].end(); ++it)
            for (uint64_t c = it.value().get<uint64_t>(); c > 0; --c)
                h.add(std::stoull(it.key()));
        return h;
    };
    auto stat_from = [](const ordered_json& lat) {
        return stat_with(lat["N"].get<uint64_t>(), lat["min"].get<double>(), lat["max"].get<double>(),
                         lat["mean"].get<double>(), lat["stddev"].get<double>());
    };
    JobResult job = small_job("cmdprio", 1);
    DirResult& d = job.dir[DDIR_READ];
    d.io_bytes = fread["io_bytes"];
    d.total_ios = fread["total_ios"];
    d.clat = stat_from(fread["clat_ns"]);
    d.clat_hist = hist_from_bins(fread["clat_ns"]);
    for (const ordered_json& fp : fread["prios"])
        d.prios.push_back(prio(fp["prioclass"].get<uint8_t>(), fp["prio"].get<uint8_t>(),
                               stat_from(fp["clat_ns"]), hist_from_bins(fp["clat_ns"])));
    RunResult r;
    r.jobs = {job};
    const std::string text = format_json(r, false);
    ordered_json out;
    REQUIRE_NOTHROW(out = ordered_json::parse(text));
    const ordered_json& rd = out["jobs"][0]["read"];

    // "prios" sits between "lat_ns" and "bw_min", as in fio's read object.
    CHECK(keys_of(rd) == keys_of(fread));
    CHECK_FALSE(out["jobs"][0]["write"].contains("prios"));  // no write I/O, no prios
    REQUIRE(rd["prios"].size() == fread["prios"].size());
    REQUIRE(rd["prios"].size() == 2);
    for (std::size_t i = 0; i < rd["prios"].size(); ++i) {
        INFO("prios[" << i << "]");
        const ordered_json& ours = rd["prios"][i];
        const ordered_json& theirs = fread["prios"][i];
        CHECK(keys_of(ours) == std::vector<std::string>{"prioclass", "prio", "clat_ns"});
        CHECK(ours["prioclass"] == theirs["prioclass"]);
        CHECK(ours["prio"] == theirs["prio"]);
        // fio's keys without json+'s "bins" (json output; json+ is checked below).
        CHECK(keys_of(ours["clat_ns"]) ==
              std::vector<std::string>{"min", "max", "mean", "stddev", "N", "percentile"});
        CHECK(ours["clat_ns"]["min"] == theirs["clat_ns"]["min"]);
        CHECK(ours["clat_ns"]["max"] == theirs["clat_ns"]["max"]);
        CHECK(ours["clat_ns"]["N"] == theirs["clat_ns"]["N"]);
        CHECK(ours["clat_ns"]["mean"].get<double>() == Approx(theirs["clat_ns"]["mean"].get<double>()));
        CHECK(ours["clat_ns"]["stddev"].get<double>() == Approx(theirs["clat_ns"]["stddev"].get<double>()));
        CHECK(ours["clat_ns"]["percentile"] == theirs["clat_ns"]["percentile"]);
    }

    // fio's printing of the array: same indentation and separators as the fixture.
    CHECK(text.find("        },\n"
                    "        \"prios\" : [\n"
                    "          {\n"
                    "            \"prioclass\" : 0,\n"
                    "            \"prio\" : 0,\n"
                    "            \"clat_ns\" : {\n"
                    "              \"min\" : 470,\n"
                    "              \"max\" : 15420576,\n") != std::string::npos);
    CHECK(text.find("          }\n"
                    "        ],\n"
                    "        \"bw_min\" : ") != std::string::npos);

    // json+: the histograms were rebuilt from the fixture's bins, so blksim's "bins" must be
    // fio's own: same keys (plat_idx_to_val() as "%llu"), same order, same counts, after
    // "percentile"; none on slat_ns / lat_ns, as in the fixture.
    const ordered_json plus = ordered_json::parse(format_json(r, false, true));
    const ordered_json& pr = plus["jobs"][0]["read"];
    CHECK(keys_of(pr) == keys_of(fread));
    CHECK(keys_of(pr["clat_ns"]) == keys_of(fread["clat_ns"]));
    CHECK(keys_of(pr["clat_ns"]["bins"]) == keys_of(fread["clat_ns"]["bins"]));
    CHECK(pr["clat_ns"]["bins"] == fread["clat_ns"]["bins"]);
    CHECK(pr["slat_ns"].contains("bins") == fread["slat_ns"].contains("bins"));
    CHECK(pr["lat_ns"].contains("bins") == fread["lat_ns"].contains("bins"));
    REQUIRE(pr["prios"].size() == fread["prios"].size());
    for (std::size_t i = 0; i < pr["prios"].size(); ++i) {
        INFO("json+ prios[" << i << "]");
        CHECK(keys_of(pr["prios"][i]["clat_ns"]) == keys_of(fread["prios"][i]["clat_ns"]));
        CHECK(pr["prios"][i]["clat_ns"]["bins"] == fread["prios"][i]["clat_ns"]["bins"]);
    }
}
