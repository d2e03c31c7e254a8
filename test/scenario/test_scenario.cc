// The scenario loader (tools/scenario/scenario.h): good scenarios decode to the right typed
// values; every kind of bad input gives one message naming the file and the JSON path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/device/raid_config.h"
#include "models/device/null_blk_config.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/schema_check.h"

namespace {

using namespace blksim;
using namespace sim::literals;
using scenario::Scenario;
using scenario::ScenarioError;
using json = nlohmann::json;
namespace fs = std::filesystem;

// The smallest scenario: one null_blk device, one job.
constexpr const char* kMinimal = R"({
  "host": { "cost_profile": "desktop-8t" },
  "devices": [ { "name": "nullb0", "model": "null_blk", "params": {} } ],
  "jobs": [ { "name": "j" } ]
})";

// The example of the scenario format.
constexpr const char* kExample = R"({
  "description": "free text",
  "seed": 1,
  "host": { "cpus": 8, "cost_profile": "desktop-8t", "costs": { "syscall": "120ns" } },
  "devices": [ { "name": "nullb0", "model": "null_blk",
                 "params": { "irqmode": 0, "completion_nsec": 0, "hw_queue_depth": 64, "submit_queues": 1, "blocksize": 512, "gb": 250 } } ],
  "queues": [ { "device": "nullb0", "scheduler": "none", "nr_requests": 64, "max_sectors_kb": 1280, "nomerges": 0, "rq_affinity": 1 } ],
  "global": { "direct": 1 },
  "jobs": [ { "name": "w", "device": "nullb0", "ioengine": "io_uring", "rw": "randwrite", "bs": "4k",
              "iodepth": 32, "numjobs": 32, "runtime": "1s", "time_based": true } ],
  "output": { "format": "normal", "group_reporting": true }
})";

// Two devices (the second with 4 KiB blocks and 1 GB), for reference and region checks.
constexpr const char* kTwoDevices = R"({
  "host": { "cost_profile": "desktop-8t" },
  "devices": [ { "name": "a", "model": "null_blk" },
               { "name": "b", "model": "null_blk", "params": { "blocksize": 4096, "gb": 1 } } ],
  "jobs": [ { "name": "x", "device": "a" } ]
})";

Scenario load(const std::string& text, const std::vector<std::string>& sets = {}) {
    return scenario::load_scenario_text(text, "test.json", sets);
}

// The error message loading gives; fails the test if loading succeeds.
std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
        load(text, sets);
    } catch (const ScenarioError& e) {
        return e.what();
    }
    FAIL("expected a ScenarioError");
    return {};
}

// A fresh directory for files a test writes, removed at the end of the test.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() /
               ("blksim_test_scenario_" + name + "_" + std::to_string(std::random_device{}()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    fs::path write(const std::string& file, const std::string& text) const {
        std::ofstream(path / file) << text;
        return path / file;
    }
};

// The schema as the loader checks against it: the file with the kinds' generated parts.
json read_schema() { return scenario::load_schema_document(scenario::default_scenario_dir()); }

}  // namespace

// --- good scenarios -------------------------------------------------------------------

TEST_CASE("the format example decodes to typed values", "[scenario]") {
    const Scenario s = load(kExample);
    CHECK(s.path == "test.json");
    CHECK(s.description == "free text");
    CHECK(s.output.formats == "normal");
    CHECK(s.output.group_reporting);

    const auto& m = s.machine;
    CHECK(m.seed == 1);
    CHECK(m.host.nr_cpus == 8);
    CHECK(m.host.cost_profile == "desktop-8t");
    CHECK(m.host.costs.syscall == 120_ns);      // overridden
    // The rest come from the shipped profile, whatever its calibration says today.
    const auto profile = nlohmann::json::parse(
        std::ifstream(fs::path(scenario::default_scenario_dir()) / "cpu" / "desktop-8t.json"));
    CHECK(m.host.costs.io_prep.count() == std::stoll(profile["costs"]["io_prep"].get<std::string>()));
    CHECK(m.host.costs.context_switch.count() ==
          std::stoll(profile["costs"]["context_switch"].get<std::string>()));

    REQUIRE(m.devices.size() == 1);
    const auto& d = m.devices[0];
    CHECK(d.name == "nullb0");
    CHECK(d.kind().name() == "null_blk");
    CHECK(d.as<dev::NullBlkConfig>().irqmode == dev::NullBlkConfig::IrqMode::NONE);
    CHECK(d.as<dev::NullBlkConfig>().completion_nsec == 0_ns);
    CHECK(d.as<dev::NullBlkConfig>().hw_queue_depth == 64);
    CHECK(d.as<dev::NullBlkConfig>().submit_queues == 1);
    CHECK(d.as<dev::NullBlkConfig>().blocksize == 512);
    CHECK(d.as<dev::NullBlkConfig>().size_bytes == 250'000'000'000ULL);

    REQUIRE(m.queues.size() == 1);
    CHECK(m.queues[0].device == "nullb0");
    CHECK(m.queues[0].scheduler == "none");
    CHECK(m.queues[0].nr_requests == 64);

    REQUIRE(m.jobs.size() == 1);
    const auto& j = m.jobs[0];
    CHECK(j.name == "w");
    CHECK(j.device == "nullb0");
    CHECK(j.ioengine == workload::IoEngine::IO_URING);
    CHECK(j.rw == workload::RwPattern::RANDWRITE);
    CHECK(j.bs_read == 4096);
    CHECK(j.bs_write == 4096);
    CHECK(j.iodepth == 32);
    CHECK(j.numjobs == 32);
    CHECK(j.runtime == 1_s);
    CHECK(j.time_based);
    CHECK(j.direct);
}

TEST_CASE("defaults: kernel and fio defaults fill what a scenario leaves out", "[scenario]") {
    const Scenario s = load(kMinimal);
    const auto& m = s.machine;
    CHECK(s.description.empty());
    CHECK(m.seed == 0);
    CHECK(m.host.nr_cpus == 8);  // the profile's
    CHECK(m.host.submit_bio_plug);           // a 6.11+ kernel
    CHECK(m.host.os_noise == sim::Duration{});  // no extra noise
    CHECK(m.host.os_jitter);                    // ticks, other tasks, wake-up latency
    CHECK(s.output.formats == "normal");
    CHECK_FALSE(s.output.group_reporting);

    const dev::NullBlkConfig& nb = m.devices.at(0).as<dev::NullBlkConfig>();
    CHECK(nb.irqmode == dev::NullBlkConfig::IrqMode::SOFTIRQ);
    CHECK(nb.completion_nsec == 10_us);
    CHECK(nb.hw_queue_depth == 64);
    CHECK(nb.blocksize == 512);
    CHECK(nb.size_bytes == 250'000'000'000ULL);

    REQUIRE(m.queues.size() == 1);  // a default queue for the device
    CHECK(m.queues[0].device == "nullb0");
    CHECK(m.queues[0].scheduler == "none");
    CHECK(m.queues[0].max_sectors_kb == 1280);
    CHECK(m.queues[0].rq_affinity == 1);

    const workload::JobConfig& j = m.jobs.at(0);
    CHECK(j.device == "nullb0");  // the only device
    CHECK(j.ioengine == workload::IoEngine::PSYNC);
    CHECK(j.rw == workload::RwPattern::READ);
    CHECK(j.rwmixread == 50);
    CHECK(j.bs_read == 4096);
    CHECK(j.bs_write == 4096);
    CHECK(j.size == 0);
    CHECK(j.offset == 0);
    CHECK(j.numjobs == 1);
    CHECK(j.iodepth == 1);
    CHECK(j.iodepth_batch_submit == 1);
    CHECK(j.iodepth_batch_complete_min == 1);
    CHECK(j.iodepth_batch_complete_max == 1);  // fio: defaults to iodepth_batch_complete_min
    CHECK(j.runtime == 0_s);
    CHECK_FALSE(j.time_based);
    CHECK_FALSE(j.randseed);
    CHECK(j.direct);
    CHECK(j.groupid == 0);
    CHECK_FALSE(j.stonewall);
    CHECK(j.cpus_allowed.empty());
}

TEST_CASE("host: submit_bio_plug, os_jitter and os_noise are read, and refused when wrong", "[scenario]") {
    const Scenario s =
        load(kMinimal, {"host.submit_bio_plug=false", "host.os_noise=\"2500ns\"", "host.os_jitter=false"});
    CHECK_FALSE(s.machine.host.submit_bio_plug);
    CHECK_FALSE(s.machine.host.os_jitter);
    CHECK_THAT(error_of(kMinimal, {"host.os_jitter=\"off\""}),
               Catch::Contains("/host/os_jitter") && Catch::Contains("expected true or false"));
    CHECK(s.machine.host.os_noise == 2500_ns);
    CHECK(load(kMinimal, {"host.os_noise=800"}).machine.host.os_noise == 800_ns);  // bare: ns
    CHECK_THAT(error_of(kMinimal, {"host.submit_bio_plug=1"}),
               Catch::Contains("/host/submit_bio_plug") && Catch::Contains("expected true or false"));
    CHECK_THAT(error_of(kMinimal, {"host.os_noise=\"2s\""}),
               Catch::Contains("/host/os_noise") && Catch::Contains("unit mistake"));
    CHECK_THAT(error_of(kMinimal, {"host.os_noise=\"-1us\""}), Catch::Contains("/host/os_noise"));
}

TEST_CASE("host: shared_llc defaults to true, is read, and refused when not a boolean", "[scenario]") {
    CHECK(load(kMinimal).machine.host.shared_llc);
    CHECK_FALSE(load(kMinimal, {"host.shared_llc=false"}).machine.host.shared_llc);
    CHECK_THAT(error_of(kMinimal, {"host.shared_llc=0"}),
               Catch::Contains("/host/shared_llc") && Catch::Contains("expected true or false"));
}

TEST_CASE("host: run_to_parity defaults to false, is read from the host and the profile, and refused when "
          "not a boolean", "[scenario]") {
    CHECK_FALSE(load(kMinimal).machine.host.run_to_parity);
    CHECK(load(kMinimal, {"host.run_to_parity=true"}).machine.host.run_to_parity);
    // loop-vm-2cpu (Linux 6.18) says true and shared_llc false; the host's value wins.
    CHECK(load(kMinimal, {"host.cost_profile=\"loop-vm-2cpu\""}).machine.host.run_to_parity);
    CHECK_FALSE(load(kMinimal, {"host.cost_profile=\"loop-vm-2cpu\""}).machine.host.shared_llc);
    CHECK_FALSE(load(kMinimal, {"host.cost_profile=\"loop-vm-2cpu\"", "host.run_to_parity=false"}).machine.host.run_to_parity);
    CHECK_THAT(error_of(kMinimal, {"host.run_to_parity=1"}),
               Catch::Contains("/host/run_to_parity") && Catch::Contains("expected true or false"));
}

TEST_CASE("host: vcpu_preemption defaults to none, is read as classes, and refused beyond half a vCPU",
          "[scenario]") {
    CHECK(load(kMinimal).machine.host.vcpu_preemption.empty());
    const auto v = load(kMinimal, {R"(host.vcpu_preemption=[{"per_s": 1000, "mean": "30us"}, {"per_s": 2.5, "mean": 3000000}])"})
                       .machine.host.vcpu_preemption;
    REQUIRE(v.size() == 2);
    CHECK(v[0].per_s == 1000.0);
    CHECK(v[0].mean == sim::Duration::ns(30'000));
    CHECK(v[1].per_s == 2.5);
    CHECK(v[1].mean == sim::Duration::ns(3'000'000));
    CHECK_THAT(error_of(kMinimal, {R"(host.vcpu_preemption=[{"per_s": 1000, "mean": "1ms"}])"}),
               Catch::Contains("/host/vcpu_preemption: the stalls would take 1 of every second") &&
                   Catch::Contains("under 0.5"));
    CHECK_THAT(error_of(kMinimal, {R"(host.vcpu_preemption=[{"per_s": 10, "mean": "0us"}])"}),
               Catch::Contains("/host/vcpu_preemption/0/mean: a stall's mean must be above 0"));
    CHECK_THAT(error_of(kMinimal, {R"(host.vcpu_preemption=[{"per_s": 10}])"}),
               Catch::Contains("/host/vcpu_preemption/0") && Catch::Contains("mean"));
    CHECK_THAT(error_of(kMinimal, {R"(host.vcpu_preemption=[{"per_s": -1, "mean": 5}])"}),
               Catch::Contains("/host/vcpu_preemption/0/per_s"));
}

TEST_CASE("fio value syntax: units, read/write sizes, strings of digits", "[scenario]") {
    const Scenario s = load(kMinimal, {"jobs.0.bs=4k,8k", "jobs.0.runtime=2m", "jobs.0.ramp_time=10",
                                       "jobs.0.iodepth=\"32\"", "jobs.0.size=1g", "jobs.0.offset=1m",
                                       "devices.0.params.completion_nsec=5us"});
    const auto& j = s.machine.jobs.at(0);
    CHECK(j.bs_read == 4096);
    CHECK(j.bs_write == 8192);
    CHECK(j.runtime == 120_s);
    CHECK(j.ramp_time == 10_s);  // a bare number is seconds
    CHECK(j.iodepth == 32);
    CHECK(j.size == 1ULL << 30);
    CHECK(j.offset == 1ULL << 20);
    CHECK(s.machine.devices[0].as<dev::NullBlkConfig>().completion_nsec == 5_us);
    CHECK(load(kMinimal, {"devices.0.params.completion_nsec=250"}).machine.devices[0].as<dev::NullBlkConfig>().completion_nsec == 250_ns);
    CHECK(load(kMinimal, {"jobs.0.bs=8192"}).machine.jobs[0].bs_write == 8192);
}

TEST_CASE("JSON jobs take fio's block size, rate, thinktime and cmdprio options", "[scenario]") {
    constexpr const char* kJob = R"({
      "host": { "cost_profile": "desktop-8t" },
      "devices": [ { "name": "nullb0", "model": "null_blk" } ],
      "jobs": [ { "name": "j", "ioengine": "libaio", "rw": "randrw", "bssplit": "4k/10:64k/90,8k",
                  "blockalign": "4k", "rate": "1m,512k", "rate_iops_min": 10, "rate_process": "poisson",
                  "thinktime": "2ms", "thinktime_spin": 500, "thinktime_blocks": "16",
                  "thinktime_blocks_type": "issue", "cmdprio_bssplit": "64k/25/2/7",
                  "cmdprio_class": "1,3" } ]
    })";
    const Scenario s = load(kJob);
    const auto& j = s.machine.jobs.at(0);
    CHECK(j.bs_read == 4096);
    CHECK(j.bs_range[0].max == 65536);
    CHECK(j.bs_range[0].split == std::vector<workload::BsSplitEntry>{{4096, 10}, {65536, 90}});
    CHECK(j.bs_write == 8192);
    CHECK(j.bs_range[1].max == 0);
    CHECK(j.blockalign[0] == 4096);
    CHECK(j.rate.bps[0] == 1 << 20);
    CHECK(j.rate.bps[1] == 512 << 10);
    CHECK(j.rate.min_iops[1] == 10);
    CHECK(j.rate.poisson);
    CHECK(j.thinktime.time == 2_ms);
    CHECK(j.thinktime.spin == 500_us);
    CHECK(j.thinktime.blocks == 16);
    CHECK(j.thinktime.blocks_issue);
    CHECK(j.cmdprio[0].bssplit == std::vector<workload::CmdprioSplit>{{65536, 25, 2, 7}});
    CHECK(j.cmdprio[1].ioprio_class == 3);
    // Bad values: file, JSON path, what is wrong.
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bssplit=4k/60:8k/60"}),
               Catch::StartsWith("test.json: /jobs/0/bssplit: bssplit percentages add up to 120%"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bsrange=64k-4k"}),
               Catch::StartsWith("test.json: /jobs/0/bsrange: size range '64k-4k' runs backwards"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bsrange=4k-64x"}),
               Catch::StartsWith("test.json: /jobs/0/bsrange: unknown size unit 'x' in '64x'"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.rate_iops=1000", "jobs.0.rate_iops_min=2000"}),
               Catch::StartsWith("test.json: /jobs/0/rate_iops_min: rate_iops_min 2000 (reads) exceeds rate_iops 1000"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.thinktime_blocks_type=never"}),
               Catch::StartsWith("test.json: /jobs/0/thinktime_blocks_type:"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.cmdprio_bssplit=64k/50"}),
               Catch::StartsWith("test.json: /jobs/0/cmdprio_bssplit: cmdprio_bssplit is an option of the libaio and "
                                 "io_uring engines (this job uses psync)"));
}

TEST_CASE("kb_base=1000 switches the size prefixes", "[scenario]") {
    CHECK(load(kMinimal, {"jobs.0.kb_base=1000", "jobs.0.bs=4KiB"}).machine.jobs[0].bs_read == 4096);
    CHECK(load(kMinimal, {"jobs.0.kb_base=1000", "jobs.0.size=1m"}).machine.jobs[0].size == 1'000'000);
}

TEST_CASE("rw and ioengine names map to the typed enums", "[scenario]") {
    using workload::IoEngine;
    using workload::RwPattern;
    const std::vector<std::pair<std::string, RwPattern>> rws = {
        {"read", RwPattern::READ},         {"write", RwPattern::WRITE}, {"randread", RwPattern::RANDREAD},
        {"randwrite", RwPattern::RANDWRITE}, {"rw", RwPattern::RW},     {"readwrite", RwPattern::RW},
        {"randrw", RwPattern::RANDRW},       {"trim", RwPattern::TRIM},     {"randtrim", RwPattern::RANDTRIM},
        {"trimwrite", RwPattern::TRIMWRITE}, {"randtrimwrite", RwPattern::RANDTRIMWRITE}};
    for (const auto& [name, rw] : rws) {
        INFO(name);
        CHECK(load(kMinimal, {"jobs.0.rw=" + name}).machine.jobs[0].rw == rw);
    }
    // readwrite= is also fio's alias of the option name rw=.
    CHECK(load(kMinimal, {"jobs.0.readwrite=randwrite"}).machine.jobs[0].rw == RwPattern::RANDWRITE);

    const std::vector<std::pair<std::string, IoEngine>> engines = {
        {"psync", IoEngine::PSYNC}, {"pvsync", IoEngine::PSYNC}, {"sync", IoEngine::PSYNC},
        {"libaio", IoEngine::LIBAIO}, {"io_uring", IoEngine::IO_URING}};
    for (const auto& [name, engine] : engines) {
        INFO(name);
        CHECK(load(kMinimal, {"jobs.0.ioengine=" + name}).machine.jobs[0].ioengine == engine);
    }
}

TEST_CASE("rwmixwrite sets rwmixread = 100 - value", "[scenario]") {
    CHECK(load(kMinimal, {"jobs.0.rw=randrw", "jobs.0.rwmixread=70"}).machine.jobs[0].rwmixread == 70);
    CHECK(load(kMinimal, {"jobs.0.rw=randrw", "jobs.0.rwmixwrite=30"}).machine.jobs[0].rwmixread == 70);
    // the job's option wins over global's, whichever of the two names each uses
    CHECK(load(kMinimal, {"global={\"rwmixread\": 10}", "jobs.0.rwmixwrite=30"}).machine.jobs[0].rwmixread == 70);
}

TEST_CASE("global options apply to every job; a job's own override them", "[scenario]") {
    const Scenario s = load(R"({
      "host": { "cost_profile": "desktop-8t" },
      "devices": [ { "name": "nullb0", "model": "null_blk" } ],
      "global": { "ioengine": "libaio", "iodepth": 16, "rw": "randread", "runtime": "5s", "group_reporting": 1 },
      "jobs": [ { "name": "a" }, { "name": "b", "iodepth": 4, "rw": "write" } ]
    })");
    const auto& jobs = s.machine.jobs;
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].ioengine == workload::IoEngine::LIBAIO);
    CHECK(jobs[0].iodepth == 16);
    CHECK(jobs[0].rw == workload::RwPattern::RANDREAD);
    CHECK(jobs[1].ioengine == workload::IoEngine::LIBAIO);
    CHECK(jobs[1].iodepth == 4);
    CHECK(jobs[1].rw == workload::RwPattern::WRITE);
    CHECK(jobs[1].runtime == 5_s);
    CHECK(s.output.group_reporting);  // group_reporting given as a fio option
}

TEST_CASE("numjobs, and groups from stonewall/new_group as fio counts them", "[scenario]") {
    const Scenario s = load(R"({
      "host": { "cost_profile": "desktop-8t" },
      "devices": [ { "name": "nullb0", "model": "null_blk" } ],
      "jobs": [ { "name": "first", "stonewall": true, "numjobs": 4 },
                { "name": "same-group" },
                { "name": "second", "stonewall": 1 },
                { "name": "third", "new_group": "1" },
                { "name": "still-third", "wait_for_previous": false } ]
    })");
    const auto& jobs = s.machine.jobs;
    REQUIRE(jobs.size() == 5);
    CHECK(jobs[0].numjobs == 4);
    CHECK(jobs[0].groupid == 0);  // a stonewall on the first job starts no new group
    CHECK(jobs[1].groupid == 0);
    CHECK(jobs[2].groupid == 1);
    CHECK(jobs[2].stonewall);
    CHECK(jobs[3].groupid == 2);
    CHECK_FALSE(jobs[3].stonewall);
    CHECK(jobs[4].groupid == 2);
}

TEST_CASE("iodepth batches: aliases and fio's effective values", "[scenario]") {
    SECTION("iodepth_batch is iodepth_batch_submit; 0 means iodepth") {
        const auto j = load(kMinimal, {"jobs.0.iodepth=16", "jobs.0.iodepth_batch=0"}).machine.jobs[0];
        CHECK(j.iodepth_batch_submit == 16);
    }
    SECTION("iodepth_batch_complete is iodepth_batch_complete_min; max is at least min") {
        const auto j = load(kMinimal, {"jobs.0.iodepth=16", "jobs.0.iodepth_batch_complete=4"}).machine.jobs[0];
        CHECK(j.iodepth_batch_complete_min == 4);
        CHECK(j.iodepth_batch_complete_max == 4);
    }
    SECTION("explicit max") {
        const auto j = load(kMinimal, {"jobs.0.iodepth=16", "jobs.0.iodepth_batch_complete_min=0",
                                       "jobs.0.iodepth_batch_complete_max=16", "jobs.0.iodepth_batch_submit=8"})
                           .machine.jobs[0];
        CHECK(j.iodepth_batch_complete_min == 0);
        CHECK(j.iodepth_batch_complete_max == 16);
        CHECK(j.iodepth_batch_submit == 8);
    }
}

TEST_CASE("size and offset as a share of the device", "[scenario]") {
    const auto j = load(kTwoDevices, {"jobs.0.device=b", "jobs.0.size=50%", "jobs.0.offset=25%"}).machine.jobs[0];
    CHECK(j.size == 500'000'000);
    CHECK(j.offset == 249'999'360);  // 25% of 10^9, aligned down to the 4 KiB block size
}

TEST_CASE("cpus_allowed, randseed, number_ios, ioscheduler, thread, filename", "[scenario]") {
    const Scenario s = load(kMinimal, {"jobs.0.cpus_allowed=0-3,6", "jobs.0.randseed=42", "jobs.0.number_ios=1000",
                                       "jobs.0.ioscheduler=none", "jobs.0.thread=1", "jobs.0.filename=/dev/nullb0"});
    const auto& j = s.machine.jobs[0];
    CHECK(j.cpus_allowed == std::vector<uint32_t>{0, 1, 2, 3, 6});
    CHECK(j.randseed == 42u);
    CHECK(j.number_ios == 1000);
    CHECK(s.machine.queues[0].scheduler == "none");
    CHECK(load(kMinimal, {"jobs.0.cpus_allowed=7"}).machine.jobs[0].cpus_allowed == std::vector<uint32_t>{7});
}

TEST_CASE("host: cpus and costs override the profile; a profile may be a path", "[scenario]") {
    CHECK(load(kMinimal, {"host.cpus=4"}).machine.host.nr_cpus == 4);
    CHECK(load(kMinimal, {"host.costs={\"irq\": \"1us\", \"reap\": 70}"}).machine.host.costs.irq == 1_us);
    CHECK(load(kMinimal, {"host.costs={\"reap\": 70}"}).machine.host.costs.reap == 70_ns);

    TempDir dir("profile_path");
    dir.write("my-cpu.json", R"({ "name": "my-cpu", "source": "test", "cpus": 2, "costs": {
        "syscall": 1, "io_prep": 2, "bio_submit": 3, "rq_alloc": 4, "plug": 5, "queue_rq": 6, "irq": 7,
        "softirq": 8, "complete_rq": 9, "io_complete": 10, "reap": 11, "context_switch": "12ns", "elv_insert": 13, "elv_dispatch": 14, "lock_handoff": 15, "bfq_insert": 16, "bfq_dispatch": 17, "bfq_finish": 18 } })");
    const Scenario s = scenario::load_scenario_text(kMinimal, (dir.path / "scen.json").string(),
                                                    {"host.cost_profile=my-cpu.json"});
    CHECK(s.machine.host.cost_profile == "my-cpu");
    CHECK(s.machine.host.nr_cpus == 2);
    CHECK(s.machine.host.costs.syscall == 1_ns);
    CHECK(s.machine.host.costs.context_switch == 12_ns);
}

TEST_CASE("host without a profile: cpus and all costs inline", "[scenario]") {
    const std::string all = R"({"syscall":1,"io_prep":1,"bio_submit":1,"rq_alloc":1,"plug":1,"queue_rq":1,"irq":1,)"
                            R"("softirq":1,"complete_rq":1,"io_complete":1,"reap":1,"context_switch":1,"elv_insert":1,"elv_dispatch":1,"lock_handoff":1,"bfq_insert":1,"bfq_dispatch":1,"bfq_finish":1})";
    const Scenario s = load(kMinimal, {"host={\"cpus\": 2, \"costs\": " + all + "}"});
    CHECK(s.machine.host.nr_cpus == 2);
    CHECK(s.machine.host.cost_profile == "inline");
    CHECK_THAT(error_of(kMinimal, {"host={\"costs\": " + all + "}"}),
               Catch::StartsWith("test.json: /host: missing key 'cpus'"));
    CHECK_THAT(error_of(kMinimal, {"host={\"cpus\": 2, \"costs\": {\"irq\": 1}}"}),
               Catch::StartsWith("test.json: /host/costs: ") && Catch::Contains("missing: syscall, io_prep"));
}

TEST_CASE("the JSON may carry comments and a $schema reference", "[scenario]") {
    const Scenario s = load(R"({
      "$schema": "../schema.json",
      // the host
      "host": { "cost_profile": "desktop-8t" }, /* block comment */
      "devices": [ { "name": "nullb0", "model": "null_blk" } ],
      "jobs": [ { "name": "j" } ]
    })");
    CHECK(s.machine.jobs.size() == 1);
}

TEST_CASE("output.format json", "[scenario]") {
    CHECK(load(kMinimal, {"output={\"format\": \"json\"}"}).output.formats == "json");
    CHECK(load(kMinimal, {"output={\"format\": \"json+,terse\"}"}).output.formats == "json+,terse");
}

TEST_CASE("load_scenario reads a file and its cost profile", "[scenario]") {
    TempDir dir("load_file");
    const fs::path file = dir.write("scen.json", kExample);
    const Scenario s = scenario::load_scenario(file.string(), {"jobs.0.iodepth=8"});
    CHECK(s.path == file.string());
    CHECK(s.machine.jobs[0].iodepth == 8);
    // Every cost but the overridden syscall is the shipped profile's, whatever its calibration.
    const auto profile = nlohmann::json::parse(
        std::ifstream(fs::path(scenario::default_scenario_dir()) / "cpu" / "desktop-8t.json"));
    const cpu::CpuCosts& c = s.machine.host.costs;
    auto ns = [&](const char* key) { return std::stoll(profile["costs"][key].get<std::string>()); };
    CHECK(c.syscall.count() == 120);
    CHECK(c.io_prep.count() == ns("io_prep"));
    CHECK(c.bio_submit.count() == ns("bio_submit"));
    CHECK(c.rq_alloc.count() == ns("rq_alloc"));
    CHECK(c.plug.count() == ns("plug"));
    CHECK(c.queue_rq.count() == ns("queue_rq"));
    CHECK(c.irq.count() == ns("irq"));
    CHECK(c.softirq.count() == ns("softirq"));
    CHECK(c.complete_rq.count() == ns("complete_rq"));
    CHECK(c.io_complete.count() == ns("io_complete"));
    CHECK(c.reap.count() == ns("reap"));
    CHECK(c.context_switch.count() == ns("context_switch"));
    CHECK(c.elv_dispatch.count() == ns("elv_dispatch"));
}

// --- --set ----------------------------------------------------------------------------

TEST_CASE("CLI --set overrides: creates a key, and objects missing on its way", "[scenario]") {
    // kMinimal's device has params; kTwoDevices' first has none: --set makes the object.
    CHECK(load(kTwoDevices, {"devices.0.params.hw_queue_depth=8"}).machine.devices[0].as<dev::NullBlkConfig>().hw_queue_depth == 8);
    CHECK(load(kTwoDevices, {"kernel.tag_fairness=off"}).machine.tag_fairness == blkmq::TagFairness::OFF);
    // A misspelt key on the way is made, then refused by the schema naming the --set.
    CHECK_THAT(error_of(kTwoDevices, {"devices.0.parms.hw_queue_depth=8"}),
               Catch::Contains("/devices/0/parms: unknown key 'parms'") &&
                   Catch::Contains("value from --set devices.0.parms.hw_queue_depth=8"));
    CHECK(load(kMinimal, {"jobs.0.ramp_time=1s"}).machine.jobs[0].ramp_time == 1_s);
    CHECK(load(kMinimal, {"seed=7"}).machine.seed == 7);
    CHECK(load(kMinimal, {"description=hello world"}).description == "hello world");  // not JSON: a string
    CHECK(load(kMinimal, {"jobs.0.iodepth=4", "jobs.0.iodepth=8"}).machine.jobs[0].iodepth == 8);  // in order
    // queues.N on a scenario without queues: device N's queue.
    const auto q = load(kMinimal, {"queues.0.nr_requests=4", "queues.0.scheduler=kyber"}).machine.queues;
    REQUIRE(q.size() == 1);
    CHECK(q[0].nr_requests == 4);
    CHECK(q[0].scheduler == "kyber");
}

TEST_CASE("CLI --set overrides: errors name the --set", "[scenario]") {
    CHECK(error_of(kMinimal, {"jobs.3.iodepth=16"}) ==
          "test.json: --set 'jobs.3.iodepth=16': index 3 is out of range: 'jobs' has 1 element");
    CHECK_THAT(error_of(kMinimal, {"controllers.0.name=c"}),
               Catch::StartsWith("test.json: --set 'controllers.0.name=c': 'controllers' does not exist, and an "
                                 "array is not made by --set"));
    // The queues array is: one entry per device, as the loader would make them.
    CHECK(error_of(kMinimal, {"queues.1.nr_requests=4"}) ==
          "test.json: --set 'queues.1.nr_requests=4': index 1 is out of range: 'queues' has 1 element");
    CHECK_THAT(error_of(kMinimal, {"jobs.x.iodepth=4"}),
               Catch::Contains("'x' is not an index, and 'jobs' is an array"));
    CHECK_THAT(error_of(kMinimal, {"seed=1", "seed.x=4"}), Catch::Contains("'seed' is number, not an object or array"));
    CHECK_THAT(error_of(kMinimal, {"iodepth"}), Catch::Contains("--set 'iodepth': expected path=value"));
    CHECK_THAT(error_of(kMinimal, {"jobs..iodepth=1"}), Catch::Contains("empty component"));
}

TEST_CASE("a bad value from --set is reported at its path and says where it came from", "[scenario]") {
    CHECK(error_of(kMinimal, {"jobs.0.iodepth=0"}) ==
          "test.json: /jobs/0/iodepth: 0 is out of range (allowed: 1..65536) (value from --set jobs.0.iodepth=0)");
}

TEST_CASE("checks.audit_interval: fio time syntax, 0 = off, tiny or malformed values refused", "[scenario][invariants]") {
    CHECK(error_of(kMinimal, {"checks={\"audit_interval\": \"5ns\"}"}) ==
          "test.json: /checks/audit_interval: the audit interval must be 0 (off) or at least 1us (value from --set "
          "checks={\"audit_interval\": \"5ns\"})");
    CHECK_THAT(error_of(kMinimal, {"checks={\"audit_interval\": \"5q\"}"}),
               Catch::StartsWith("test.json: /checks/audit_interval: "));
    CHECK_THAT(error_of(kMinimal, {"checks={\"interval\": 1}"}),
               Catch::StartsWith("test.json: /checks/interval: unknown key 'interval' (allowed: audit_interval)"));
}

// --- errors ---------------------------------------------------------------------------

TEST_CASE("unknown keys are named, with what is allowed", "[scenario]") {
    CHECK_THAT(error_of(kMinimal, {"duration=10"}),
               Catch::StartsWith("test.json: /duration: unknown key 'duration' (allowed: checks, controllers, description, devices,"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepht=4"}),
               Catch::StartsWith("test.json: /jobs/0/iodepht: unknown fio option 'iodepht' (did you mean iodepth?; "
                                 "supported: "));
    CHECK_THAT(error_of(kMinimal, {"global={\"filesize\": \"10m\"}"}),
               Catch::StartsWith("test.json: /global/filesize: unknown fio option 'filesize'"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.params.queue_mode=2"}),
               Catch::StartsWith("test.json: /devices/0/params/queue_mode: unknown key 'queue_mode' (allowed: blocksize,"));
    CHECK_THAT(error_of(kMinimal, {"host.costs={\"syscal\": 1}"}),
               Catch::StartsWith("test.json: /host/costs/syscal: unknown key 'syscal' (did you mean syscall?; allowed: "));
}

TEST_CASE("wrong types say what is expected", "[scenario]") {
    CHECK_THAT(error_of(kMinimal, {"seed=\"one\""}),
               Catch::StartsWith("test.json: /seed: expected an integer, got \"one\""));
    CHECK_THAT(error_of(kMinimal, {"jobs={}"}), Catch::StartsWith("test.json: /jobs: expected an array, got {}"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepth=true"}),
               Catch::StartsWith("test.json: /jobs/0/iodepth: expected an integer or a string, got true"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepth=deep"}), Catch::StartsWith("test.json: /jobs/0/iodepth: 'deep' is not an integer"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.name=3"}), Catch::StartsWith("test.json: /jobs/0/name: expected a string, got 3"));
    CHECK_THAT(error_of(kMinimal, {"output={\"group_reporting\": 1}"}),
               Catch::StartsWith("test.json: /output/group_reporting: expected true or false, got 1"));
}

TEST_CASE("out-of-range and not-allowed values", "[scenario]") {
    CHECK_THAT(error_of(kMinimal, {"host.cpus=0"}), Catch::StartsWith("test.json: /host/cpus: 0 is out of range (allowed: 1..1024)"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.params.irqmode=3"}),
               Catch::StartsWith("test.json: /devices/0/params/irqmode: 3 is not allowed here; expected one of: 0, 1, 2"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.params.blocksize=1000"}),
               Catch::StartsWith("test.json: /devices/0/params/blocksize: 1000 is not allowed here"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.params.hw_queue_depth=10241"}),
               Catch::StartsWith("test.json: /devices/0/params/hw_queue_depth: 10241 is out of range (allowed: 1..10240)"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.model=ssd"}),
               Catch::StartsWith("test.json: /devices/0/model: \"ssd\" is not allowed here; expected one of: null_blk, nvme"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.name=null b0"}),
               Catch::StartsWith("test.json: /devices/0/name: 'null b0' is not valid here"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.rw=discard"}),
               Catch::StartsWith("test.json: /jobs/0/rw: \"discard\" is not allowed here; expected one of: read, write,"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.ioengine=posixaio"}), Catch::StartsWith("test.json: /jobs/0/ioengine: "));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.time_based=yes"}),
               Catch::StartsWith("test.json: /jobs/0/time_based: \"yes\" is not allowed here; expected one of: true, false, 0, 1, \"0\", \"1\""));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.rwmixread=101"}), Catch::StartsWith("test.json: /jobs/0/rwmixread: 101 is out of range (allowed: 0..100)"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.numjobs=0"}), Catch::StartsWith("test.json: /jobs/0/numjobs: 0 is out of range"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bs=1000"}), Catch::StartsWith("test.json: /jobs/0/bs: 1000 is not a multiple of 512"));
    CHECK_THAT(error_of(kMinimal, {"jobs=[]"}), Catch::StartsWith("test.json: /jobs: needs at least 1 element"));
    CHECK_THAT(error_of(kMinimal, {"queues=[{\"device\": \"nullb0\", \"scheduler\": \"cfq\"}]"}),
               Catch::StartsWith("test.json: /queues/0/scheduler: \"cfq\" is not allowed here; expected one of: none, mq-deadline, kyber, bfq"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepth=99999999999999999999999"}), Catch::StartsWith("test.json: /jobs/0/iodepth: "));
}

TEST_CASE("missing required keys", "[scenario]") {
    CHECK_THAT(error_of(R"({ "host": { "cost_profile": "desktop-8t" }, "devices": [ { "name": "a", "model": "null_blk" } ] })"),
               Catch::StartsWith("test.json: (top level): missing required key 'jobs'"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0={\"rw\": \"read\"}"}),
               Catch::StartsWith("test.json: /jobs/0: missing required key 'name'"));
    CHECK_THAT(error_of(kMinimal, {"devices.0={\"name\": \"x\"}"}),
               Catch::StartsWith("test.json: /devices/0: missing required key 'model'"));
}

TEST_CASE("bad units and bad fio syntax name the value", "[scenario]") {
    CHECK_THAT(error_of(kMinimal, {"jobs.0.runtime=10parsecs"}),
               Catch::StartsWith("test.json: /jobs/0/runtime: unknown time unit 'parsecs'"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bs=4q"}), Catch::StartsWith("test.json: /jobs/0/bs: unknown size unit 'q'"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.size=lots"}), Catch::StartsWith("test.json: /jobs/0/size: expected a size like 4k"));
    CHECK_THAT(error_of(kMinimal, {"host.costs={\"irq\": \"3 cycles\"}"}),
               Catch::StartsWith("test.json: /host/costs/irq: unknown time unit 'cycles'"));
    CHECK_THAT(error_of(kMinimal, {"devices.0.params.completion_nsec=1.5us"}),
               Catch::StartsWith("test.json: /devices/0/params/completion_nsec: fractional values are not accepted"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.cpus_allowed=all"}),
               Catch::StartsWith("test.json: /jobs/0/cpus_allowed: expected a CPU list like 0-3,6"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.runtime=99999999999d"}), Catch::StartsWith("test.json: /jobs/0/runtime: time"));
}

TEST_CASE("block sizes are checked after fio's suffixes are applied", "[scenario]") {
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bs=256m"}),
               Catch::StartsWith("test.json: /jobs/0/bs: block size 268435456 is out of range (allowed: 512 bytes .. 128 MiB)"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bs=4k,100"}),
               Catch::StartsWith("test.json: /jobs/0/bs: block size 100 (write) is out of range"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.bs=4KiB"}),
               Catch::StartsWith("test.json: /jobs/0/bs: block size 4000 is not a multiple of 512") &&
                   Catch::Contains("kb_base=1024, KiB"));
    CHECK_THAT(error_of(kTwoDevices, {"jobs.0.device=b", "jobs.0.bs=512"}),
               Catch::StartsWith("test.json: /jobs/0/bs: block size 512 is not a multiple of b's logical block size 4096"));
    CHECK(load(kTwoDevices, {"jobs.0.device=b", "jobs.0.bs=512", "jobs.0.direct=0"}).machine.jobs[0].bs_read == 512);
}

TEST_CASE("references between sections", "[scenario]") {
    CHECK(error_of(kMinimal, {"jobs.0.device=sda"}) ==
          "test.json: /jobs/0/device: unknown device 'sda' (devices: nullb0) (value from --set jobs.0.device=sda)");
    CHECK_THAT(error_of(kTwoDevices, {"jobs.0={\"name\": \"x\"}"}),
               Catch::StartsWith("test.json: /jobs/0: no device given and the scenario has 2 devices; add \"device\": one of a, b"));
    CHECK_THAT(error_of(kMinimal, {"queues=[{\"device\": \"nullb1\"}]"}),
               Catch::StartsWith("test.json: /queues/0/device: unknown device 'nullb1' (devices: nullb0)"));
    CHECK_THAT(error_of(kMinimal, {"queues=[{\"device\": \"nullb0\"}, {\"device\": \"nullb0\"}]"}),
               Catch::StartsWith("test.json: /queues/1/device: device 'nullb0' already has a queue entry at /queues/0"));
    CHECK_THAT(error_of(kTwoDevices, {"devices.1.name=a"}),
               Catch::StartsWith("test.json: /devices/1/name: duplicate device name 'a' (also /devices/0)"));
    CHECK_THAT(error_of(kMinimal, {"global={\"name\": \"g\"}"}),
               Catch::StartsWith("test.json: /global/name: name belongs on each job, not in global"));
}

TEST_CASE("checks that involve several values", "[scenario]") {
    CHECK_THAT(error_of(kMinimal, {"jobs.0.time_based=1"}),
               Catch::StartsWith("test.json: /jobs/0/time_based: time_based needs runtime"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.runtime=366d"}),
               Catch::StartsWith("test.json: /jobs/0/runtime: runtime is longer than a year"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.ramp_time=400d"}),
               Catch::StartsWith("test.json: /jobs/0/ramp_time: ramp_time is longer than a year"));
    CHECK_THAT(error_of(kMinimal, {"jobs=[{\"name\": \"a\", \"numjobs\": 4000}, {\"name\": \"b\", \"numjobs\": 97}]"}),
               Catch::StartsWith("test.json: /jobs/1/numjobs: the jobs add up to 4097 threads (sum of numjobs); at most 4096"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepth=8", "jobs.0.iodepth_batch_submit=9"}),
               Catch::StartsWith("test.json: /jobs/0/iodepth_batch_submit: iodepth_batch_submit 9 is larger than iodepth 8"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepth_batch_complete_max=2"}),
               Catch::StartsWith("test.json: /jobs/0/iodepth_batch_complete_max: iodepth_batch_complete_max 2 is larger than iodepth 1"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.cpus_allowed=0-8"}),
               Catch::StartsWith("test.json: /jobs/0/cpus_allowed: CPU 8 does not exist: the host has 8 CPUs (0-7)"));
    CHECK_THAT(error_of(kMinimal, {"host.cpus=2", "jobs.0.cpus_allowed=2"}),
               Catch::StartsWith("test.json: /jobs/0/cpus_allowed: CPU 2 does not exist: the host has 2 CPUs (0-1)"));
    CHECK_THAT(error_of(kTwoDevices, {"jobs.0.device=b", "jobs.0.offset=80%", "jobs.0.size=30%"}),
               Catch::StartsWith("test.json: /jobs/0/size: offset + size") && Catch::Contains("beyond the end of b"));
    CHECK_THAT(error_of(kTwoDevices, {"jobs.0.device=b", "jobs.0.offset=1g"}),
               Catch::StartsWith("test.json: /jobs/0/offset: offset 1073741824 is beyond the end of b (1000000000 bytes)"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.size=1k"}),
               Catch::StartsWith("test.json: /jobs/0/size: size 1024 is smaller than the block size 4096"));
    CHECK_THAT(error_of(kMinimal, {"jobs.0.iodepth_batch=1", "jobs.0.iodepth_batch_submit=1"}),
               Catch::Contains("give either 'iodepth_batch' or 'iodepth_batch_submit', not both"));
}

TEST_CASE("files that cannot be read or parsed", "[scenario]") {
    CHECK_THAT([] {
        try {
            scenario::load_scenario("/nonexistent/scen.json");
        } catch (const ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string();
    }(),
               Catch::Equals("/nonexistent/scen.json: cannot read scenario: no such file"));
    CHECK_THAT(error_of("{\n  \"jobs\": [\n    {\"name\": }\n  ]\n}"),
               Catch::StartsWith("test.json: invalid JSON: parse error at line 3, column 14"));
    CHECK(error_of(R"({"seed": 1, "seed": 2})") == "test.json: /seed: duplicate key (each key may appear only once in an object)");
    CHECK_THAT(error_of(R"({"jobs": [{"name": "a"}, {"name": "b", "bs": "4k", "bs": "8k"}]})"),
               Catch::StartsWith("test.json: /jobs/1/bs: duplicate key"));
}

TEST_CASE("cost profile problems", "[scenario]") {
    CHECK(error_of(kMinimal, {"host.cost_profile=laptop"}) ==
          "test.json: /host/cost_profile: cost profile 'laptop' not found (no file " +
              (fs::path(scenario::default_scenario_dir()) / "cpu" / "laptop.json").string() +
              "); available: desktop-8t, e2-testbox, e3-host, loop-vm-2cpu (value from --set host.cost_profile=laptop)");

    TempDir dir("bad_profile");
    const std::string scen = (dir.path / "scen.json").string();
    const auto error_with_profile = [&](const std::string& profile) {
        dir.write("p.json", profile);
        try {
            scenario::load_scenario_text(kMinimal, scen, {"host.cost_profile=p.json"});
        } catch (const ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string p = (dir.path / "p.json").string();
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "cpus": 2, "costs": {"syscall": 1}})"),
               Catch::StartsWith(p + ": /costs: missing required key '"));
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "cpus": 2, "extra": 1, "costs": {
        "syscall": 1, "io_prep": 2, "bio_submit": 3, "rq_alloc": 4, "plug": 5, "queue_rq": 6, "irq": 7,
        "softirq": 8, "complete_rq": 9, "io_complete": 10, "reap": 11, "context_switch": 12, "elv_insert": 13, "elv_dispatch": 14, "lock_handoff": 15, "bfq_insert": 16, "bfq_dispatch": 17, "bfq_finish": 18 }})"),
               Catch::StartsWith(p + ": /extra: unknown key 'extra' (allowed: costs, cpus, name, run_to_parity, shared_llc, source, vcpu_preemption)"));
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "costs": {}})"),
               Catch::StartsWith(p + ": "));
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "cpus": 2, "costs": {)"),
               Catch::StartsWith(p + ": invalid JSON"));
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "cpus": 2, "costs": {
        "syscall": "1 fortnight", "io_prep": 2, "bio_submit": 3, "rq_alloc": 4, "plug": 5, "queue_rq": 6, "irq": 7,
        "softirq": 8, "complete_rq": 9, "io_complete": 10, "reap": 11, "context_switch": 12, "elv_insert": 13, "elv_dispatch": 14, "lock_handoff": 15, "bfq_insert": 16, "bfq_dispatch": 17, "bfq_finish": 18 }})"),
               Catch::StartsWith(p + ": /costs/syscall: unknown time unit 'fortnight'"));
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "cpus": 2, "costs": {
        "syscall": "2s", "io_prep": 2, "bio_submit": 3, "rq_alloc": 4, "plug": 5, "queue_rq": 6, "irq": 7,
        "softirq": 8, "complete_rq": 9, "io_complete": 10, "reap": 11, "context_switch": 12, "elv_insert": 13, "elv_dispatch": 14, "lock_handoff": 15, "bfq_insert": 16, "bfq_dispatch": 17, "bfq_finish": 18 }})"),
               Catch::StartsWith(p + ": /costs/syscall: a CPU cost above 1s"));
    CHECK_THAT(error_with_profile(""), Catch::StartsWith(p + ": invalid JSON"));

    // A profile's vCPU stalls: read from it, checked with its path, and a scenario's own win.
    const std::string costs = R"("costs": {
        "syscall": 1, "io_prep": 2, "bio_submit": 3, "rq_alloc": 4, "plug": 5, "queue_rq": 6, "irq": 7,
        "softirq": 8, "complete_rq": 9, "io_complete": 10, "reap": 11, "context_switch": 12, "elv_insert": 13,
        "elv_dispatch": 14, "lock_handoff": 15, "bfq_insert": 16, "bfq_dispatch": 17, "bfq_finish": 18 }})";
    CHECK_THAT(error_with_profile(R"({"name": "p", "source": "s", "cpus": 2, "vcpu_preemption": [{"per_s": 600, "mean": "1ms"}], )" + costs),
               Catch::StartsWith(p + ": /vcpu_preemption: the stalls would take 0.6 of every second"));
    dir.write("p.json", R"({"name": "p", "source": "s", "cpus": 2, "vcpu_preemption": [{"per_s": 100, "mean": "1ms"}], )" + costs);
    const auto from_profile = scenario::load_scenario_text(kMinimal, scen, {"host.cost_profile=p.json"});
    REQUIRE(from_profile.machine.host.vcpu_preemption.size() == 1);
    CHECK(from_profile.machine.host.vcpu_preemption[0].mean == sim::Duration::ns(1'000'000));
    const auto overridden = scenario::load_scenario_text(
        kMinimal, scen, {"host.cost_profile=p.json", R"(host.vcpu_preemption=[{"per_s": 5, "mean": "2us"}])"});
    REQUIRE(overridden.machine.host.vcpu_preemption.size() == 1);
    CHECK(overridden.machine.host.vcpu_preemption[0].per_s == 5.0);
}

// --- the schema and the decoder agree --------------------------------------------------

TEST_CASE("schema: fio options and schedulers match the decoder's tables", "[scenario]") {
    const json schema = read_schema();
    std::vector<std::string> options;
    for (const auto& [k, v] : schema["definitions"]["fio_options"]["properties"].items()) options.push_back(k);
    std::sort(options.begin(), options.end());
    CHECK(options == scenario::supported_fio_options());

    const std::vector<std::string> schedulers = scenario::supported_schedulers();
    CHECK(schema["definitions"]["queue"]["properties"]["scheduler"]["enum"].get<std::vector<std::string>>() == schedulers);
    CHECK(schema["definitions"]["fio_options"]["properties"]["ioscheduler"]["enum"].get<std::vector<std::string>>() == schedulers);
}

TEST_CASE("schema: every property is described and every object is closed", "[scenario]") {
    const json schema = read_schema();
    std::vector<std::string> problems;
    // Walks every subschema; "properties" maps must describe each entry, and an object
    // schema with properties must refuse unknown keys.
    const std::function<void(const json&, const std::string&)> walk = [&](const json& node, const std::string& where) {
        if (node.is_array()) {
            for (size_t i = 0; i < node.size(); ++i) walk(node[i], where + "/" + std::to_string(i));
            return;
        }
        if (!node.is_object()) return;
        // (if/then only refine a property already described and closed elsewhere)
        if (node.contains("properties") && !where.ends_with("/if") && !where.ends_with("/then")) {
            if (node.value("additionalProperties", true) != false) problems.push_back(where + ": additionalProperties is not false");
            for (const auto& [k, v] : node["properties"].items())
                if (!v.contains("description")) problems.push_back(where + "/properties/" + k + ": no description");
        }
        for (const auto& [k, v] : node.items())
            if (k != "properties") walk(v, where + "/" + k);
            else
                for (const auto& [pk, pv] : v.items()) walk(pv, where + "/properties/" + pk);
    };
    walk(schema, "");
    std::string all;
    for (const auto& p : problems) all += p + "\n";
    CHECK(all == "");
}

// --- controllers and the topology ------------------------------------------------------

TEST_CASE("controllers decode, and topology errors name the JSON path of the bad link", "[scenario][topology]") {
    constexpr const char* kHba = R"({
  "host": { "cost_profile": "desktop-8t" },
  "controllers": [ { "name": "hba0", "kind": "hba", "can_queue": 64, "reserved_tags": 2 },
                   { "name": "exp0", "kind": "expander", "parent": "hba0" } ],
  "devices": [ { "name": "sda", "model": "null_blk", "controller": "exp0" } ],
  "jobs": [ { "name": "j" } ]
})";
    const auto s = load(kHba);
    REQUIRE(s.machine.controllers.size() == 2);
    CHECK(s.machine.controllers[0].can_queue == 64);
    CHECK(s.machine.controllers[0].reserved_tags == 2);
    CHECK(s.machine.controllers[1].kind == dev::ControllerConfig::Kind::EXPANDER);
    CHECK(s.machine.devices[0].controller == "exp0");

    const std::string cycle = R"(controllers=[{"name": "hba0", "kind": "hba"},
        {"name": "exp0", "kind": "expander", "parent": "exp1"},
        {"name": "exp1", "kind": "expander", "parent": "exp0"}])";
    CHECK_THAT(error_of(kHba, {cycle}),
               Catch::StartsWith("test.json: /controllers/1/parent: controllers form a cycle: exp0 -> exp1 -> exp0; "
                                 "a chain of expanders must end at an hba"));
    CHECK_THAT(error_of(kHba, {"devices.0.controller=\"hba7\""}),
               Catch::StartsWith("test.json: /devices/0/controller: device 'sda' names unknown controller 'hba7' "
                                 "(controllers: 'hba0', 'exp0')"));
    CHECK_THAT(error_of(kHba, {"controllers.1.can_queue=8"}),
               Catch::StartsWith("test.json: /controllers/1/can_queue: an expander has no tags of its own"));
    CHECK_THAT(error_of(kHba, {"controllers.0.reserved_tags=64"}),
               Catch::StartsWith("test.json: /controllers/0/reserved_tags: reserved_tags (64) must stay below can_queue (64)"));
    CHECK_THAT(error_of(kHba, {"controllers.0.kind=\"raid\""}), Catch::StartsWith("test.json: /controllers/0/kind:"));
}

TEST_CASE("a RAID card's nr_hw_queues: one per CPU by default, as given, negative refused", "[scenario][raid]") {
    const std::string raid = R"({
  "host": { "cpus": 8, "cost_profile": "desktop-8t" },
  "devices": [ { "name": "sda", "model": "raid", "profile": "huawei-sas3508", PARAMS
                 "members": [ { "model": "hdd" }, { "model": "hdd" } ] } ],
  "jobs": [ { "name": "j", "device": "sda", "rw": "read", "runtime": "1ms", "time_based": 1 } ]
})";
    auto with = [&](const std::string& params) {
        std::string t = raid;
        return t.replace(t.find("PARAMS"), 6, params);
    };
    CHECK(load(with("")).machine.devices[0].as<dev::RaidConfig>().nr_hw_queues == 0);
    CHECK(load(with(R"("params": { "nr_hw_queues": 1 },)")).machine.devices[0].as<dev::RaidConfig>().nr_hw_queues == 1);
    CHECK_THAT(error_of(with(R"("params": { "nr_hw_queues": -1 },)")),
               Catch::Contains("/devices/0/params/nr_hw_queues"));
}
