// `blksim fio` with fio's sync options: a job file with fsync / end_fsync runs on an HDD and
// its report has fio's sync block; bad values exit 2 naming the file, line and option.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <fstream>
#include <string>

namespace {
std::string write_job(const std::string& name, const std::string& text) {
    const std::string path = "/tmp/blksim-flush-test-" + name + ".fio";
    std::ofstream(path) << text;
    return path;
}
}  // namespace

TEST_CASE("blksim fio: a job file with fsync=1 and end_fsync=1 on an HDD reports sync latency and flushes",
          "[cli][fio][flush]") {
    const std::string job = write_job("ok", "[global]\nioengine=psync\ndirect=1\nbs=4k\n\n"
                                            "[w]\nrw=randwrite\nsize=64m\nnumber_ios=50\nfsync=1\nend_fsync=1\n");
    const auto r = clitest::run_blksim("fio -q --device hdd-7200-sata -- " + job);
    INFO(r.out);
    CHECK(r.status == 0);
    CHECK_THAT(r.out, Catch::Contains("  fsync/fdatasync/sync_file_range:\n    sync (usec): min="));
    CHECK_THAT(r.out, Catch::Contains("    sync percentiles (usec):\n"));
    CHECK_THAT(r.out, Catch::Contains("     issued rwts: total=0,50,0,49 "));
    CHECK_THAT(r.out, Catch::Contains("    flushes=50, flush_time_mean="));  // 49 fsyncs + end_fsync
}

TEST_CASE("blksim fio: bad sync option values exit 2 with the file, line and option", "[cli][fio][flush]") {
    for (const std::string bad : {"fsync=-2", "fdatasync=many", "sync=maybe", "end_fsync=yes"}) {
        INFO(bad);
        const std::string job = write_job("bad", "[w]\nrw=write\n" + bad + "\n");
        const auto r = clitest::run_blksim("fio -q --device hdd-7200-sata -- " + job);
        CHECK(r.status == 2);
        CHECK_THAT(r.out, Catch::Contains(job + ":3"));
        CHECK_THAT(r.out, Catch::Contains(bad.substr(0, bad.find('='))));
    }
}
