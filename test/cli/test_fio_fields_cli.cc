// fio report fields that must read as real fio 3.33's for the same job: the IO depths,
// submit and complete lines, gtod_reduce's missing latency lines and the report's date.
// Where real fio's value does not depend on timing (the bucket a steady depth falls in,
// which lines gtod_reduce removes, the shape of the date and of the JSON) the test runs
// /usr/bin/fio on a small temporary file (buffered libaio: the page cache answers at once,
// so fio's own depth accounting is all there is) and compares; without fio installed that
// comparison is skipped with a warning.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using clitest::CliResult;

using clitest::have_fio;

// Real fio on a 16 MiB file in a temporary directory.
struct RealFio {
    clitest::TempDir dir{"fio-fields"};
    RealFio() { std::ofstream(dir / "f.dat").close(); clitest::shell("truncate -s 16m " + (dir / "f.dat")); }
    CliResult run(const std::string& args) const {
        return clitest::shell("cd " + dir.dir.string() + " && fio --filename=f.dat --size=16m " + args +
                              " 2>/dev/null");
    }
    json run_json(const std::string& args) const {
        const CliResult r = run("--output-format=json " + args);
        REQUIRE(r.status == 0);
        return json::parse(clitest::fio_json_text(r.out));
    }
};

json blksim_json(const std::string& args) {
    const CliResult r = clitest::run_blksim("fio -q --output-format json --device nvme -- " + args, false);
    REQUIRE(r.status == 0);
    return json::parse(r.out);
}

// The label of the largest share in one of fio's percentage maps ("iodepth_level": {"1": ..}).
std::string mode_of(const json& pct) {
    std::string best;
    double max = -1.0;
    for (const auto& [label, v] : pct.items())
        if (v.get<double>() > max) {
            max = v.get<double>();
            best = label;
        }
    return best;
}

double sum_of(const json& pct) {
    double s = 0.0;
    for (const auto& [label, v] : pct.items())
        s += v.get<double>();
    return s;
}

const std::vector<std::string> kLatencyLines = {"    slat (", "    clat (", "     lat (", "clat percentiles",
                                                "   bw (", "   iops        :", "  lat (nsec)", "  lat (usec)",
                                                "  lat (msec)"};

}  // namespace

TEST_CASE("fio fields: IO depths, submit and complete fall in real fio's buckets", "[cli][fio][fio-fields]") {
    // fio's io_u_mark_depth() counts td->cur_depth (io_us taken from the free list) at each
    // commit: iodepth=3 keeps it at 2-3 ("2="), 24 at 16-31 ("16="), a sync engine at 1.
    struct Case {
        std::string engine;
        unsigned depth;
        std::string expected_mode;  // fio's bucket for the steady depth
    };
    for (const Case& c : {Case{"psync", 1, "1"}, Case{"libaio", 3, "2"}, Case{"libaio", 24, "16"}}) {
        INFO(c.engine << " iodepth=" << c.depth);
        const std::string job = "--name=r --ioengine=" + c.engine + " --iodepth=" + std::to_string(c.depth) +
                                " --rw=randread --bs=4k --number_ios=4000";
        const json b = blksim_json(job + " --direct=1")["jobs"][0];
        CHECK(mode_of(b["iodepth_level"]) == c.expected_mode);
        CHECK(sum_of(b["iodepth_level"]) == Approx(100.0).margin(0.5));
        CHECK(mode_of(b["iodepth_submit"]) == "4");  // one io_u per io_submit (iodepth_batch=1)
        if (!have_fio())
            continue;
        const RealFio fio;
        const json f = fio.run_json(job)["jobs"][0];
        CHECK(mode_of(f["iodepth_level"]) == mode_of(b["iodepth_level"]));
        CHECK(mode_of(f["iodepth_submit"]) == mode_of(b["iodepth_submit"]));
        CHECK(mode_of(f["iodepth_complete"]) == mode_of(b["iodepth_complete"]));
    }
}

TEST_CASE("fio fields: with ramp_time the IO depths line adds up to 100%", "[cli][fio][fio-fields]") {
    // fio's reset_all_stats() at the end of ramp_time clears the depth maps with the totals:
    // what is counted after it is what the percentages are of.
    const std::string job = "--name=r --ioengine=libaio --iodepth=24 --rw=randread --bs=4k --time_based "
                            "--ramp_time=20ms --runtime=30ms";
    const json b = blksim_json(job + " --direct=1")["jobs"][0];
    CHECK(sum_of(b["iodepth_level"]) == Approx(100.0).margin(0.5));
    CHECK(mode_of(b["iodepth_level"]) == "16");
    CHECK(sum_of(b["iodepth_submit"]) == Approx(100.0).margin(0.5));
    CHECK(sum_of(b["iodepth_complete"]) == Approx(100.0).margin(0.5));
    // The text line is the same numbers.
    const CliResult text = clitest::run_blksim("fio -q --device nvme -- " + job + " --direct=1", false);
    REQUIRE(text.status == 0);
    CHECK_THAT(text.out, Catch::Contains("  IO depths    : 1=0.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=100.0%, 32=0.0%, >=64=0.0%\n"));
    if (!have_fio())
        return;
    const RealFio fio;
    const json f = fio.run_json("--name=r --ioengine=libaio --iodepth=24 --rw=randread --bs=4k --time_based "
                                "--ramp_time=200ms --runtime=300ms")["jobs"][0];
    CHECK(sum_of(f["iodepth_level"]) == Approx(100.0).margin(0.5));
    CHECK(mode_of(f["iodepth_level"]) == mode_of(b["iodepth_level"]));
}

TEST_CASE("fio fields: gtod_reduce=1 prints no latency or bandwidth samples, as fio", "[cli][fio][fio-fields]") {
    const std::string job = "--name=r --ioengine=libaio --iodepth=4 --rw=randread --bs=4k --number_ios=2000 --direct=1";
    const CliResult timed = clitest::run_blksim("fio -q --device nvme -- " + job, false);
    const CliResult reduced = clitest::run_blksim("fio -q --device nvme -- " + job + " --gtod_reduce=1", false);
    REQUIRE(timed.status == 0);
    REQUIRE(reduced.status == 0);
    for (const std::string& line : kLatencyLines) {
        INFO(line);
        CHECK_THAT(reduced.out, !Catch::Contains(line));
    }
    // Without it the same job has them (what the check above looks for is there to miss).
    CHECK_THAT(timed.out, Catch::Contains("    clat ("));
    CHECK_THAT(timed.out, Catch::Contains("clat percentiles"));
    // The I/O counts, depths and blksim's own section stay.
    CHECK_THAT(reduced.out, Catch::Contains("  read: IOPS="));
    CHECK_THAT(reduced.out, Catch::Contains("     issued rwts: total=2000,0,0,0"));
    CHECK_THAT(reduced.out, Catch::Contains("  IO depths    : "));
    CHECK_THAT(reduced.out, Catch::Contains("D2C"));

    const json bj = blksim_json(job + " --gtod_reduce=1")["jobs"][0];
    CHECK(bj["read"]["total_ios"] == 2000);
    for (const char* key : {"slat_ns", "clat_ns", "lat_ns"}) {
        CHECK(bj["read"][key]["N"] == 0);
        CHECK(!bj["read"][key].contains("percentile"));
    }
    CHECK(bj["read"]["bw_samples"] == 0);
    CHECK(bj["read"]["iops_samples"] == 0);
    CHECK(sum_of(bj["latency_us"]) == 0.0);

    if (!have_fio())
        return;
    // fio's null engine: the same lines missing, the same JSON.
    const RealFio fio;
    const std::string fjob = "--name=r --ioengine=null --rw=randread --bs=4k --gtod_reduce=1";
    const CliResult ft = fio.run(fjob);
    REQUIRE(ft.status == 0);
    for (const std::string& line : kLatencyLines) {
        INFO(line);
        const auto prints = [&line](const std::string& out) { return out.find(line) != std::string::npos; };
        CHECK(prints(ft.out) == prints(reduced.out));
    }
    const json fj = fio.run_json(fjob)["jobs"][0];
    for (const char* key : {"slat_ns", "clat_ns", "lat_ns"}) {
        CHECK(fj["read"][key]["N"] == bj["read"][key]["N"]);
        CHECK(fj["read"][key].contains("percentile") == bj["read"][key].contains("percentile"));
    }
    for (const char* key : {"bw_samples", "iops_samples", "bw_min", "bw_max"})
        CHECK(fj["read"][key] == bj["read"][key]);
    for (const char* key : {"latency_ns", "latency_us", "latency_ms"})
        CHECK(fj[key] == bj[key]);
    CHECK(fj["sync"] == bj["sync"]);
}

TEST_CASE("fio fields: the report's date is one fixed value in text and JSON, in fio's shape", "[cli][fio][fio-fields]") {
    const std::string job = "--name=r --ioengine=libaio --iodepth=4 --rw=randread --bs=4k --number_ios=100";
    const CliResult text = clitest::run_blksim("fio -q --device nvme -- " + job + " --direct=1", false);
    REQUIRE(text.status == 0);
    // stat.c: "name: (groupid=0, jobs=1): err= 0: pid=N: " then ctime()'s date.
    const std::regex header(R"(r: \(groupid=0, jobs=1\): err= 0: pid=\d+: ([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4})\n)");
    std::smatch m;
    REQUIRE(std::regex_search(text.out, m, header));
    const json j = blksim_json(job + " --direct=1");
    CHECK(j["time"] == m[1].str());
    CHECK(j["timestamp"] == 0);
    CHECK(j["time"] == "Thu Jan  1 00:00:00 1970");  // docs/fio.md: simulated time 0, UTC
    // A second run prints the same bytes.
    CHECK(clitest::run_blksim("fio -q --device nvme -- " + job + " --direct=1", false).out == text.out);
    if (!have_fio())
        return;
    const RealFio fio;
    const CliResult ft = fio.run(job);
    REQUIRE(ft.status == 0);
    CHECK(std::regex_search(ft.out, header));
    const json fj = fio.run_json(job);
    CHECK(std::regex_match(fj["time"].get<std::string>(),
                           std::regex(R"([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d \d{4})")));
    // The same top-level keys (blksim adds its own object).
    std::vector<std::string> fkeys, bkeys;
    for (const auto& [k, v] : fj.items())
        fkeys.push_back(k);
    for (const auto& [k, v] : j.items())
        if (k != "blksim" && k != "disk_util")
            bkeys.push_back(k);
    std::erase(fkeys, "disk_util");
    CHECK(fkeys == bkeys);
}

TEST_CASE("fio fields: the cpu line's sys counts the job threads' spinning on kernel locks", "[cli][fio][fio-fields]") {
    // lock-collapse: ten submitters spin on mq-deadline's dd->lock in their plug flushes; on
    // a real machine that is their system time. (Timing-dependent on real hardware: no fio run.)
    const CliResult r = clitest::run_blksim("run -q --output-format json " +
                                            clitest::source_path("scenarios/teaching/lock-collapse.json"), false);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    const json& job = j["jobs"][0];  // the ten jobs, group_reporting
    double spin_ns = 0.0;
    for (const json& c : j["blksim"]["cpus"])
        spin_ns += c["spin_ns"].get<double>();
    REQUIRE(spin_ns > 0.0);
    // sys_cpu is a percent of the jobs' summed runtime (msec, rounded up: 1 ms per job at most).
    const double runtime_ns = job["job_runtime"].get<double>() * 1e6;
    const double sys_ns = job["sys_cpu"].get<double>() / 100.0 * runtime_ns;
    CHECK(sys_ns >= 0.98 * spin_ns);  // every core's spin is a job thread's here
    CHECK(job["usr_cpu"].get<double>() + job["sys_cpu"].get<double>() <= 100.0);
}

TEST_CASE("fio fields: the cpu line's sys counts the kernel work a syscall charges after the step", "[cli][fio][fio-fields]") {
    // The plug flush of psync's pread calls the driver's ->queue_rq on the thread's CPU after
    // the step's own cost: inside the syscall, so the thread's system time. 1 us more per
    // ->queue_rq is 1 us more sys per I/O.
    const std::string scenario = clitest::source_path("scenarios/examples/nullblk-psync-qd1.json");
    auto sys_per_io = [&](const std::string& queue_rq) {
        const CliResult r = clitest::run_blksim("run -q --output-format json " + scenario +
                                                " --set 'host.costs.queue_rq=\"" + queue_rq + "\"'", false);
        REQUIRE(r.status == 0);
        const json job = json::parse(r.out)["jobs"][0];
        const double runtime_ns = job["job_runtime"].get<double>() * 1e6;
        CHECK(job["usr_cpu"].get<double>() + job["sys_cpu"].get<double>() <= 100.0);
        return job["sys_cpu"].get<double>() / 100.0 * runtime_ns / job["read"]["total_ios"].get<double>();
    };
    const double a = sys_per_io("100ns"), b = sys_per_io("1100ns");
    CHECK(b - a == Approx(1000.0).epsilon(0.02));
}

TEST_CASE("fio fields: usr, sys and ctx count from the end of ramp_time", "[cli][fio][fio-fields]") {
    // fio's reset_all_stats() clears the thread's rusage when ramp_time ends: a job busy all
    // along shows the same usr and sys with a ramp as without, never over 100 %.
    auto cpu = [](const std::string& ramp) {
        const CliResult r = clitest::run_blksim(
            "fio -q --device nullb -- --name=x --rw=randread --bs=4k --ioengine=psync --direct=1 --runtime=1 "
            "--time_based --output-format=json" + ramp, false);
        REQUIRE(r.status == 0);
        return json::parse(r.out)["jobs"][0];
    };
    const json plain = cpu(""), ramped = cpu(" --ramp_time=1");
    CHECK(ramped["usr_cpu"].get<double>() + ramped["sys_cpu"].get<double>() <= 100.0);
    CHECK(ramped["sys_cpu"].get<double>() == Approx(plain["sys_cpu"].get<double>()).epsilon(0.02));
    CHECK(ramped["usr_cpu"].get<double>() == Approx(plain["usr_cpu"].get<double>()).epsilon(0.02));
    CHECK(ramped["ctx"].get<double>() == Approx(plain["ctx"].get<double>()).epsilon(0.02).margin(2));
}

TEST_CASE("blksim section: tags_in_use_mean is one name and says when the tag set is shared", "[cli][report]") {
    // Two disks behind one HBA share its host tags: each queue's figure is the set's.
    const std::string scenario = clitest::source_path("scenarios/examples/sas-hba-2hdd-mq-deadline.json");
    const CliResult text = clitest::run_blksim("run -q " + scenario, false);
    const CliResult js = clitest::run_blksim("run -q --output-format json " + scenario, false);
    REQUIRE(text.status == 0);
    REQUIRE(js.status == 0);
    const json j = json::parse(js.out);
    REQUIRE(j["blksim"]["queues"].size() == 2);
    for (const json& q : j["blksim"]["queues"]) {
        INFO(q["name"]);
        CHECK(q["tag_set_queues"] == 2);
        CHECK(!q.contains("tags_mean_in_use"));
        const std::string line = fmt::format("  {}: scheduler=mq-deadline, nr_hw_queues=1, tag_depth=1024, "
                                             "tags_in_use_mean={:.2f} (tag set shared by 2 queues)\n",
                                             q["name"].get<std::string>(), q["tags_in_use_mean"].get<double>());
        CHECK_THAT(text.out, Catch::Contains(line));
    }
    // A queue with its own tags: no label, no key.
    const json n = blksim_json("--name=r --ioengine=libaio --iodepth=4 --rw=randread --bs=4k --number_ios=100 --direct=1");
    CHECK(n["blksim"]["queues"][0].contains("tags_in_use_mean"));
    CHECK(!n["blksim"]["queues"][0].contains("tag_set_queues"));
}

TEST_CASE("blksim section: stage percentiles lie within the stage's min and max", "[cli][report]") {
    // Bucket midpoints (<= 1/64 off) would put a percentile above the max, or off the value
    // when all samples are equal (the NVMe model's D2C here: one fixed service time).
    const json j = blksim_json("--name=r --ioengine=libaio --iodepth=8 --rw=randread --bs=4k --number_ios=2000 --direct=1");
    bool some_equal = false;
    for (const auto& [stage, s] : j["blksim"]["queues"][0]["stages_ns"].items()) {
        INFO(stage);
        const uint64_t min = s["min"], max = s["max"];
        for (const auto& [p, v] : s["percentile"].items()) {
            CHECK(v.get<uint64_t>() >= min);
            CHECK(v.get<uint64_t>() <= max);
        }
        some_equal |= s["N"].get<uint64_t>() > 0 && min == max;
    }
    CHECK(some_equal);  // the all-equal case is exercised
}

TEST_CASE("fio fields: fsyncs count in the IO depths line against reads and writes only", "[cli][fio][fio-fields]") {
    // fio's td_io_queue() marks a sync's depth but its total_io_u[DDIR_SYNC] is not in the
    // percentages' base: with fsync=4 the line passes 100 % by a quarter.
    const std::string job = "--name=w --ioengine=psync --rw=randwrite --bs=4k --number_ios=2000 --fsync=4";
    const CliResult b = clitest::run_blksim("fio -q --device nvme -- " + job + " --direct=1", false);
    REQUIRE(b.status == 0);
    const std::string depths = "  IO depths    : 1=125.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=0.0%, >=64=0.0%\n"
                               "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
                               "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
                               "     issued rwts: total=0,2000,0,499 short=0,0,0,0 dropped=0,0,0,0\n";
    CHECK_THAT(b.out, Catch::Contains(depths));
    if (!have_fio())
        return;
    const RealFio fio;
    const CliResult f = fio.run(job);
    REQUIRE(f.status == 0);
    CHECK_THAT(f.out, Catch::Contains(depths));
}
