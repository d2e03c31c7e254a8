// fio's null engine: blksim fio runs it without --device, as fio runs it without a file, and
// its report has real fio 3.33's shape for the same job: the JSON keys, io_bytes, total_ios,
// the IO depth maps (which do not depend on timing for this engine) and no disk_util. The
// comparison runs /usr/bin/fio; without fio installed it is skipped with a warning.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;
using clitest::CliResult;

using clitest::have_fio;

json real_fio(const std::string& args) {
    const CliResult r = clitest::shell("cd /tmp && fio --output-format=json --ioengine=null " + args + " 2>/dev/null");
    REQUIRE(r.status == 0);
    return json::parse(clitest::fio_json_text(r.out));
}

json blksim(const std::string& args) {
    const CliResult r = clitest::run_blksim("fio -q --output-format json -- --ioengine=null " + args, false);
    REQUIRE(r.status == 0);
    return json::parse(r.out);
}

// A JSON object's keys, recursively for objects ("read.clat_ns.percentile" ...), leaving out
// what depends on the run's timing (which latency buckets and percentiles are present).
void keys_of(const json& j, const std::string& prefix, std::set<std::string>& out) {
    for (const auto& [k, v] : j.items()) {
        const std::string key = prefix + k;
        out.insert(key);
        // "job options" echoes what each command line gave (blksim's lists its own subset).
        if (v.is_object() && k != "percentile" && k != "bins" && k != "job options" && !k.starts_with("latency_"))
            keys_of(v, key + ".", out);
    }
}

std::set<std::string> job_keys(const json& doc) {
    std::set<std::string> keys;
    keys_of(doc.at("jobs").at(0), "", keys);
    return keys;
}

}  // namespace

TEST_CASE("fio's null engine: the same fields, bytes, I/O counts and depths as real fio", "[cli][fio][null-engine]") {
    const char* jobs[] = {
        "--name=a --size=1m --bs=4k --rw=randread --number_ios=100",
        "--name=b --size=1m --bs=4k --rw=randread --iodepth=8 --number_ios=100",
        "--name=c --size=1m --bs=4k --rw=randrw --iodepth=4 --number_ios=200",
        "--name=d --size=1m --bs=4k --rw=read --iodepth=8 --iodepth_batch_submit=8 --number_ios=96",
        "--name=e --size=64k --bs=4k --rw=write",
    };
    for (const char* args : jobs) {
        INFO(args);
        const json sim = blksim(args);
        const json& sj = sim.at("jobs").at(0);
        CHECK_FALSE(sim.contains("disk_util"));
        CHECK(sj.at("job options").at("ioengine") == "null");
        if (!have_fio())
            continue;
        const json real = real_fio(args);
        const json& rj = real.at("jobs").at(0);
        CHECK_FALSE(real.contains("disk_util"));
        const bool mixed = std::string(args).find("randrw") != std::string::npos;
        for (const char* dir : {"read", "write"}) {
            // fio's mix of a randrw job is drawn; only the totals are fixed.
            if (!mixed) {
                CHECK(sj.at(dir).at("io_bytes") == rj.at(dir).at("io_bytes"));
                CHECK(sj.at(dir).at("total_ios") == rj.at(dir).at("total_ios"));
            }
            CHECK((sj.at(dir).at("slat_ns").at("N") == 0) == (rj.at(dir).at("slat_ns").at("N") == 0));
        }
        CHECK(sj.at("read").at("total_ios").get<uint64_t>() + sj.at("write").at("total_ios").get<uint64_t>() ==
              rj.at("read").at("total_ios").get<uint64_t>() + rj.at("write").at("total_ios").get<uint64_t>());
        CHECK(sj.at("read").at("io_bytes").get<uint64_t>() + sj.at("write").at("io_bytes").get<uint64_t>() ==
              rj.at("read").at("io_bytes").get<uint64_t>() + rj.at("write").at("io_bytes").get<uint64_t>());
        CHECK(sj.at("iodepth_level") == rj.at("iodepth_level"));
        CHECK(sj.at("iodepth_submit") == rj.at("iodepth_submit"));
        CHECK(sj.at("iodepth_complete") == rj.at("iodepth_complete"));
        CHECK(sj.at("latency_depth") == rj.at("latency_depth"));
        const std::set<std::string> sk = job_keys(sim), rk = job_keys(real);
        for (const std::string& k : rk)
            CHECK((k + (sk.count(k) ? "" : " missing in blksim's report")) == k);
    }
}

TEST_CASE("fio's null engine: IOPS set by the CPU profile's fio costs; another engine needs --device",
          "[cli][fio][null-engine]") {
    // desktop-8t: io_prep 113 ns + io_complete 151 ns per I/O, no syscall: 1 / 264 ns.
    const json sim = blksim("--name=a --size=1g --bs=4k --rw=randread --runtime=10ms --time_based");
    const double iops = sim.at("jobs").at(0).at("read").at("iops").get<double>();
    CHECK(iops > 3.5e6);
    CHECK(iops < 4.0e6);
    const json j = sim.at("jobs").at(0);
    CHECK(j.at("sys_cpu").get<double>() == 0.0);
    CHECK(j.at("usr_cpu").get<double>() > 99.0);
    // A slower profile's fio loop costs more.
    const CliResult slow = clitest::run_blksim(
        "fio -q --output-format json --set host.cost_profile=loop-vm-2cpu -- --ioengine=null --name=a --size=1g "
        "--bs=4k --rw=randread --runtime=10ms --time_based", false);
    REQUIRE(slow.status == 0);
    CHECK(json::parse(slow.out).at("jobs").at(0).at("read").at("iops").get<double>() != iops);

    const CliResult r = clitest::run_blksim("fio -- --name=a --ioengine=libaio --size=1m");
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains("job 'a': ioengine=libaio needs a device: give --device"));
    // Same seed, same output.
    CHECK(blksim("--name=a --size=1m --bs=4k --iodepth=4") == blksim("--name=a --size=1m --bs=4k --iodepth=4"));
}
