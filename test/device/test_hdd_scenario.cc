// The HDD wired end to end: scenario decoding (params in fio's value syntax, named profiles,
// errors naming the JSON path), a machine running it, and its section of blksim's report.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "models/device/hdd_config.h"
#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

std::string scenario_with(const std::string& device) {
    return R"({
  "host": { "cpus": 2, "cost_profile": "desktop-8t" },
  "devices": [ )" + device + R"( ],
  "jobs": [ { "name": "r", "ioengine": "libaio", "direct": 1, "rw": "randread", "bs": "4k",
              "iodepth": 32, "runtime": "2s", "time_based": 1 } ]
})";
}

scenario::Scenario load(const std::string& device, const std::vector<std::string>& sets = {}) {
    return scenario::load_scenario_text(scenario_with(device), "hdd.json", sets);
}

std::string error_of(const std::string& device, const std::vector<std::string>& sets = {}) {
    try {
        load(device, sets);
    } catch (const scenario::ScenarioError& e) {
        return e.what();
    }
    FAIL("expected a ScenarioError");
    return {};
}

}  // namespace

TEST_CASE("HDD scenario: params decode with units, the profile fills the rest", "[hdd][scenario]") {
    const auto s = load(R"({ "name": "sda", "model": "hdd", "profile": "hdd-7200-sata",
                             "params": { "ncq_prio_enable": 1, "seek_average": "8ms", "sched": "fifo",
                                         "cache_mb": 128 } })");
    const auto& d = s.machine.devices.at(0);
    CHECK(d.kind().name() == "hdd");
    CHECK(d.as<dev::HddConfig>().ncq_prio_enable);
    CHECK(d.as<dev::HddConfig>().seek_average == 8_ms);                         // the entry overrides the profile
    CHECK(d.as<dev::HddConfig>().sched == dev::HddConfig::Sched::FIFO);
    CHECK(d.as<dev::HddConfig>().cache_mb == 128);
    CHECK(d.as<dev::HddConfig>().size_bytes == 7'814'037'168ULL * 512);        // from the profile
    CHECK(d.as<dev::HddConfig>().seek_track_to_track == 230_us);
    CHECK(d.as<dev::HddConfig>().max_wait == 890_ms);
    // A model without profile takes the defaults.
    const auto plain = load(R"({ "name": "sdb", "model": "hdd", "params": { "gb": 2000, "rpm": 5400 } })");
    CHECK(plain.machine.devices.at(0).as<dev::HddConfig>().size_bytes == 2'000'000'000'000ULL);
    CHECK(plain.machine.devices.at(0).as<dev::HddConfig>().rpm == 5400);
    CHECK_FALSE(plain.machine.devices.at(0).as<dev::HddConfig>().ncq_prio_enable);  // the kernel's default
}

TEST_CASE("HDD scenario: bad values are reported at their JSON path", "[hdd][scenario]") {
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "params": { "queue_depth": 129 } })"),
               Catch::Contains("/devices/0/params/queue_depth") && Catch::Contains("128"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "params": { "seek_average": "7.4ms" } })"),
               Catch::Contains("/devices/0/params/seek_average"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "params": { "seek_full_stroke": "40ms" } })"),
               Catch::Contains("/devices/0/params") && Catch::Contains("cannot be reached"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "params": { "ncq_prio_supported": 0, "ncq_prio_enable": 1 } })"),
               Catch::Contains("/devices/0/params/ncq_prio_enable") && Catch::Contains("refuses"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "params": { "irq_cpu": 5 } })"),
               Catch::Contains("/devices/0/params/irq_cpu") && Catch::Contains("2 CPUs"));
    // The message lists the hdd's keys and ranges, not those of the other models' params
    // (the schema chooses a device's params by its model with if/then).
    const std::string spindle = error_of(R"({ "name": "sda", "model": "hdd", "params": { "spindle": 1 } })");
    CHECK_THAT(spindle, Catch::Contains("unknown key 'spindle'") && Catch::Contains("seek_average"));
    CHECK_THAT(spindle, !Catch::Contains("program_latency") && !Catch::Contains("hw_queue_depth"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "sata_ssd", "params": { "queue_depth": 64 } })"),
               Catch::Contains("/devices/0/params/queue_depth") && Catch::Contains("1..32"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "profile": "no-such-drive" })"),
               Catch::Contains("/devices/0/profile") && Catch::Contains("not found") && Catch::Contains("hdd-7200-sata"));
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "nvme", "profile": "hdd-7200-sata" })"),
               Catch::Contains("/devices/0/profile") && Catch::Contains("describes a hdd device"));
}

TEST_CASE("HDD scenario: drives naming one profile each get it, with their own params on top", "[hdd][scenario]") {
    // The profile is read once for all three; the middle entry's override stays its own.
    const auto s = scenario::load_scenario_text(R"({
  "host": { "cpus": 2, "cost_profile": "desktop-8t" },
  "devices": [ { "name": "sda", "model": "hdd", "profile": "hdd-7200-sata" },
               { "name": "sdb", "model": "hdd", "profile": "hdd-7200-sata", "params": { "seek_average": "8ms" } },
               { "name": "sdc", "model": "hdd", "profile": "hdd-7200-sata", "params": {} } ],
  "jobs": [ { "name": "r", "device": "sdc", "rw": "randread", "runtime": "1s" } ]
})", "hdd.json", {});
    const auto hdd = [&](int i) -> const dev::HddConfig& { return s.machine.devices.at(i).as<dev::HddConfig>(); };
    CHECK(hdd(1).seek_average == 8_ms);
    CHECK(hdd(1).size_bytes == 7'814'037'168ULL * 512);  // the rest from the profile
    for (int i : {0, 2}) {
        INFO("device " << i);
        CHECK(hdd(i).seek_average != 8_ms);
        CHECK(hdd(i).seek_average == load(R"({ "name": "sda", "model": "hdd", "profile": "hdd-7200-sata" })")
                                         .machine.devices.at(0).as<dev::HddConfig>().seek_average);
        CHECK(hdd(i).size_bytes == 7'814'037'168ULL * 512);
        CHECK(hdd(i).max_wait == 890_ms);
    }
    // A later device naming the profile with another model is refused at its own path.
    CHECK_THAT(error_of(R"({ "name": "sda", "model": "hdd", "profile": "hdd-7200-sata" },
                           { "name": "nvme0", "model": "nvme", "profile": "hdd-7200-sata" })"),
               Catch::Contains("/devices/1/profile") && Catch::Contains("describes a hdd device, not nvme"));
}

TEST_CASE("HDD scenario: a profile file's own errors name the profile file", "[hdd][scenario]") {
    const auto dir = std::filesystem::temp_directory_path() / ("blksim_hdd_" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir / "bad.json") << R"({ "name": "bad", "model": "hdd", "source": "test",
                                               "params": { "seek_average": "9xs" } })";
        std::ofstream(dir / "nosource.json") << R"({ "name": "n", "model": "hdd", "params": {} })";
    }
    const auto err = [&](const std::string& profile) {
        try {
            scenario::load_scenario_text(scenario_with(R"({ "name": "sda", "model": "hdd", "profile": ")" + profile + R"(" })"),
                                         (dir / "s.json").string(), {});
        } catch (const scenario::ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(err("bad.json"), Catch::Contains("bad.json: /params/seek_average"));
    CHECK_THAT(err("nosource.json"), Catch::Contains("nosource.json") && Catch::Contains("source"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("HDD scenario: it runs, and blksim's report has the drive's section in text and JSON", "[hdd][scenario]") {
    const auto s = load(R"({ "name": "sda", "model": "hdd", "profile": "hdd-7200-sata" })");
    topology::Machine m(s.machine);
    const result::RunResult r = m.run();
    REQUIRE(r.devices.size() == 1);
    const result::DeviceReport& d = r.devices[0];
    CHECK(d.name == "sda");
    CHECK(d.model == "hdd");
    const auto field = [&](const std::string& key) {
        for (const auto& line : d.lines)
            for (const auto& f : line)
                if (f.key == key) return f.value;
        FAIL("no field " << key);
        return 0.0;
    };
    const uint64_t ios = r.jobs.at(0).dir[0].total_ios;
    CHECK(ios > 300);  // ~230 IOPS for 2 s
    CHECK(field("commands") >= static_cast<double>(ios));
    CHECK(field("queue_depth_mean") == Approx(32).epsilon(0.05));
    CHECK(field("seek_ms_mean") > 1.0);
    CHECK(field("rotation_ms_mean") > 0.5);
    CHECK(field("rotation_ms_mean") < 4.17);  // RPO waits less than half a revolution
    CHECK(field("read_hit_ratio") == 0.0);

    const std::string text = report::format_blksim_extras(r);
    CHECK_THAT(text, Catch::Contains("sda (hdd):") && Catch::Contains("seek_ms_mean=") &&
                         Catch::Contains("read_hit_ratio=") && Catch::Contains("queue_depth_mean="));
    const std::string js = report::format_json(r, false);
    CHECK_THAT(js, Catch::Contains("\"devices\"") && Catch::Contains("\"model\" : \"hdd\"") &&
                       Catch::Contains("\"rotation_ms_mean\""));
}
