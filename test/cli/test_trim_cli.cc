// fio's trims end to end (docs/fio.md, Trims): rw=trim / randtrim / trimwrite / randtrimwrite
// as REQ_OP_DISCARD requests through blk-mq to the devices that take them (null_blk with
// discard, NVMe Dataset Management, a SATA SSD's TRIM), fio's EOPNOTSUPP error on a disk
// without discard, and the report's trim lines in real fio 3.33's shape (its null engine,
// where the output does not depend on timing; skipped with a warning without fio).
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using clitest::CliResult;
using nlohmann::json;

json blksim_json(const std::string& fio_args, const std::string& options = "--device nvme") {
    const CliResult r = clitest::run_blksim("fio -q --output-format json " + options + " -- " + fio_args, false);
    INFO(fio_args << "\n" << r.out);
    REQUIRE(r.status == 0);
    const json doc = json::parse(r.out);
    return doc.at("jobs").at(0);
}

json real_fio_job(const std::string& args) {
    const CliResult r = clitest::shell("cd /tmp && fio --output-format=json --ioengine=null " + args + " 2>/dev/null");
    REQUIRE(r.status == 0);
    const json doc = json::parse(clitest::fio_json_text(r.out));
    return doc.at("jobs").at(0);
}

std::set<std::string> keys(const json& o) {
    std::set<std::string> k;
    for (const auto& [name, v] : o.items())
        k.insert(name);
    return k;
}

double trim_iops(const json& j) { return j.at("trim").at("iops").get<double>(); }
double trim_clat_mean(const json& j) { return j.at("trim").at("clat_ns").at("mean").get<double>(); }

}  // namespace

TEST_CASE("trims: fio's null engine, the same trim object, counts and depths as real fio", "[cli][fio][trim]") {
    const char* jobs[] = {
        "--name=t --size=16m --bs=64k --rw=randtrim",
        "--name=t --size=1m --bs=64k --rw=trimwrite",
        "--name=t --size=1m --bs=64k --rw=randtrimwrite",
        "--name=t --size=1m --bs=4k,4k,64k --rw=trim",
    };
    for (const char* args : jobs) {
        INFO(args);
        const json sj = blksim_json(std::string("--ioengine=null ") + args, "");
        CHECK(sj.at("read").at("total_ios") == 0);
        CHECK(sj.at("trim").at("total_ios").get<uint64_t>() > 0);
        if (!clitest::have_fio())
            continue;
        const json rj = real_fio_job(args);
        for (const char* dir : {"read", "write", "trim"}) {
            INFO(dir);
            CHECK(sj.at(dir).at("total_ios") == rj.at(dir).at("total_ios"));
            CHECK(sj.at(dir).at("io_bytes") == rj.at(dir).at("io_bytes"));
        }
        CHECK(keys(sj.at("trim")) == keys(rj.at("trim")));
        CHECK(sj.at("iodepth_level") == rj.at("iodepth_level"));
    }
}

TEST_CASE("trims: the normal report's trim lines, TRIM group line and issued counts", "[cli][fio][trim]") {
    const CliResult r = clitest::run_blksim(
        "fio -q --device nvme -- --name=t --size=16m --bs=64k --rw=randtrim --randrepeat=1", false);
    REQUIRE(r.status == 0);
    // stat.c show_ddir_status(DDIR_TRIM) and show_group_stats()'s "   TRIM:", as fio 3.33 prints them.
    CHECK_THAT(r.out, Catch::Contains("  trim: IOPS="));
    CHECK_THAT(r.out, Catch::Contains("(16.0MiB/"));
    CHECK_THAT(r.out, Catch::Contains("\n   TRIM: bw="));
    CHECK_THAT(r.out, Catch::Contains("issued rwts: total=0,0,256,0 "));
    CHECK_THAT(r.out, Catch::Contains("bs=(R) 64.0KiB-64.0KiB, (W) 64.0KiB-64.0KiB, (T) 64.0KiB-64.0KiB"));
    CHECK(r.out.find("  read: IOPS=") == std::string::npos);
    CHECK(r.out.find("  write: IOPS=") == std::string::npos);
    // Discards are not in fio's read/write disk stats (the kernel's STAT_DISCARD).
    CHECK_THAT(r.out, Catch::Contains("ios=0/0"));
    // bs=r,w,t: the third value is the trims'.
    const json j = blksim_json("--name=t --size=1m --bs=4k,8k,128k --rw=trim");
    CHECK(j.at("trim").at("total_ios") == 8);
}

TEST_CASE("trims: each device's discard cost sets the trim IOPS", "[cli][fio][trim]") {
    // null_blk takes discards only with discard=1 and memory_backed=1; then as fast as a read.
    const std::string nullb = "--device nullb --set devices.0.params.memory_backed=1 --set devices.0.params.discard=1";
    const json nj = blksim_json("--name=t --size=64m --bs=64k --rw=randtrim --runtime=20ms --time_based", nullb);
    const json nr = blksim_json("--name=t --size=64m --bs=64k --rw=randread --runtime=20ms --time_based", nullb);
    CHECK(trim_iops(nj) > 0.7 * nr.at("read").at("iops").get<double>());

    // NVMe: Dataset Management at 1 us fetch + 20 us deallocate, queued: QD1 psync ~ 1 / 25 us.
    const json v = blksim_json("--name=t --size=1g --bs=64k --rw=randtrim --runtime=20ms --time_based");
    CHECK(trim_iops(v) > 20000);
    CHECK(trim_iops(v) < 48000);
    const json slow = blksim_json("--name=t --size=1g --bs=64k --rw=randtrim --runtime=20ms --time_based",
                                  "--device nvme --set devices.0.params.deallocate_latency=200us");
    CHECK(trim_iops(slow) < 5000);
    // Larger trims cost the same: no data crosses the link.
    const json big = blksim_json("--name=t --size=1g --bs=4m --rw=randtrim --runtime=20ms --time_based");
    CHECK(trim_iops(big) > 0.9 * trim_iops(v));

    // SATA SSD (the 860 EVO: no queued TRIM, libata's NO_NCQ_TRIM): ~1 / 500 us.
    const json s = blksim_json("--name=t --size=1g --bs=64k --rw=randtrim --runtime=50ms --time_based",
                               "--device samsung-860evo-500g");
    CHECK(trim_iops(s) > 1200);
    CHECK(trim_iops(s) < 2000);
}

TEST_CASE("trims: a non-queued TRIM waits for the NCQ queue to drain, a queued one does not", "[cli][fio][trim]") {
    // A reader keeps 32 commands in the drive; a trimmer's TRIM must wait for all of them to
    // complete (and stops new ones) when it is non-queued.
    const std::string jobs = "--name=r --ioengine=libaio --iodepth=32 --rw=randread --bs=4k --size=1g --runtime=50ms "
                             "--time_based --name=t --ioengine=psync --rw=randtrim --bs=64k --size=1g --offset=1g "
                             "--runtime=50ms --time_based --group_reporting=0";
    auto run = [&](const char* queued) {
        const CliResult r = clitest::run_blksim(
            std::string("fio -q --output-format json --device samsung-860evo-500g --set devices.0.params.trim_queued=") +
                queued + " -- " + jobs, false);
        REQUIRE(r.status == 0);
        return json::parse(r.out).at("jobs");
    };
    const json nonq = run("0"), q = run("1");
    CHECK(trim_clat_mean(nonq.at(1)) > trim_clat_mean(q.at(1)) + 50000.0);  // the drain: > 50 us more
    CHECK(nonq.at(0).at("read").at("iops").get<double>() < q.at(0).at("read").at("iops").get<double>());
}

TEST_CASE("trims: a disk without discard fails the job with fio's EOPNOTSUPP", "[cli][fio][trim]") {
    for (const std::string device : {"--device hdd-7200-sata", "--device nvme --set devices.0.params.dsm=0",
                                     "--device nullb --set devices.0.params.discard=1"}) {
        INFO(device);
        const CliResult r = clitest::run_blksim("fio " + device + " -- --name=t --size=1m --bs=64k --rw=randtrim");
        CHECK(r.status == 1);  // fio's exit status for a job error
        CHECK_THAT(r.out, Catch::Contains("fio: pid=") &&
                              Catch::Contains(", err=95/file:ioengines.c:399, func=td_io_queue, error=Operation not "
                                              "supported\n"));
        CHECK_THAT(r.out, Catch::Contains("err=95 (file:ioengines.c:399, func=td_io_queue, error=Operation not "
                                          "supported): pid="));
        CHECK_THAT(r.out, Catch::Contains("issued rwts: total=0,0,1,0 "));
        // The failed ioctl's call is counted submitted and completed, as fio's engines do.
        CHECK_THAT(r.out, Catch::Contains("     complete  : 0=0.0%, 4=100.0%,"));
        CHECK(r.out.find("  trim: IOPS=") == std::string::npos);
    }
}

TEST_CASE("trims: discards are 'D' in the block trace, and never merge", "[cli][fio][trim]") {
    const CliResult r = clitest::run_blksim(
        "fio -q --device nvme --trace - -- --name=t --size=1m --bs=64k --rw=trim", false);
    REQUIRE(r.status == 0);
    // blkparse: "259,0 cpu seq time pid Q D sector + 128 [fio]": the discard's rwbs is "D"
    // (no REQ_SYNC on blkdev_issue_discard()'s bios).
    CHECK_THAT(r.out, Catch::Contains(" Q   D 0 + 128 "));
    CHECK_THAT(r.out, Catch::Contains(" C   D 128 + 128 "));
    CHECK(r.out.find(" M   D") == std::string::npos);
}

TEST_CASE("trims: libaio and io_uring run each trim as a blocking ioctl, alone", "[cli][fio][trim]") {
    // fio's FIO_ASYNCIO_SYNC_TRIM: ->queue runs do_io_u_trim() itself, so a trim job's depth
    // is 1 whatever iodepth says, and its IOPS are psync's.
    const std::string job = "--name=t --size=1g --bs=64k --rw=randtrim --runtime=20ms --time_based";
    const json p = blksim_json(job + " --ioengine=psync");
    // hipri: the discard is waited for, not polled (blkdev_issue_discard() sets no REQ_POLLED).
    // sqthread_poll: the ioctl is the job's, not the SQ thread's.
    for (const char* engine : {"libaio", "io_uring", "io_uring --hipri", "io_uring --sqthread_poll=1"}) {
        INFO(engine);
        const json a = blksim_json(job + " --ioengine=" + engine + " --iodepth=16");
        CHECK(trim_iops(a) > 0.8 * trim_iops(p));
        CHECK(trim_iops(a) < 1.25 * trim_iops(p));
        CHECK(a.at("iodepth_level").at("1").get<double>() == 100.0);
        CHECK(a.at("trim").at("clat_ns").at("mean").get<double>() > 20000.0);  // the 20 us deallocate
        // No slat: td_io_queue() got FIO_Q_COMPLETED, so io_u_queued() never added one.
        CHECK(a.at("trim").at("slat_ns").at("N") == 0);
    }
    // trimwrite: the writes stay asynchronous (up to iodepth in flight), each trim waits for
    // what is queued to be committed, then blocks; a trim and a write of each block.
    const json tw = blksim_json("--name=t --size=64m --bs=64k --rw=trimwrite --ioengine=libaio --iodepth=16");
    CHECK(tw.at("trim").at("total_ios") == 1024);
    CHECK(tw.at("write").at("total_ios") == 1024);
    CHECK(tw.at("write").at("io_bytes") == 64 * 1024 * 1024);
    // On a disk without discard, the first trim fails as with psync.
    const CliResult e = clitest::run_blksim(
        "fio --device hdd-7200-sata -- --name=t --size=1m --bs=64k --rw=randtrim --ioengine=libaio --iodepth=8");
    CHECK(e.status == 1);
    CHECK_THAT(e.out, Catch::Contains("error=Operation not supported"));
    // The same with an SQ thread (it took the trim through its ring and split the discard by
    // a max_discard_sectors of 0: SIGFPE).
    const CliResult sq = clitest::run_blksim("fio --device hdd-7200-sata -- --name=t --size=1m --bs=64k --rw=randtrim "
                                             "--ioengine=io_uring --sqthread_poll=1 --iodepth=8");
    CHECK(sq.status == 1);
    CHECK_THAT(sq.out, Catch::Contains("error=Operation not supported"));
}

TEST_CASE("trims: what the model keeps per read/write direction only is refused with trims", "[cli][fio][trim]") {
    const CliResult b = clitest::run_blksim("fio --device nvme -- --name=t --size=1m --rw=trimwrite --rate=1m");
    CHECK(b.status == 2);
    CHECK_THAT(b.out, Catch::Contains("rate with rw=trimwrite is not modelled"));
}
