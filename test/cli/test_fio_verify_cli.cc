// fio's verify= as blksim models it (docs/fio.md, Verify): a job that wrote reads it all back
// once its writes are done, counted in its read section with its own runtime, and pays the
// checksum's CPU time per byte. The I/O counts are compared with real fio 3.33 writing a
// small temporary file (they do not depend on timing); without fio that comparison is
// skipped with a warning. Also: zonemode=zbd is refused, naming what is missing.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using clitest::CliResult;

json blksim_job(const std::string& args) {
    const CliResult r = clitest::run_blksim("fio -q --output-format json --device nvme -- " + args, false);
    INFO(r.out);
    REQUIRE(r.status == 0);
    const json doc = json::parse(r.out);
    return doc["jobs"][0];
}

}  // namespace

TEST_CASE("fio verify: a write job reads back what it wrote, in its read section, as fio counts it",
          "[cli][fio][fio-verify]") {
    const std::string job = "--name=v --rw=randwrite --bs=4k --size=1m --ioengine=libaio --iodepth=4";
    const json plain = blksim_job(job);
    const json v = blksim_job(job + " --verify=crc32c");
    CHECK(plain["read"]["io_bytes"].get<uint64_t>() == 0);
    CHECK(v["write"]["io_bytes"].get<uint64_t>() == 1048576);
    CHECK(v["read"]["io_bytes"].get<uint64_t>() == v["write"]["io_bytes"].get<uint64_t>());
    CHECK(v["read"]["total_ios"].get<uint64_t>() == 256);
    // The read-back runs after the writes: the job runs longer, each direction for its part.
    CHECK(v["job_runtime"].get<uint64_t>() > plain["job_runtime"].get<uint64_t>());
    CHECK(v["read"]["runtime"].get<uint64_t>() > 0);
    CHECK(v["read"]["runtime"].get<uint64_t>() < v["job_runtime"].get<uint64_t>());
    CHECK(v["write"]["runtime"].get<uint64_t>() < v["job_runtime"].get<uint64_t>());

    if (!clitest::have_fio())
        return;
    const clitest::TempDir t("fio-verify");
    // --verify_state_save=0: fio would leave its verify state file in the current directory.
    const CliResult r = clitest::shell("fio --output-format=json --verify_state_save=0 --filename=" +
                                       (t.dir / "f").string() + " " + job + " --verify=crc32c 2>/dev/null");
    REQUIRE(r.status == 0);
    const json real = json::parse(clitest::fio_json_text(r.out))["jobs"][0];
    CHECK(real["read"]["io_bytes"] == v["read"]["io_bytes"]);
    CHECK(real["read"]["total_ios"] == v["read"]["total_ios"]);
    CHECK(real["write"]["total_ios"] == v["write"]["total_ios"]);
}

TEST_CASE("fio verify: the checksum's CPU time follows the algorithm; do_verify=0 and time_based skip the read-back",
          "[cli][fio][fio-verify]") {
    const std::string job = "--name=v --rw=write --bs=64k --size=16m --ioengine=psync";
    const json none = blksim_job(job);
    const json crc = blksim_job(job + " --verify=crc32c");
    const json md5 = blksim_job(job + " --verify=md5");
    const double usr_none = none["usr_cpu"].get<double>();
    const double usr_crc = crc["usr_cpu"].get<double>();
    const double usr_md5 = md5["usr_cpu"].get<double>();
    INFO("usr_cpu: none " << usr_none << ", crc32c " << usr_crc << ", md5 " << usr_md5);
    CHECK(usr_crc > usr_none);
    CHECK(usr_md5 > usr_crc);
    CHECK(md5["read"]["io_bytes"] == crc["read"]["io_bytes"]);

    const json no_read_back = blksim_job(job + " --verify=md5 --do_verify=0");
    CHECK(no_read_back["read"]["io_bytes"].get<uint64_t>() == 0);
    CHECK(no_read_back["usr_cpu"].get<double>() > usr_none);  // the writes are still checksummed

    // fio: "verification read phase will never start because write phase uses all of runtime".
    const json timed = blksim_job(job + " --verify=md5 --time_based --runtime=20ms");
    CHECK(timed["read"]["io_bytes"].get<uint64_t>() == 0);
    CHECK(timed["write"]["io_bytes"].get<uint64_t>() > 0);

    const CliResult bad = clitest::run_blksim("fio -q --device nvme -- " + job + " --verify=crc99");
    CHECK(bad.status == 2);
    CHECK(bad.out.find("verify") != std::string::npos);
}

TEST_CASE("fio zonemode=zbd is refused, naming what the model lacks", "[cli][fio][fio-verify]") {
    const CliResult r = clitest::run_blksim("fio -q --device nvme -- --name=z --rw=write --zonemode=zbd");
    CHECK(r.status == 2);
    CHECK(r.out.find("zoned block devices are not modelled: docs/fio.md, Zoned block devices") != std::string::npos);
}
