// Flash service-time spread (models/device/service_spread.h) in the SATA SSD and NVMe models,
// the SATA SSD's read-ahead streams, and the ATA / SCSI driver stack's CPU cost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "models/device/sata_ssd.h"
#include "models/topology/machine.h"
#include "tools/scenario/scenario.h"

#include "test/device/device_rig.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// A SATA SSD driven at QD1 by 4 KiB random reads, every latency kept.
struct Spread : testing::DeviceRig<dev::SataSsd> {
    std::vector<int64_t> lats;
    explicit Spread(const dev::SataSsdConfig& cfg) : DeviceRig(cfg, "ssd-spread") {
        device.set_completion_sink(&Spread::keep, this);
        const uint64_t blocks = device.capacity_sectors() / 8;
        next = [this, blocks](blkmq::Request& rq) {
            rq.sector = rng.below(blocks) * 8;
            rq.nr_sectors = 8;
            rq.op = blkmq::ReqOp::READ;
        };
    }
    static void keep(void* obj, blkmq::Request* rq, sim::Time now) {
        auto* s = static_cast<Spread*>(obj);
        s->lats.push_back((now - s->issued[rq->tag]).count());
        DeviceRig::on_done(obj, rq, now);
    }
    int64_t pct(double p) const {
        std::vector<int64_t> v = lats;
        std::sort(v.begin(), v.end());
        return v[static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1))];
    }
};

}  // namespace

TEST_CASE("SATA SSD: page reads spread around tR: p99 above p50, the mean kept", "[sata_ssd][device][variance]") {
    Spread s{dev::SataSsdConfig{}};
    s.device.seed(1, "sda");
    s.run(1, 20'000);
    dev::SataSsdConfig flat_cfg;
    flat_cfg.read_sigma = 0;
    Spread flat{flat_cfg};
    flat.run(1, 2'000);
    INFO("p50 " << s.pct(50) << " p99 " << s.pct(99) << " p99.9 " << s.pct(99.9) << " mean " << s.lat.mean());
    // Without a spread every read takes controller + tR + transfer.
    CHECK(flat.pct(50) == flat.pct(99));
    // With the profile's sigma: a tail (the 850 EVO's p99 is 29 % above its p50; the drive's
    // part here, without the host's ~5 us, a little more), around the same mean.
    CHECK(s.pct(99) > s.pct(50) + 20'000);
    CHECK(s.pct(99.9) > s.pct(99));
    CHECK(s.pct(50) < flat.pct(50));  // a right-skewed spread puts the median below the mean
    CHECK(s.lat.mean() == Approx(flat.lat.mean()).epsilon(0.01));
}

TEST_CASE("SATA SSD: the same seed draws the same service times, another seed others", "[sata_ssd][device][variance]") {
    const auto run = [](uint64_t seed, const char* name) {
        auto s = std::make_unique<Spread>(dev::SataSsdConfig{});
        s->device.seed(seed, name);
        s->run(1, 500);
        return s->lats;
    };
    CHECK(run(7, "sda") == run(7, "sda"));
    CHECK(run(7, "sda") != run(8, "sda"));
    CHECK(run(7, "sda") != run(7, "sdb"));  // each drive its own stream
}

namespace {

// N sequential 4 KiB readers, far apart, taking turns at QD1 (what N fio jobs reading files
// in parallel look like at the drive).
dev::SataSsd::Stats interleaved(uint32_t readers, uint32_t streams) {
    dev::SataSsdConfig c;
    c.read_ahead_streams = streams;
    auto r = std::make_unique<testing::DeviceRig<dev::SataSsd>>(c, "ssd-streams");
    auto pos = std::make_shared<std::vector<uint64_t>>(readers);
    for (uint32_t i = 0; i < readers; ++i)
        (*pos)[i] = 10'000'000ULL * (i + 1);
    auto turn = std::make_shared<uint32_t>(0);
    r->next = [pos, turn, readers](blkmq::Request& rq) {
        uint64_t& p = (*pos)[(*turn)++ % readers];
        rq.sector = p;
        rq.nr_sectors = 8;
        rq.op = blkmq::ReqOp::READ;
        p += 8;
    };
    r->run(1, 400ULL * readers);
    return r->device.stats();
}

double hit_pct(const dev::SataSsd::Stats& s) { return 100.0 * static_cast<double>(s.ra_hits) / static_cast<double>(s.reads); }

}  // namespace

TEST_CASE("SATA SSD: interleaved sequential readers keep their read-ahead up to the stream count",
          "[sata_ssd][device][streams]") {
    // Up to the drive's 8 streams every reader keeps its window: all reads after each
    // stream's first two hit.
    for (uint32_t n : {1u, 4u, 8u}) {
        INFO(n << " readers");
        CHECK(hit_pct(interleaved(n, 8)) > 99.0);
    }
    // One more than it tracks and round-robin turns evict each stream before it comes back:
    // no hits, every read goes to the flash.
    CHECK(hit_pct(interleaved(9, 8)) == 0.0);
    CHECK(interleaved(9, 8).page_reads >= 9u * 400);
    // A single window (streams = 1) already loses it with two readers.
    CHECK(hit_pct(interleaved(2, 1)) == 0.0);
    CHECK(hit_pct(interleaved(2, 2)) > 99.0);
}

namespace {

// clat p50 / p99 and slat mean of a short fio-like run on `device`, costs as given.
struct Run {
    uint64_t p50 = 0, p99 = 0;
    double slat = 0;
    std::vector<double> clats;
};

Run run_scenario(const std::string& device, const std::string& costs, const std::string& rw, uint32_t seed = 1) {
    const std::string text = R"({
  "seed": )" + std::to_string(seed) + R"(,
  "host": { "cpus": 2, "cost_profile": "desktop-8t", "os_jitter": false, "costs": {)" + costs + R"(} },
  "devices": [ )" + device + R"( ],
  "jobs": [ { "name": "r", "ioengine": "libaio", "direct": 1, "rw": ")" + rw + R"(", "bs": "4k",
              "iodepth": 1, "runtime": "100ms", "time_based": 1 } ]
})";
    const auto s = scenario::load_scenario_text(text, "variance.json", {});
    topology::Machine m(s.machine);
    const auto r = m.run();
    REQUIRE(r.jobs.size() == 1);
    const auto& d = r.jobs[0].dir[0];
    const std::array<double, 2> pl = {50.0, 99.0};
    const auto p = d.clat_hist.percentiles(pl);
    return {p[0], p[1], d.slat.mean(), {d.clat.mean(), d.clat.max()}};
}

const std::string kNvme = R"({ "name": "nvme0n1", "model": "nvme" })";
const std::string kHdd = R"({ "name": "sda", "model": "hdd", "profile": "hdd-7200-sata" })";
const std::string kSasHdd = R"({ "name": "sdb", "model": "hdd", "profile": "hdd-7200-sas" })";

}  // namespace

TEST_CASE("NVMe: media times spread around their mean, deterministic per seed", "[nvme][variance]") {
    const Run a = run_scenario(kNvme, "", "randread");
    INFO("p50 " << a.p50 << " p99 " << a.p99);
    CHECK(a.p99 > a.p50 * 1.15);
    const Run flat = run_scenario(R"({ "name": "nvme0n1", "model": "nvme", "params": { "read_sigma": 0 } })", "",
                                  "randread");
    CHECK(flat.p99 == flat.p50);
    CHECK(a.clats[0] == Approx(flat.clats[0]).epsilon(0.01));  // the mean is the profile's
    CHECK(run_scenario(kNvme, "", "randread").clats == a.clats);
    CHECK(run_scenario(kNvme, "", "randread", 2).clats != a.clats);
}

TEST_CASE("ATA / SCSI driver stack: a SATA HDD's slat rises by ata_queue_rq, NVMe's does not",
          "[cpu][driver_cost]") {
    const std::string none = R"("ata_queue_rq": 0, "ata_complete": 0, "scsi_queue_rq": 0, "scsi_complete": 0)";
    const std::string some = R"("ata_queue_rq": "5000ns", "ata_complete": 0, "scsi_queue_rq": "9000ns", "scsi_complete": 0)";
    const Run h0 = run_scenario(kHdd, none, "randread"), h1 = run_scenario(kHdd, some, "randread");
    INFO("SATA HDD slat " << h0.slat << " -> " << h1.slat);
    CHECK(h1.slat - h0.slat == Approx(5000).margin(50));
    // A SAS drive (queue deeper than NCQ's 32) pays the SCSI figure instead.
    const Run s0 = run_scenario(kSasHdd, none, "randread"), s1 = run_scenario(kSasHdd, some, "randread");
    CHECK(s1.slat - s0.slat == Approx(9000).margin(50));
    const Run n0 = run_scenario(kNvme, none, "randread"), n1 = run_scenario(kNvme, some, "randread");
    CHECK(n1.slat == n0.slat);
    CHECK(n1.clats == n0.clats);
}
