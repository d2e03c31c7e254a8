// `blksim fio` end to end: fio command lines and job files as written, on a simulated
// machine; the seed experiments' fio commands (docs/references.md §8) pasted verbatim,
// with a shortened runtime appended; exit statuses and one-message errors.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

using Result = clitest::CliResult;
Result blksim(const std::string& args, bool with_stderr = true) { return clitest::run_blksim(args, with_stderr); }
std::string src(const std::string& rel) { return clitest::source_path(rel); }

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/blksim-fio-test-" + name;
    std::ofstream(path) << text;
    return path;
}

// docs/references.md §8, verbatim.
const std::string kE1 =
    "-ioengine=psync -direct=1 -iodepth=1 -thread -bs=512B -size=110g -runtime=300 -time_based -group_reporting "
    "-ioscheduler=mq-deadline";
const std::string kE2 =
    "-ioengine=io_uring -direct=1 -numjobs=32 -iodepth=32 -bs=4k -rw=write -thread -gtod_reduce=1 "
    "-ioscheduler=none -runtime=30 -time_based -group_reporting";

}  // namespace

TEST_CASE("blksim fio: E1's command (mq-deadline, 16 psync 512 B jobs) on one SATA HDD", "[cli][fio][e1]") {
    // Device: one 7200 rpm SATA HDD (scenarios/devices/hdd-7200-sata.json); the published
    // RAID0 behind a SAS3508 is not modelled yet. The table's 16 jobs and a 100 ms run appended.
    for (const std::string rw : {"-rw=read", "-rw=write", "-rw=rw"}) {
        INFO(rw);
        const Result r = blksim("fio -q --device hdd-7200-sata -- " + kE1 + " " + rw + " -numjobs=16 -runtime=100ms");
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Catch::Contains("one job named 'job'"));  // no --name on a mailing-list command line
        CHECK_THAT(r.out, Catch::Contains("job: (groupid=0, jobs=16): err= 0"));
        CHECK_THAT(r.out, Catch::Contains("scheduler=mq-deadline"));
        CHECK_THAT(r.out, Catch::Contains(rw == "-rw=write" ? "  write: IOPS=" : "  read: IOPS="));
    }
}

TEST_CASE("blksim fio: E2's command on E2's null_blk machine gives the scenario's report", "[cli][fio][e2]") {
    // Device: the e2 scenario's null_blk (irqmode=0, completion_nsec=0, blocksize=512).
    const std::string machine = src("scenarios/seeds/e2-nullblk-baseline.json");
    const Result r = blksim("fio -q --device " + machine + " -- " + kE2 + " -runtime=20ms");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("job: (groupid=0, jobs=32): err= 0"));
    CHECK_THAT(r.out, Catch::Contains("  write: IOPS="));
    // Named as the scenario's job, the fio command is that scenario with its gtod_reduce=1
    // (which leaves the latencies out of the report): byte for byte.
    const Result fio = blksim("fio -q --device " + machine + " -- --name=e2 " + kE2 + " -runtime=20ms", false);
    const Result run = blksim("run -q " + machine + " --set jobs.0.runtime=20ms --set jobs.0.gtod_reduce=1", false);
    REQUIRE(run.status == 0);
    CHECK(fio.out == run.out);
}

TEST_CASE("blksim fio: E3's fio job, ioscheduler= switching the NVMe machine's scheduler", "[cli][fio][e3]") {
    // Device: the e3 scenarios' NVMe SSD on the e3-host profile. The mails give no command;
    // this is the one the scenarios describe. ioscheduler=mq-deadline on the "none" machine
    // must give exactly the mq-deadline scenario's report.
    const std::string e3 = "--name=jobs1-4k --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=64 "
                           "--numjobs=1 --runtime=5 --time_based --group_reporting --ioscheduler=mq-deadline";
    const Result fio = blksim("fio -q --device " + src("scenarios/seeds/e3-nvme-jobs1-4k-none.json") + " -- " + e3 +
                                  " --runtime=20ms",
                              false);
    const Result run = blksim("run -q " + src("scenarios/seeds/e3-nvme-jobs1-4k-mq-deadline.json") +
                                  " --set jobs.0.runtime=20ms",
                              false);
    REQUIRE(fio.status == 0);
    CHECK_THAT(fio.out, Catch::Contains("scheduler=mq-deadline"));
    CHECK(fio.out == run.out);
}

TEST_CASE("blksim fio: E4's fio job on the NCQ-priority HDD, per-priority clat", "[cli][fio][e4]") {
    // Device: the e4 scenario's 7200 rpm SATA HDD with ncq_prio_enable=1.
    const std::string e4 = "--name=e4 --ioengine=libaio --direct=1 --rw=randread --bs=128k --iodepth=24 "
                           "--cmdprio_percentage=10 --cmdprio_class=1 --ioscheduler=none --runtime=60 --time_based "
                           "--group_reporting";
    const std::string machine = src("scenarios/seeds/e4-ncq-prio.json");
    const Result fio = blksim("fio -q --device " + machine + " -- " + e4 + " --runtime=300ms", false);
    REQUIRE(fio.status == 0);
    CHECK_THAT(fio.out, Catch::Contains("clat prio 1/0"));
    const Result run = blksim("run -q " + machine + " --set jobs.0.runtime=300ms", false);
    CHECK(fio.out == run.out);
}

TEST_CASE("blksim fio: a real job file (the 6.18 fixture) runs; ${DEV} unset is fio's empty string", "[cli][fio]") {
    const Result r = blksim("fio -q --device nvme --set jobs.0.runtime=10ms -- " +
                            src("test/fixtures/real-linux-6.18/fio/cmdprio10rt.fio"));
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("randread_4k_j2_qd32_libaio_cmdprio10rt: (groupid=0, jobs=1)"));  // no group_reporting: per clone
    CHECK_THAT(r.out, Catch::Contains("clat prio 1/0"));
}

TEST_CASE("blksim fio: fio's --output-format, --output and --parse-only", "[cli][fio]") {
    const std::string job = "--name=x --rw=randread --runtime=5ms --time_based";
    const Result j = blksim("fio -q --device nullb -- --output-format=json " + job, false);
    CHECK(j.status == 0);
    CHECK(j.out.rfind("{", 0) == 0);
    CHECK_THAT(j.out, Catch::Contains("\"jobname\" : \"x\""));
    const Result n = blksim("fio -q --device nullb --output-format normal -- --output-format=json " + job, false);
    CHECK(n.out.rfind("x: (g=0)", 0) == 0);  // blksim's own option wins

    const std::string out = "/tmp/blksim-fio-test-output.txt";
    std::filesystem::remove(out);
    const Result o = blksim("fio -q --device nullb -- --output=" + out + " " + job);
    CHECK(o.status == 0);
    CHECK(o.out.empty());
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    CHECK_THAT(ss.str(), Catch::Contains("x: (groupid=0, jobs=1)"));

    const Result p = blksim("fio --device nvme -- --parse-only " + job + " --numjobs=4");
    CHECK(p.status == 0);
    CHECK_THAT(p.out, Catch::Contains("fio: ok: 1 job(s), 4 thread(s) on nvme"));
}

TEST_CASE("blksim fio: warnings go to stderr; --strict refuses; bad input exits 2 naming file:line", "[cli][fio]") {
    const std::string job = write_temp("warn.fio", "[global]\nrw=randread\nruntime=5ms\ntime_based\n\n[a]\nfilesize=10m\n");
    const Result w = blksim("fio -q --device nullb -- " + job);
    CHECK(w.status == 0);
    CHECK_THAT(w.out, Catch::Contains("blksim: warning: " + job + ": blksim does not support these fio options and runs without them: "
                     "filesize=10m at " + job + ":7"));
    CHECK_THAT(w.out, Catch::Contains("a: (groupid=0, jobs=1)"));
    const Result s = blksim("fio -q --strict --device nullb -- " + job);
    CHECK(s.status == 2);
    CHECK_THAT(s.out, Catch::Contains("blksim: " + job + ": fio options blksim does not support: filesize=10m at " + job + ":7"));
    CHECK_THAT(s.out, !Catch::Contains("groupid"));

    const std::string bad = write_temp("bad.fio", "[a]\nrw=randread\n[b\n");
    const Result b = blksim("fio --device nullb -- " + bad);
    CHECK(b.status == 2);
    CHECK(b.out == "blksim: " + bad + ":3: '[b': a section header is [name], with the ']' at the end of the line\n");

    const Result u = blksim("fio --device nullb -- -name=a -iodepht=4");
    CHECK(u.status == 2);
    CHECK(u.out == "blksim: fio argument 2: -iodepht=4: unknown fio option 'iodepht' (did you mean iodepth?)\n");

    const Result e = blksim("fio --device nullb -- -name=a -ioengine=net");
    CHECK(e.status == 2);
    CHECK_THAT(e.out, Catch::Contains("-ioengine=net (blksim's engines:"));

    const Result v = blksim("fio --device nullb -- -name=a -bs=4k-64k");
    CHECK(v.status == 2);
    CHECK_THAT(v.out, Catch::Contains("fio argument 2: -bs=4k-64k: '4k-64k' is a range"));

    CHECK(blksim("fio --device nullb").status == 2);                  // nothing to run
    CHECK(blksim("fio --device nope -- --name=a").status == 2);       // no such machine
    CHECK_THAT(blksim("fio --device nope -- --name=a").out, Catch::Contains("known: nullb, nvme"));
    CHECK(blksim("fio --device nullb -- /nonexistent.fio").status == 2);
}

TEST_CASE("blksim fio: --scheduler overrides the jobs' ioscheduler=", "[cli][fio]") {
    const Result r = blksim("fio -q --device nullb --scheduler mq-deadline -- -name=a -ioscheduler=none -runtime=5ms -time_based");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("-ioscheduler=none: replaced by --scheduler mq-deadline"));
    CHECK_THAT(r.out, Catch::Contains("scheduler=mq-deadline"));
}

TEST_CASE("blksim fio: bsrange/bssplit in the job line and the JSON job options, as fio 3.33 prints them",
          "[cli][fio]") {
    // fio 3.33 (null engine): "t: (g=0): rw=randrw, bs=(R) 4096B-64.0KiB, (W) 8192B-32.0KiB,
    // (T) 8192B-32.0KiB, ioengine=null, iodepth=1" and "bsrange" : "4k-64k,8k-32k".
    const Result r = blksim("fio -q --device nullb -- --name=t --rw=randrw --bsrange=4k-64k,8k-32k --runtime=10ms "
                            "--time_based --output-format=normal,json");
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("t: (g=0): rw=randrw, bs=(R) 4096B-64.0KiB, (W) 8192B-32.0KiB, (T) 8192B-32.0KiB, "
                     "ioengine=psync, iodepth=1\n"));
    CHECK_THAT(r.out, Catch::Contains("\"bsrange\" : \"4k-64k,8k-32k\""));
    const Result s = blksim("fio -q --device nullb -- --name=t --rw=randread --bssplit=4k/10:64k/90 --runtime=10ms "
                            "--time_based --output-format=normal,json");
    CHECK_THAT(s.out, Catch::Contains("bs=(R) 4096B-64.0KiB, (W) 4096B-64.0KiB, (T) 4096B-64.0KiB"));
    CHECK_THAT(s.out, Catch::Contains("\"bssplit\" : \"4k/10:64k/90\""));
}

TEST_CASE("blksim fio: a job below its rate_min ends with EIO and blksim exits 1, as fio", "[cli][fio]") {
    // fio 3.33: "t: rate_min=1048576B/s not met, got 298113B/s", "fio: pid=13310, err=5/file:
    // backend.c:1131, func=check_min_rate, error=Input/output error", exit status 1.
    const Result r = blksim("fio -q --device nullb -- --name=t --rw=read --thinktime=10ms --rate_min=1m --runtime=5 "
                            "--time_based");
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Catch::Contains("t: (groupid=0, jobs=1): err= 5 (file:backend.c:1131, func=check_min_rate, "
                     "error=Input/output error): pid=1000"));
    CHECK_THAT(r.out, Catch::Contains("t: rate_min=1048576B/s not met, got "));
    CHECK_THAT(r.out, Catch::Contains("fio: pid=1000, err=5/file:backend.c:1131, func=check_min_rate, error=Input/output error"));
    // And a job that keeps its floor exits 0.
    CHECK(blksim("fio -q --device nullb -- --name=t --rw=read --rate_min=1m --runtime=3 --time_based").status == 0);
}

TEST_CASE("blksim fio: bad bssplit / bsrange / rate values exit 2 naming the file, line and option", "[cli][fio]") {
    const std::string f = write_temp("bad-bs.fio", "[global]\nioengine=libaio\n[a]\nbssplit=4k/70:64k/50\n");
    Result r = blksim("fio -q --device nullb -- " + f);
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains(f + ":4: bssplit=4k/70:64k/50: bssplit percentages add up to 120%"));
    const std::string g = write_temp("bad-range.fio", "[a]\nbsrange=64k-4k\n");
    r = blksim("fio -q --device nullb -- " + g);
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains(g + ":2: bsrange=64k-4k: size range '64k-4k' runs backwards"));
    r = blksim("fio -q --device nullb -- --name=a --rate=10mq");
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains("fio argument 2: --rate=10mq: unknown size unit 'mq'"));
}
