// The SATA SSD (models/device/sata_ssd.h): first driven directly, a closed loop keeping `qd`
// requests at the drive (no block layer in between, so every figure is the drive's own);
// then wired end to end from a scenario (decoding, profile, HBA, report section).
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/device/sata_ssd.h"
#include "models/device/device_kinds.h"
#include "models/report/fio_output.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "sim/random.h"
#include "sim/stats.h"
#include "tools/scenario/scenario.h"

#include "test/device/device_rig.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct Rig : testing::DeviceRig<dev::SataSsd> {
    dev::SataSsd& ssd = device;
    explicit Rig(const dev::SataSsdConfig& cfg) : DeviceRig(cfg, "sata-ssd-test") {}

    void random(uint32_t sectors, blkmq::ReqOp op) {
        const uint64_t blocks = ssd.capacity_sectors() / sectors;
        next = [this, sectors, blocks, op](blkmq::Request& rq) {
            rq.sector = rng.below(blocks) * sectors;
            rq.nr_sectors = sectors;
            rq.op = op;
        };
    }
};

double field(const result::DeviceReport& d, const std::string& key) {
    for (const auto& line : d.lines)
        for (const auto& f : line)
            if (f.key == key)
                return f.value;
    FAIL("no field " << key);
    return 0.0;
}

}  // namespace

TEST_CASE("SATA SSD: a QD1 4 KiB random read takes controller + tR + transfer", "[sata_ssd][device]") {
    dev::SataSsdConfig c;
    c.read_sigma = 0;  // tR exactly its mean (the spread: test_ssd_variance.cc)
    Rig r(c);
    r.random(8, blkmq::ReqOp::READ);
    r.run(1, 2000);
    // 10.2 us + 70 us + 4096 B at 550 MB/s (7.447 us) = 87.647 us, every time.
    const double expect = 10'200.0 + 70'000.0 + 4096.0 * 1e9 / 550e6;
    CHECK(r.lat.mean() == Approx(expect).epsilon(0.001));
    CHECK(r.lat.max() == Approx(expect).epsilon(0.001));
    CHECK(r.ssd.stats().ra_hits == 0);
    CHECK(r.ssd.stats().page_reads == 2000);  // one 16 KiB page per 4 KiB read
}

TEST_CASE("SATA SSD: QD32 4 KiB random reads reach the datasheet's 98 k IOPS", "[sata_ssd][device]") {
    Rig r(dev::SataSsdConfig{});
    r.random(8, blkmq::ReqOp::READ);
    r.run(32, 50'000);
    CHECK(r.iops() == Approx(98'000).epsilon(0.10));
    // ...and not because the flash could not do more: with 4x the controller speed the
    // 16 dies and the link take over, and QD1 does far less.
    dev::SataSsdConfig fast;
    fast.cmd_overhead = 2550_ns;
    Rig f(fast);
    f.random(8, blkmq::ReqOp::READ);
    f.run(32, 50'000);
    CHECK(f.iops() > 1.2 * r.iops());
    Rig q1(dev::SataSsdConfig{});
    q1.random(8, blkmq::ReqOp::READ);
    q1.run(1, 5'000);
    CHECK(q1.iops() < 0.15 * r.iops());
}

TEST_CASE("SATA SSD: sequential 128 KiB reads are link-bound at ~550 MB/s", "[sata_ssd][device]") {
    Rig r(dev::SataSsdConfig{});
    r.sequential(0, 256, blkmq::ReqOp::READ);
    r.run(32, 8'000);  // 1 GiB
    CHECK(r.mb_per_s() == Approx(550).epsilon(0.02));
    // A slower link is what sets it.
    dev::SataSsdConfig slow;
    slow.link_bytes_per_s = 300'000'000;
    Rig s(slow);
    s.sequential(0, 256, blkmq::ReqOp::READ);
    s.run(32, 4'000);
    CHECK(s.mb_per_s() == Approx(300).epsilon(0.02));
}

TEST_CASE("SATA SSD: many 4 KiB commands move fewer MB/s than few 128 KiB ones", "[sata_ssd][device]") {
    const auto seq_mb = [](uint32_t sectors, uint64_t n, sim::Duration overhead) {
        dev::SataSsdConfig c;
        c.cmd_overhead = overhead;
        Rig r(c);
        r.sequential(0, sectors, blkmq::ReqOp::READ);
        r.run(32, n);
        return r.mb_per_s();
    };
    const double small = seq_mb(8, 100'000, 10'200_ns), large = seq_mb(256, 4'000, 10'200_ns);
    // 4 KiB: one command per 10.2 us of controller time = 402 MB/s; 128 KiB: the link's 550.
    CHECK(small == Approx(4096.0 / 10.2e-6 / 1e6).epsilon(0.03));
    CHECK(small < 0.8 * large);
    // Without the per-command time the small commands would fill the link too.
    CHECK(seq_mb(8, 100'000, 0_ns) == Approx(550).epsilon(0.03));
}

TEST_CASE("SATA SSD: writes run at the buffer rate until it fills, then at program rate / WAF",
          "[sata_ssd][device]") {
    const auto run = [](double waf) {
        dev::SataSsdConfig c;
        c.buffer_bytes = 32'000'000;  // 32 MB so that it fills quickly
        c.gc_waf = waf;
        c.free_pool_gc = false;  // the constant factor alone (the pool: test_ssd_gc.cc)
        auto r = std::make_unique<Rig>(c);
        r->log = true;
        r->sequential(0, 256, blkmq::ReqOp::WRITE);
        r->run(32, 8'000);  // 1 GiB
        return r;
    };
    const dev::SataSsdConfig d;
    const double program = static_cast<double>(d.nr_dies() * d.page_bytes()) / 870e-6;  // 301 MB/s
    {
        const auto r = run(1.0);
        // Filling: 520 MB/s in, 301 out: full after 32 MB / 219 MB/s = 146 ms.
        CHECK(r->rate_between(0.0, 0.1) == Approx(520e6).epsilon(0.02));
        CHECK(r->rate_between(0.5, 1.5) == Approx(program).epsilon(0.02));
        CHECK(r->ssd.stats().buffer_waits > 0);
        CHECK(r->ssd.stats().buffer_max <= 32'000'000.0 + 1);
        CHECK(r->ssd.stats().buffer_max > 31'000'000.0);
    }
    {
        const auto r = run(2.0);  // garbage collection halves the drain
        CHECK(r->rate_between(0.0, 0.05) == Approx(520e6).epsilon(0.02));
        CHECK(r->rate_between(0.5, 2.5) == Approx(program / 2).epsilon(0.02));
        result::DeviceReport rep;
        r->ssd.report(rep);
        CHECK(field(rep, "gc_extra_mb") == Approx(field(rep, "programmed_mb") / 2).epsilon(0.001));
    }
    // A write burst smaller than the buffer never waits, and completes at the buffer rate.
    dev::SataSsdConfig c;
    Rig small(c);
    small.random(8, blkmq::ReqOp::WRITE);
    small.run(1, 1000);
    CHECK(small.ssd.stats().buffer_waits == 0);
    CHECK(small.lat.mean() == Approx(10'200.0 + 900.0 + 4096.0 * 1e9 / 520e6).epsilon(0.001));
}

TEST_CASE("SATA SSD: sequential 4 KiB reads hit the controller's read-ahead", "[sata_ssd][device]") {
    const auto run = [](uint32_t ra_kb) {
        dev::SataSsdConfig c;
        c.read_ahead_kb = ra_kb;
        auto r = std::make_unique<Rig>(c);
        r->sequential(1'000'000, 8, blkmq::ReqOp::READ);
        r->run(1, 20'000);
        return r;
    };
    const auto with = run(256), without = run(0);
    CHECK(with->ssd.stats().ra_hits > 19'900);
    CHECK(without->ssd.stats().ra_hits == 0);
    // A hit costs the controller and the link only: 10.2 + 7.4 us instead of 87.6 us.
    CHECK(with->lat.mean() == Approx(10'200.0 + 4096.0 * 1e9 / 550e6).epsilon(0.02));
    CHECK(without->lat.mean() == Approx(87'647).epsilon(0.01));
    // Random reads never start a window.
    Rig rnd(dev::SataSsdConfig{});
    rnd.random(8, blkmq::ReqOp::READ);
    rnd.run(1, 2000);
    CHECK(rnd.ssd.stats().ra_hits == 0);
    CHECK(rnd.ssd.stats().ra_bytes == 0);
}

namespace {

std::string ssd_scenario(const std::string& device, const std::string& extra = "") {
    return R"({
  "host": { "cpus": 2, "cost_profile": "desktop-8t" },)" + extra + R"(
  "devices": [ )" + device + R"( ],
  "jobs": [ { "name": "r", "ioengine": "libaio", "direct": 1, "rw": "randread", "bs": "4k",
              "iodepth": 32, "runtime": "200ms", "time_based": 1 } ]
})";
}

std::string ssd_error(const std::string& device) {
    try {
        scenario::load_scenario_text(ssd_scenario(device), "ssd.json", {});
    } catch (const scenario::ScenarioError& e) {
        return e.what();
    }
    FAIL("expected a ScenarioError");
    return {};
}

}  // namespace

TEST_CASE("SATA SSD scenario: params with units, the profile, errors with the JSON path", "[sata_ssd][scenario]") {
    const auto s = scenario::load_scenario_text(
        ssd_scenario(R"({ "name": "sda", "model": "sata_ssd", "profile": "samsung-860evo-500g",
                          "params": { "read_latency": "50us", "gc_waf": 2.5, "free_pool_gc": 0, "buffer_mb": 1000 } })"),
        "ssd.json", {});
    const auto& d = s.machine.devices.at(0);
    CHECK(d.kind().name() == "sata_ssd");
    CHECK(d.as<dev::SataSsdConfig>().read_latency == 50_us);            // the entry overrides the profile
    CHECK(d.as<dev::SataSsdConfig>().gc_waf == 2.5);
    CHECK(d.as<dev::SataSsdConfig>().buffer_bytes == 1'000'000'000);
    CHECK(d.as<dev::SataSsdConfig>().cmd_overhead == 10'200_ns);         // from the profile
    CHECK(d.as<dev::SataSsdConfig>().size_bytes == 976'773'168ULL * 512);
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "gc_waf": 0.5 } })"),
               Catch::Contains("/devices/0/params/gc_waf"));
    // The constant WAF and the free-block pool would count garbage collection twice.
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "gc_waf": 2 } })"),
               Catch::Contains("/devices/0/params/gc_waf") && Catch::Contains("free_pool_gc"));
    // 1 GiB x 0.01 of spare is 2 blocks of 4 MiB: no room above a watermark of 32.
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "gb": 1, "over_provisioning": 0.01 } })"),
               Catch::Contains("/devices/0/params/gc_low_blocks") && Catch::Contains("2 blocks"));
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "over_provisioning": 0 } })"),
               Catch::Contains("/devices/0/params/over_provisioning"));
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "queue_depth": 64 } })"),
               Catch::Contains("/devices/0/params/queue_depth"));
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "read_latency": "70 parsecs" } })"),
               Catch::Contains("/devices/0/params/read_latency"));
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "irq_cpu": 7 } })"),
               Catch::Contains("/devices/0/params/irq_cpu") && Catch::Contains("2 CPUs"));
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "sata_ssd", "params": { "nand": 1 } })"),
               Catch::Contains("/devices/0/params"));
    CHECK_THAT(ssd_error(R"({ "name": "sda", "model": "hdd", "profile": "samsung-860evo-500g" })"),
               Catch::Contains("/devices/0/profile") && Catch::Contains("describes a sata_ssd device"));
}

TEST_CASE("SATA SSD scenario: behind an HBA its NCQ depth is the budget; the report has its section",
          "[sata_ssd][scenario]") {
    const auto s = scenario::load_scenario_text(
        ssd_scenario(R"({ "name": "sda", "model": "sata_ssd", "profile": "samsung-860evo-500g", "controller": "hba0" })",
                     R"( "controllers": [ { "name": "hba0", "kind": "hba", "can_queue": 256 } ],)"),
        "ssd.json", {"jobs.0.iodepth=64"});
    topology::Machine m(s.machine);
    const result::RunResult r = m.run();
    const uint64_t ios = r.jobs.at(0).dir[0].total_ios;
    // QD32 on the drive: near the controller's 98 k IOPS over 200 ms.
    CHECK(static_cast<double>(ios) == Approx(98'000 * 0.2).epsilon(0.10));
    REQUIRE(r.devices.size() == 1);
    const result::DeviceReport& d = r.devices[0];
    CHECK(d.model == "sata_ssd");
    CHECK(field(d, "queue_depth_max") == 32.0);  // the budget, not the job's 64 or the host's 256 tags
    CHECK(field(d, "reads") >= static_cast<double>(ios));
    CHECK(field(d, "ra_hits") == 0.0);
    const std::string text = report::format_blksim_extras(r);
    CHECK_THAT(text, Catch::Contains("sda (sata_ssd):") && Catch::Contains("ra_hits=") &&
                         Catch::Contains("buffer_fill_mb="));
}

TEST_CASE("SATA SSD: `blksim list devices` names it with its parameters", "[sata_ssd][scenario]") {
    const dev::DeviceKind* k = dev::find_device_kind("sata_ssd");
    REQUIRE(k != nullptr);
    CHECK(k->nr_params() >= 15);
}
