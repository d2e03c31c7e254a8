// The fio text and JSON reports (format_normal / format_json) and group_reporting merging.
// Expected text is either worked out by hand from fio 3.33's rules or copied from a real fio
// 3.33 run (fixtures/real-linux-6.18/fio/cmdprio_normal_output.txt and
// cmdprio10rt_mq-deadline.jsonplus.json).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
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

// 1000 random 4 KiB reads in 2 s: 500 completing in 50 us, 499 in 150 us and one in 5 ms,
// each submitted 2 us before it was issued.
JobResult synthetic_job(std::string name = "job1", uint32_t pid = 100) {
    JobResult j;
    j.name = name;
    j.pid = pid;
    j.options = libaio_randread(32);
    j.runtime = 2_s;
    j.cpu_busy = 1_s;
    j.cpu_sys = 800_ms;
    j.ctx = 1234;

    DirResult& d = j.dir[DDIR_READ];
    d.io_bytes = 1000 * 4096;
    d.total_ios = 1000;
    d.slat.add(1000);
    d.slat.add(3000);
    auto complete = [&](uint64_t clat_ns) {
        d.add_clat(clat_ns);
        d.lat.add(static_cast<double>(clat_ns + 2000));
    };
    for (int i = 0; i < 500; ++i)
        complete(50000);
    for (int i = 0; i < 499; ++i)
        complete(150000);
    complete(5000000);
    for (double bw : {2000000.0, 2100000.0, 2200000.0})
        d.bw_samples.add(bw);
    for (double io : {490.0, 500.0, 510.0})
        d.iops_samples.add(io);

    j.depth.level[5] = 1000;  // all at depth 32..63
    j.depth.level_samples = 1000;
    j.depth.submit[1] = 250;  // batches of 1..4
    j.depth.submit_calls = 250;
    j.depth.complete[1] = 499;
    j.depth.complete[2] = 1;
    j.depth.complete_calls = 500;
    return j;
}

DiskUtil disk() {
    DiskUtil du;
    du.name = "nvme0n1";
    du.ios = {1000, 0};
    du.ticks = {150, 0};
    du.in_queue = 150;
    du.util = 95.5;
    return du;
}

std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

bool has_line(const std::string& text, const std::string& line) {
    for (const std::string& l : lines_of(text))
        if (l == line)
            return true;
    return false;
}


// The fixture's first job (pid 3671), as far as its inputs can be rebuilt: byte and I/O
// counts, runtime, bw/iops samples whose stats print its exact digits, depth maps, and
// latency-distribution counts that round to its percentages.
JobResult fixture_job(uint32_t pid, uint64_t ios, std::array<double, 3> bw_kib,
                      std::array<double, 3> iops) {
    JobResult j;
    j.name = "randread_4k_j2_qd128_libaio_cmdprio10rt";
    j.pid = pid;
    j.options = libaio_randread(128, 2);
    j.runtime = 2000500_us;  // reported as 2001 msec
    DirResult& d = j.dir[DDIR_READ];
    d.io_bytes = ios * 4096;
    d.total_ios = ios;
    for (double v : bw_kib)
        d.bw_samples.add(v * 1024);
    for (double v : iops)
        d.iops_samples.add(v);
    j.depth.level = {1, 1, 1, 1, 1, 1, ios - 6};
    j.depth.level_samples = ios;
    j.depth.submit = {0, 1000, 0, 0, 0, 0, 0};
    j.depth.submit_calls = 1000;
    j.depth.complete = {0, 9999, 0, 0, 0, 0, 1};
    j.depth.complete_calls = 10000;
    return j;
}


}  // namespace

TEST_CASE("normal report of one job matches fio's layout line for line", "[report]") {
    RunResult r;
    r.jobs.push_back(synthetic_job());
    r.disks.push_back(disk());
    r.sim_time = 2_s;

    // Worked by hand: bw = 4096000 B * 1000 / 2000 ms = 2048000 B/s; iops = 500.
    // clat mean 104850 ns, stdev 162820 ns; percentile bins' midpoints 49920, 150528,
    // 5013504 ns round up to 50, 151, 5014 usec; 99.9% of 1000 in long double is a hair
    // above 999, so the 99.90th is the 1000th sample. bw samples 1953.1..2148.4 KiB/s.
    const std::string expected =
        "job1: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=32\n"
        "blksim\n"
        "Starting 1 process\n"
        "\n"
        "job1: (groupid=0, jobs=1): err= 0: pid=100: Thu Jan  1 00:00:00 1970\n"
        "  read: IOPS=500, BW=2000KiB/s (2048kB/s)(4000KiB/2000msec)\n"
        "    slat (nsec): min=1000, max=3000, avg=2000.00, stdev=1414.21\n"
        "    clat (usec): min=50, max=5000, avg=104.85, stdev=162.82\n"
        "     lat (usec): min=52, max=5002, avg=106.85, stdev=162.82\n"
        "    clat percentiles (usec):\n"
        "     |  1.00th=[   50],  5.00th=[   50], 10.00th=[   50], 20.00th=[   50],\n"
        "     | 30.00th=[   50], 40.00th=[   50], 50.00th=[   50], 60.00th=[  151],\n"
        "     | 70.00th=[  151], 80.00th=[  151], 90.00th=[  151], 95.00th=[  151],\n"
        "     | 99.00th=[  151], 99.50th=[  151], 99.90th=[ 5014], 99.95th=[ 5014],\n"
        "     | 99.99th=[ 5014]\n"
        "   bw (  KiB/s): min= 1953, max= 2148, per=100.00%, avg=2050.78, stdev=97.66, samples=3\n"
        "   iops        : min=  490, max=  510, avg=500.00, stdev=10.00, samples=3\n"
        "  lat (usec)   : 100=50.00%, 250=49.90%\n"
        "  lat (msec)   : 10=0.10%\n"
        "  cpu          : usr=10.00%, sys=40.00%, ctx=1234, majf=0, minf=0\n"
        "  IO depths    : 1=0.0%, 2=0.0%, 4=0.0%, 8=0.0%, 16=0.0%, 32=100.0%, >=64=0.0%\n"
        "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
        "     complete  : 0=0.0%, 4=99.8%, 8=0.2%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%\n"
        "     issued rwts: total=1000,0,0,0 short=0,0,0,0 dropped=0,0,0,0\n"
        "     latency   : target=0, window=0, percentile=100.00%, depth=32\n"
        "\n"
        "Run status group 0 (all jobs):\n"
        "   READ: bw=2000KiB/s (2048kB/s), 2000KiB/s-2000KiB/s (2048kB/s-2048kB/s), io=4000KiB (4096kB), run=2000-2000msec\n"
        "\n"
        "Disk stats (read/write):\n"
        "  nvme0n1: ios=1000/0, merge=0/0, ticks=150/0, in_queue=150, util=95.50%\n";
    CHECK(format_normal(r, false) == expected);
}

TEST_CASE("normal report reproduces the real fio run's lines", "[report]") {
    RunResult r;
    r.jobs.push_back(fixture_job(3671, 172210, {325732, 386392, 345624}, {81433, 96598, 86406}));
    r.jobs.push_back(fixture_job(3672, 174932, {332606, 339696, 334848}, {83151, 84924, 83712}));
    JobResult& j = r.jobs[0];
    j.cpu_busy = 1089272250_ns;  // usr 3.70% + sys 50.75% of 2000.5 ms
    j.cpu_sys = 1015253750_ns;
    j.ctx = 8056;
    // Counts that round to the fixture's distribution percentages of 172210 I/Os.
    LatDist& ld = j.dir[DDIR_READ].clat_dist;
    ld.n[8] = 1;
    ld.u = {0, 0, 1, 5, 52, 69, 758, 7853, 20631, 22930};
    ld.m = {84185, 33659, 2032, 34, 0, 0, 0, 0, 0, 0, 0, 0};
    // A histogram whose percentiles are the fixture's (usec).
    const uint64_t pct_usec[] = {314, 498, 594, 816, 996, 1172, 1352, 1549, 1762,
                                 2024, 2474, 2868, 4228, 4817, 7504, 8225, 11338};
    const auto plist = sim::LatencyHistogram::default_percentiles();
    uint64_t placed = 0;
    for (std::size_t i = 0; i < plist.size(); ++i) {
        // 10000 samples in all; each value carries the running count one past its
        // percentile's threshold (p% of 10000), so that percentile lands on it.
        const uint64_t upto = i + 1 < plist.size() ? static_cast<uint64_t>(std::llround(plist[i] * 100)) + 1 : 10000;
        const uint64_t v = bin_value_for_usec(pct_usec[i]);
        REQUIRE(v != 0);
        for (; placed < upto; ++placed)
            j.dir[DDIR_READ].clat_hist.add(v);
    }
    j.dir[DDIR_READ].clat.add(1000);  // percentiles are shown only with clat samples
    DiskUtil loop0;
    loop0.name = "loop0";
    loop0.ios = {326324, 0};
    loop0.merges = {272, 0};
    loop0.ticks = {380122, 0};
    loop0.in_queue = 380121;
    loop0.util = 94.93;
    r.disks.push_back(loop0);

    const std::string out = format_normal(r, false);
    const char* fixture_lines[] = {
        "randread_4k_j2_qd128_libaio_cmdprio10rt: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, ioengine=libaio, iodepth=128",
        "...",
        "Starting 2 processes",
        "randread_4k_j2_qd128_libaio_cmdprio10rt: (groupid=0, jobs=1): err= 0: pid=3671: Thu Jan  1 00:00:00 1970",  // fio: the run's date
        "  read: IOPS=86.1k, BW=336MiB/s (353MB/s)(673MiB/2001msec)",
        "    clat percentiles (usec):",
        "     |  1.00th=[  314],  5.00th=[  498], 10.00th=[  594], 20.00th=[  816],",
        "     | 30.00th=[  996], 40.00th=[ 1172], 50.00th=[ 1352], 60.00th=[ 1549],",
        "     | 70.00th=[ 1762], 80.00th=[ 2024], 90.00th=[ 2474], 95.00th=[ 2868],",
        "     | 99.00th=[ 4228], 99.50th=[ 4817], 99.90th=[ 7504], 99.95th=[ 8225],",
        "     | 99.99th=[11338]",
        "   bw (  KiB/s): min=325732, max=386392, per=50.81%, avg=352582.67, stdev=30922.91, samples=3",
        "   iops        : min=81433, max=96598, avg=88145.67, stdev=7730.73, samples=3",
        "  lat (nsec)   : 750=0.01%",
        "  lat (usec)   : 10=0.01%, 20=0.01%, 50=0.03%, 100=0.04%, 250=0.44%",
        "  lat (usec)   : 500=4.56%, 750=11.98%, 1000=13.32%",
        "  lat (msec)   : 2=48.89%, 4=19.55%, 10=1.18%, 20=0.02%",
        "  cpu          : usr=3.70%, sys=50.75%, ctx=8056, majf=0, minf=0",  // fio: minf=138
        "  IO depths    : 1=0.1%, 2=0.1%, 4=0.1%, 8=0.1%, 16=0.1%, 32=0.1%, >=64=100.0%",
        "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%",
        "     complete  : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.1%",
        "     issued rwts: total=172210,0,0,0 short=0,0,0,0 dropped=0,0,0,0",
        "     latency   : target=0, window=0, percentile=100.00%, depth=128",
        "randread_4k_j2_qd128_libaio_cmdprio10rt: (groupid=0, jobs=1): err= 0: pid=3672: Thu Jan  1 00:00:00 1970",  // fio: the run's date
        "  read: IOPS=87.4k, BW=341MiB/s (358MB/s)(683MiB/2001msec)",
        "   bw (  KiB/s): min=332606, max=339696, per=48.38%, avg=335716.67, stdev=3623.94, samples=3",
        "   iops        : min=83151, max=84924, avg=83929.00, stdev=906.20, samples=3",
        "Run status group 0 (all jobs):",
        "   READ: bw=678MiB/s (711MB/s), 336MiB/s-341MiB/s (353MB/s-358MB/s), io=1356MiB (1422MB), run=2001-2001msec",
        "Disk stats (read/write):",
        "  loop0: ios=326324/0, merge=272/0, ticks=380122/0, in_queue=380121, util=94.93%",
    };
    for (const char* line : fixture_lines) {
        INFO(line);
        CHECK(has_line(out, line));
    }
    // fio's order: start-up lines, a blank line, the job blocks back to back, then groups.
    const auto ls = lines_of(out);
    REQUIRE(ls.size() > 6);
    CHECK(ls[3] == "Starting 2 processes");
    CHECK(ls[4].empty());
    CHECK(ls[5] == fixture_lines[3]);
}

TEST_CASE("group_reporting folds a group's jobs into one block", "[report]") {
    JobResult a = synthetic_job("job", 100);
    a.options.numjobs = 2;
    JobResult b = synthetic_job("job", 101);
    b.options.numjobs = 2;
    b.runtime = 3_s;
    b.cpu_busy = 1500_ms;
    b.cpu_sys = 700_ms;
    b.dir[DDIR_READ].io_bytes = 3000 * 4096;
    b.dir[DDIR_READ].total_ios = 3000;
    b.dir[DDIR_READ].bw_samples = {};
    b.dir[DDIR_READ].bw_samples.add(1000000);
    b.dir[DDIR_READ].bw_samples.add(1000000);

    SECTION("merge sums counts and keeps the longest runtime") {
        JobResult m = a;
        m.merge(b);
        CHECK(m.nr_jobs == 2);
        CHECK(m.pid == 100);
        CHECK(m.dir[DDIR_READ].total_ios == 4000);
        CHECK(m.dir[DDIR_READ].io_bytes == 4000 * 4096);
        CHECK(m.dir[DDIR_READ].clat.count() == 2000);
        CHECK(m.dir[DDIR_READ].clat_hist.total() == 2000);
        CHECK(m.dir[DDIR_READ].clat_dist.total() == 2000);
        CHECK(m.runtime == 3_s);
        CHECK(m.total_run_time() == 5_s);
        CHECK(m.cpu_busy == 2500_ms);
        CHECK(m.depth.level[5] == 2000);
        // bw stats are summed (fio's pure_sum): {2.0,2.1,2.2} MB/s + {1.0,1.0} MB/s
        const SummedStat bw = m.dir[DDIR_READ].bw_stat();
        CHECK(bw.samples == 5);
        CHECK(bw.min == Approx(3000000));
        CHECK(bw.max == Approx(3200000));
        CHECK(bw.mean == Approx(3100000));
        CHECK(bw.stddev() == Approx(std::sqrt(2e10 / 4)));
        // merging a third job keeps adding to the sums, not to the pooled samples
        m.merge(a);
        CHECK(m.nr_jobs == 3);
        CHECK(m.dir[DDIR_READ].bw_stat().mean == Approx(5200000));
        CHECK(m.total_run_time() == 7_s);
    }

    SECTION("the text report shows one block with jobs=2") {
        RunResult r;
        r.jobs = {a, b};
        const std::string out = format_normal(r, true);
        // start-up lines still list the clones
        CHECK(out.starts_with("job: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, "
                              "(T) 4096B-4096B, ioengine=libaio, iodepth=32\n...\nblksim\n"
                              "Starting 2 processes\n\njob: (groupid=0, jobs=2): err= 0: pid=100: Thu Jan  1 00:00:00 1970\n"));
        CHECK(out.find("pid=101") == std::string::npos);
        // 16384000 B in 3000 ms (the longest member)
        CHECK(has_line(out, "  read: IOPS=1333, BW=5333KiB/s (5461kB/s)(15.6MiB/3000msec)"));
        // bw KiB/s: min 3000000/1024, max 3200000/1024, avg 3100000/1024, sd sqrt(2e10/4)/1024
        CHECK(has_line(out, "   bw (  KiB/s): min= 2929, max= 3125, per=56.76%, avg=3027.34, stdev=69.05, samples=5"));
        // usr (1.0+...) : (2.5 s busy - 1.5 s sys) / 5 s total runtime
        CHECK(has_line(out, "  cpu          : usr=20.00%, sys=30.00%, ctx=2468, majf=0, minf=0"));
        CHECK(has_line(out, "     issued rwts: total=4000,0,0,0 short=0,0,0,0 dropped=0,0,0,0"));
        CHECK(has_line(out, "   READ: bw=5333KiB/s (5461kB/s), 5333KiB/s-5333KiB/s (5461kB/s-5461kB/s), io=15.6MiB (16.4MB), run=3000-3000msec"));
    }

    SECTION("without group_reporting each job keeps its block and the group spans both") {
        RunResult r;
        r.jobs = {a, b};
        const std::string out = format_normal(r, false);
        CHECK(out.find("(groupid=0, jobs=1): err= 0: pid=100") != std::string::npos);
        CHECK(out.find("(groupid=0, jobs=1): err= 0: pid=101") != std::string::npos);
        CHECK(has_line(out, "   READ: bw=5333KiB/s (5461kB/s), 2000KiB/s-4000KiB/s (2048kB/s-4096kB/s), io=15.6MiB (16.4MB), run=2000-3000msec"));
    }
}

TEST_CASE("separate groups get separate run status blocks", "[report]") {
    RunResult r;
    r.jobs.push_back(synthetic_job("a", 1));
    r.jobs.push_back(synthetic_job("b", 2));
    r.jobs[1].groupid = 1;
    r.jobs[1].dir[DDIR_READ].io_bytes = 2000 * 4096;
    for (bool gr : {false, true}) {
        const std::string out = format_normal(r, gr);
        const auto g0 = out.find("Run status group 0 (all jobs):\n   READ: bw=2000KiB/s");
        const auto g1 = out.find("Run status group 1 (all jobs):\n   READ: bw=4000KiB/s");
        CHECK(g0 != std::string::npos);
        CHECK(g1 != std::string::npos);
        CHECK(g0 < g1);
        CHECK(out.find("b: (groupid=1, jobs=1)") != std::string::npos);
    }
}

TEST_CASE("fast jobs show bandwidth samples in MiB/s and writes get their own lines", "[report]") {
    JobResult j = synthetic_job();
    workload::JobConfig c;
    c.rw = workload::RwPattern::RANDRW;
    c.ioengine = workload::IoEngine::LIBAIO;
    c.iodepth = 32;
    c.bs_write = 131072;
    c.bs_trim = 131072;  // what bs=4k,128k gives trims (fio: the last value repeats)
    j.options = workload::job_options(c);
    DirResult& w = j.dir[DDIR_WRITE];
    w.io_bytes = 3ULL << 30;  // 3 GiB in 2 s
    w.total_ios = 24576;
    for (double gib : {1.5, 1.5})
        w.bw_samples.add(gib * (1 << 30));
    RunResult r;
    r.jobs = {j};
    const std::string out = format_normal(r, false);
    CHECK(out.starts_with("job1: (g=0): rw=randrw, bs=(R) 4096B-4096B, (W) 128KiB-128KiB, (T) 128KiB-128KiB,"));
    CHECK(has_line(out, "  write: IOPS=12.3k, BW=1536MiB/s (1611MB/s)(3072MiB/2000msec)"));
    CHECK(has_line(out, "   bw (  MiB/s): min= 1536, max= 1536, per=100.00%, avg=1536.00, stdev= 0.00, samples=2"));
    CHECK(has_line(out, "  WRITE: bw=1536MiB/s (1611MB/s), 1536MiB/s-1536MiB/s (1611MB/s-1611MB/s), io=3072MiB (3221MB), run=2000-2000msec"));
    CHECK(has_line(out, "     issued rwts: total=1000,24576,0,0 short=0,0,0,0 dropped=0,0,0,0"));
}

TEST_CASE("a job that did no I/O prints no block", "[report]") {
    RunResult r;
    JobResult idle;
    idle.name = "idle";
    idle.options = libaio_randread(1);
    r.jobs.push_back(idle);
    const std::string out = format_normal(r, false);
    CHECK(out.find("(groupid=") == std::string::npos);
    CHECK(out.ends_with("Starting 1 process\n\n\nRun status group 0 (all jobs):\n"));
}

TEST_CASE("JSON report parses and carries fio's keys and values", "[report]") {
    RunResult r;
    r.jobs.push_back(synthetic_job());
    r.disks.push_back(disk());
    r.sim_time = 2_s;
    const std::string text = format_json(r, false);
    ordered_json j;
    REQUIRE_NOTHROW(j = ordered_json::parse(text));

    // Top level and job keys in fio 3.33's order (from the fixture, without json+ "bins"
    // and the cmdprio-only "prios").
    CHECK(keys_of(j) == std::vector<std::string>{"fio version", "timestamp", "timestamp_ms", "time",
                                                  "global options", "jobs", "disk_util"});
    CHECK(j["fio version"] == "blksim-0.1");
    CHECK(j["timestamp"] == 0);
    CHECK(j["global options"].empty());
    REQUIRE(j["jobs"].size() == 1);
    const ordered_json& job = j["jobs"][0];
    CHECK(keys_of(job) ==
          std::vector<std::string>{"jobname", "groupid", "error", "eta", "elapsed", "job options",
                                   "read", "write", "trim", "sync", "job_runtime", "usr_cpu",
                                   "sys_cpu", "ctx", "majf", "minf", "iodepth_level",
                                   "iodepth_submit", "iodepth_complete", "latency_ns",
                                   "latency_us", "latency_ms", "latency_depth", "latency_target",
                                   "latency_percentile", "latency_window"});
    const std::vector<std::string> ddir_keys = {
        "io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios",
        "drop_ios", "slat_ns", "clat_ns", "lat_ns", "bw_min", "bw_max", "bw_agg", "bw_mean",
        "bw_dev", "bw_samples", "iops_min", "iops_max", "iops_mean", "iops_stddev", "iops_samples"};
    CHECK(keys_of(job["read"]) == ddir_keys);
    CHECK(keys_of(job["write"]) == ddir_keys);
    CHECK(keys_of(job["trim"]) == ddir_keys);
    CHECK(keys_of(job["sync"]) == std::vector<std::string>{"total_ios", "lat_ns"});
    CHECK(keys_of(j["disk_util"][0]) ==
          std::vector<std::string>{"name", "read_ios", "write_ios", "read_merges", "write_merges",
                                   "read_ticks", "write_ticks", "in_queue", "util"});

    CHECK(job["jobname"] == "job1");
    CHECK(job["elapsed"] == 2);
    CHECK(job["job options"]["rw"] == "randread");
    CHECK(job["job options"]["bs"] == "4k");
    CHECK(job["job options"]["iodepth"] == "32");
    const ordered_json& rd = job["read"];
    CHECK(rd["io_bytes"] == 4096000);
    CHECK(rd["io_kbytes"] == 4000);
    CHECK(rd["bw_bytes"] == 2048000);
    CHECK(rd["bw"] == 2000);
    CHECK(rd["iops"] == 500.0);
    CHECK(rd["runtime"] == 2000);
    CHECK(rd["total_ios"] == 1000);
    CHECK(rd["slat_ns"]["min"] == 1000);
    CHECK(rd["slat_ns"]["N"] == 2);
    CHECK_FALSE(rd["slat_ns"].contains("percentile"));  // fio: slat_percentiles=0
    CHECK_FALSE(rd["lat_ns"].contains("percentile"));
    CHECK(rd["clat_ns"]["min"] == 50000);
    CHECK(rd["clat_ns"]["max"] == 5000000);
    CHECK(rd["clat_ns"]["N"] == 1000);
    CHECK(keys_of(rd["clat_ns"]["percentile"]).front() == "1.000000");
    CHECK(keys_of(rd["clat_ns"]["percentile"]).back() == "99.990000");
    CHECK(rd["clat_ns"]["percentile"]["50.000000"] == 49920);
    CHECK(rd["clat_ns"]["percentile"]["60.000000"] == 150528);
    CHECK(rd["clat_ns"]["percentile"]["99.990000"] == 5013504);
    CHECK(rd["lat_ns"]["mean"].get<double>() == Approx(106850));
    CHECK(rd["bw_min"] == 1953);
    CHECK(rd["bw_max"] == 2148);
    CHECK(rd["bw_agg"] == 100.0);
    CHECK(rd["bw_mean"].get<double>() == Approx(2050.78125));
    CHECK(rd["bw_samples"] == 3);
    CHECK(rd["iops_min"] == 490);
    CHECK(rd["iops_stddev"].get<double>() == Approx(10.0));
    CHECK(job["write"]["runtime"] == 0);
    CHECK(job["write"]["iops"] == 0.0);
    CHECK(job["trim"]["clat_ns"]["N"] == 0);
    CHECK(job["sync"]["lat_ns"]["N"] == 0);
    CHECK(job["job_runtime"] == 2000);
    CHECK(job["usr_cpu"].get<double>() == Approx(10.0));
    CHECK(job["sys_cpu"].get<double>() == Approx(40.0));
    CHECK(job["ctx"] == 1234);
    CHECK(keys_of(job["iodepth_level"]) == std::vector<std::string>{"1", "2", "4", "8", "16", "32", ">=64"});
    CHECK(keys_of(job["iodepth_submit"]) == std::vector<std::string>{"0", "4", "8", "16", "32", "64", ">=64"});
    CHECK(job["iodepth_level"]["32"] == 100.0);
    CHECK(job["iodepth_complete"]["4"].get<double>() == Approx(99.8));
    CHECK(job["latency_us"]["100"] == 50.0);
    CHECK(job["latency_us"]["250"].get<double>() == Approx(49.9));
    CHECK(job["latency_ms"]["10"].get<double>() == Approx(0.1));
    CHECK(job["latency_ms"].size() == 12);
    CHECK(job["latency_ms"].contains(">=2000"));
    CHECK(job["latency_depth"] == 32);
    CHECK(job["latency_percentile"] == 100.0);
    CHECK(j["disk_util"][0]["name"] == "nvme0n1");
    CHECK(j["disk_util"][0]["util"] == 95.5);

    // fio's printing: " : " separators, 2-space indents, integers bare, doubles as "%f".
    CHECK(text.starts_with("{\n  \"fio version\" : \"blksim-0.1\",\n  \"timestamp\" : 0,\n"));
    CHECK(text.find("  \"global options\" : {},\n  \"jobs\" : [\n    {\n      \"jobname\" : \"job1\",\n") !=
          std::string::npos);
    CHECK(text.find("        \"bw\" : 2000,\n        \"iops\" : 500.000000,\n") != std::string::npos);
    CHECK(text.find("          \"percentile\" : {\n            \"1.000000\" : 49920,\n") != std::string::npos);
    CHECK(text.find("        \"bw_mean\" : 2050.781250,\n") != std::string::npos);
    CHECK(text.ends_with("      \"util\" : 95.500000\n    }\n  ]\n}\n"));
}

TEST_CASE("JSON group_reporting merges jobs and names escape", "[report]") {
    RunResult r;
    r.jobs.push_back(synthetic_job("a \"quoted\" \\ name", 1));
    r.jobs.push_back(synthetic_job("second", 2));
    ordered_json j = ordered_json::parse(format_json(r, true));
    REQUIRE(j["jobs"].size() == 1);
    CHECK(j["jobs"][0]["jobname"] == "a \"quoted\" \\ name");
    CHECK(j["jobs"][0]["read"]["total_ios"] == 2000);
    CHECK(j["jobs"][0]["read"]["io_bytes"] == 2 * 4096000);
    CHECK(j["jobs"][0]["read"]["clat_ns"]["N"] == 2000);
    CHECK(j["jobs"][0]["read"]["bw_samples"] == 6);
    CHECK(j["jobs"][0]["read"]["bw_mean"].get<double>() == Approx(2 * 2050.78125));
    CHECK(j["jobs"][0]["job_runtime"] == 4000);
    CHECK_FALSE(j.contains("disk_util"));  // fio omits it when no disk was tracked

    j = ordered_json::parse(format_json(r, false));
    CHECK(j["jobs"].size() == 2);
    // each job's 2050 KiB/s (fio truncates the mean) of the group's 4000 KiB/s
    CHECK(j["jobs"][1]["read"]["bw_agg"].get<double>() == Approx(51.25));
}

// The real json+ run: its clat bins, loaded into a histogram, must give back the
// percentiles fio printed, and the bin-derived latency distribution must be close to fio's
// exact one.
TEST_CASE("JSON percentiles from the real run's clat bins match fio's", "[report]") {
    const std::string path = std::string(BLKSIM_SOURCE_DIR) +
                             "/test/fixtures/real-linux-6.18/fio/cmdprio10rt_mq-deadline.jsonplus.json";
    std::ifstream in(path);
    INFO(path);
    REQUIRE(in.good());
    const ordered_json fx = ordered_json::parse(in);
    const ordered_json& fjob = fx["jobs"][0];
    const ordered_json& fclat = fjob["read"]["clat_ns"];

    JobResult job = synthetic_job();
    DirResult& d = job.dir[DDIR_READ];
    d = DirResult{};
    d.io_bytes = fjob["read"]["io_bytes"];
    d.total_ios = fjob["read"]["total_ios"];
    for (auto it = fclat["bins"].begin(); it != fclat["bins"].end(); ++it) {
        const uint64_t v = std::stoull(it.key());
        for (uint64_t c = it.value().get<uint64_t>(); c > 0; --c)
            d.clat_hist.add(v);
        d.clat.add(static_cast<double>(v));
    }
    RunResult r;
    r.jobs = {job};
    const ordered_json out = ordered_json::parse(format_json(r, false));
    CHECK(out["jobs"][0]["read"]["clat_ns"]["percentile"] == fclat["percentile"]);

    // Bin midpoints put a straddling bin on one side of a bucket edge; fio counted exactly.
    // On this run the two differ by at most 0.1 percentage point.
    for (const char* unit : {"latency_ns", "latency_us", "latency_ms"})
        for (auto it = fjob[unit].begin(); it != fjob[unit].end(); ++it) {
            INFO(unit << " " << it.key());
            CHECK(out["jobs"][0][unit][it.key()].get<double>() ==
                  Approx(it.value().get<double>()).margin(0.15));
        }
}
