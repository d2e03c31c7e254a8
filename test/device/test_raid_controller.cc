// The hardware RAID controller (models/device/raid_controller.h): driven directly, a closed
// loop at the controller with its member disks behind it; then from a scenario (decoding,
// bad layouts refused with the JSON path).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "models/device/hdd.h"
#include "models/device/device_kinds.h"
#include "models/device/raid_controller.h"
#include "sim/random.h"

#include "test/cli/cli_fixture.h"
#include "test/device/device_rig.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

dev::RaidConfig raid_of(dev::RaidConfig::Level level, uint32_t n, bool disk_write_cache = false) {
    dev::RaidConfig c;
    c.level = level;
    for (uint32_t i = 0; i < n; ++i) {
        dev::RaidMember m;
        m.name = "m" + std::to_string(i);
        m.model = dev::find_device_kind("hdd")->defaults();
        m.model.get<dev::HddConfig>()->write_cache = disk_write_cache;
        c.members.push_back(m);
    }
    return c;
}

struct Rig : testing::DeviceRig<dev::RaidController> {
    dev::RaidController& raid = device;
    explicit Rig(const dev::RaidConfig& cfg) : DeviceRig(cfg, "raid-test") {}

    void random(uint32_t sectors, blkmq::ReqOp op) {
        const uint64_t blocks = raid.capacity_sectors() / sectors;
        next = [this, sectors, blocks, op](blkmq::Request& rq) {
            rq.sector = rng.below(blocks) * sectors;
            rq.nr_sectors = sectors;
            rq.op = op;
        };
    }
    uint64_t disk_commands(uint32_t i) const {
        return dynamic_cast<const dev::Hdd&>(raid.member(i)).stats().commands;
    }
};

void write_file(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("raid0 lays strips round-robin over the members and adds their capacity", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 3);
    c.read_ahead = false;  // nora: a miss reads exactly what was asked
    Rig r(c);
    REQUIRE(r.raid.capacity_sectors() == dev::raid_capacity_sectors(c));
    REQUIRE(r.raid.capacity_sectors() == 3 * (c.members[0].model.get<dev::HddConfig>()->size_bytes / 512 / 512 * 512));
    r.sequential(0, 512, blkmq::ReqOp::READ);  // one 256 KiB strip per command
    r.run(1, 6);
    for (uint32_t i = 0; i < 3; ++i)
        CHECK(r.disk_commands(i) == 2);
    // A command straddling a strip boundary becomes one disk command on each side.
    Rig r2(c);
    r2.sequential(256, 512, blkmq::ReqOp::READ);
    r2.run(1, 1);
    CHECK(r2.disk_commands(0) == 1);
    CHECK(r2.disk_commands(1) == 1);
    CHECK(r2.raid.stats().member_reads == 2);
}

TEST_CASE("read-ahead turns 512 B sequential reads into cache hits", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    Rig ra(c);
    ra.sequential(0, 1, blkmq::ReqOp::READ);
    ra.run(1, 20000);
    const auto& s = ra.raid.stats();
    CHECK(s.reads == 20000);
    CHECK(static_cast<double>(s.read_hits) / static_cast<double>(s.reads) > 0.99);
    CHECK(s.lines_prefetched > 0);
    // With rdcache=nora every read goes to a disk.
    c.read_ahead = false;
    Rig nora(c);
    nora.sequential(0, 1, blkmq::ReqOp::READ);
    nora.run(1, 2000);
    CHECK(nora.raid.stats().read_hits == 0);
    CHECK(nora.raid.stats().member_reads == 2000);
    CHECK(nora.lat.mean() > 10 * ra.lat.mean());
}

TEST_CASE("the firmware bounds cached small I/O at fw_cores / cmd_overhead", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    c.fw_cores = 2;
    c.cmd_overhead = 10_us;
    c.link_bytes_per_s = 100'000'000'000;  // take the link out of the way
    Rig r(c);
    r.sequential(0, 1, blkmq::ReqOp::READ);
    r.run(32, 100000);
    REQUIRE(r.raid.stats().read_hits > 99000);
    CHECK(r.iops() == Approx(200000).epsilon(0.03));
    c.fw_cores = 1;
    Rig r1(c);
    r1.sequential(0, 1, blkmq::ReqOp::READ);
    r1.run(32, 100000);
    CHECK(r1.iops() == Approx(100000).epsilon(0.03));
}

TEST_CASE("write back acknowledges from the cache and destages later; write through waits for the disks", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    Rig wb(c);
    wb.random(8, blkmq::ReqOp::WRITE);
    wb.run(1, 200);
    // Acknowledged after the firmware and the link: far below a disk's milliseconds.
    CHECK(wb.lat.max() < 100e3);
    CHECK(wb.raid.stats().writes == 200);
    // The run drains: the flush interval destages everything (one line per random write).
    CHECK(wb.raid.dirty_lines() == 0);
    CHECK(wb.raid.stats().lines_destaged == 200);
    CHECK(wb.raid.stats().member_writes == 200);
    c.write_back = false;
    Rig wt(c);
    wt.random(8, blkmq::ReqOp::WRITE);
    wt.run(1, 200);
    CHECK(wt.lat.mean() > 1e6);  // a positioning of the disk (its write cache is off)
    CHECK(wt.raid.stats().member_writes == 200);
}

TEST_CASE("writes wait while dirty_pct of the cache is dirty", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    c.cache_mb = 4;  // 64 lines of 64 KiB: 32 may be dirty
    Rig r(c);
    r.random(8, blkmq::ReqOp::WRITE);
    r.run(8, 400);
    CHECK(r.raid.stats().write_stalls > 0);
    CHECK(r.raid.stats().dirty_lines_max <= 32);
    CHECK(r.completed == 400);
    CHECK(r.raid.dirty_lines() == 0);
}

TEST_CASE("a write waiting for lines held by fills starts when the fills are in", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    c.cache_mb = 4;  // 64 lines of 64 KiB, 32 may be dirty
    Rig r(c);
    // A 60-line read misses and takes 60 lines for its fills; the 8-line write behind it
    // finds 4 free and nothing dirty to destage, so only the fills' end can let it in.
    auto n = std::make_shared<int>(0);
    r.next = [n](blkmq::Request& rq) {
        const bool read = (*n)++ == 0;
        rq.op = read ? blkmq::ReqOp::READ : blkmq::ReqOp::WRITE;
        rq.sector = read ? 0 : 1 << 20;
        rq.nr_sectors = read ? 60 * 128 : 8 * 128;
    };
    r.run(2, 2);
    CHECK(r.raid.stats().write_stalls == 1);
    CHECK(r.raid.stats().lines_filled == 60);
    CHECK(r.completed == 2);
    CHECK(r.raid.check_idle().empty());
    CHECK(r.raid.dirty_lines() == 0);
}

TEST_CASE("a read larger than the cache does not evict its own lines to fill the rest", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    c.cache_mb = 4;  // 64 lines of 64 KiB
    Rig r(c);
    // Lines 64..79 are cached first and are the oldest in the LRU; then an 80-line read
    // from line 0 misses 64 lines. Filling those would evict lines 64..79, which the same
    // read needs further on, with no line left to fill them again (a crash, found by the
    // invariant search): the read goes around the cache instead.
    auto n = std::make_shared<int>(0);
    r.next = [n](blkmq::Request& rq) {
        const bool first = (*n)++ == 0;
        rq.op = blkmq::ReqOp::READ;
        rq.sector = first ? 64 * 128 : 0;
        rq.nr_sectors = first ? 16 * 128 : 80 * 128;
    };
    r.run(1, 2);
    CHECK(r.completed == 2);
    CHECK(r.raid.stats().lines_filled == 16);
    CHECK(r.raid.stats().uncached_reads == 1);
    CHECK(r.raid.check_idle().empty());
}

TEST_CASE("a write larger than the dirty limit goes through to the disks instead of waiting", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    c.cache_mb = 4;  // at most 32 dirty lines of 64 KiB
    for (const uint32_t lines : {32u, 40u}) {
        Rig r(c);
        r.sequential(0, lines * 128, blkmq::ReqOp::WRITE);
        r.run(2, 4);
        CHECK(r.completed == 4);
        CHECK(r.raid.check_idle().empty());
        const auto& s = r.raid.stats();
        if (lines == 32) {
            // Fits: cached, destaged later.
            CHECK(s.dirty_lines_max == 32);
            CHECK(s.lines_destaged == 4 * 32);
        } else {
            // Never can: written through, one disk write per 256 KiB strip, the cache untouched.
            CHECK(s.write_stalls == 0);
            CHECK(s.dirty_lines_max == 0);
            CHECK(s.lines_destaged == 0);
            CHECK(s.member_writes == 4 * 10);
        }
    }
}

TEST_CASE("raid5: a small write is a read-modify-write, a full row one full-stripe write", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID5, 3);
    c.write_back = false;
    Rig rmw(c);
    rmw.sequential(0, 8, blkmq::ReqOp::WRITE);
    rmw.run(1, 1);
    CHECK(rmw.raid.stats().rmw == 1);
    CHECK(rmw.raid.stats().member_reads == 2);   // old data, old parity
    CHECK(rmw.raid.stats().member_writes == 2);  // new data, new parity
    CHECK(rmw.raid.capacity_sectors() == 2 * (c.members[0].model.get<dev::HddConfig>()->size_bytes / 512 / 512 * 512));
    // Write back, one row (2 data strips of 256 KiB) written in full: data + parity, no reads.
    c.write_back = true;
    Rig full(c);
    full.sequential(0, 1024, blkmq::ReqOp::WRITE);
    full.run(1, 1);
    CHECK(full.raid.stats().full_stripe_writes == 1);
    CHECK(full.raid.stats().rmw == 0);
    CHECK(full.raid.stats().member_reads == 0);
    CHECK(full.raid.stats().member_writes == 3);
}

TEST_CASE("raid1 writes both mirrors; raid10 stripes over mirror pairs", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID1, 2);
    c.write_back = false;
    Rig r1(c);
    r1.random(8, blkmq::ReqOp::WRITE);
    r1.run(1, 10);
    CHECK(r1.disk_commands(0) == 10);
    CHECK(r1.disk_commands(1) == 10);
    CHECK(r1.raid.capacity_sectors() == c.members[0].model.get<dev::HddConfig>()->size_bytes / 512 / 512 * 512);
    dev::RaidConfig c10 = raid_of(dev::RaidConfig::Level::RAID10, 4);
    c10.write_back = false;
    Rig r10(c10);
    r10.sequential(0, 512, blkmq::ReqOp::WRITE);  // strip 0 -> pair 0, strip 1 -> pair 1
    r10.run(1, 2);
    for (uint32_t i = 0; i < 4; ++i)
        CHECK(r10.disk_commands(i) == 1);
}

TEST_CASE("bad RAID layouts are refused", "[raid]") {
    CHECK(dev::RaidController::check_config(raid_of(dev::RaidConfig::Level::RAID5, 2)) ==
          "raid5 needs at least 3 members, got 2");
    CHECK(dev::RaidController::check_config(raid_of(dev::RaidConfig::Level::RAID10, 5)) ==
          "raid10 needs an even number of members, got 5");
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    c.strip_kb = 96;
    CHECK_THAT(dev::RaidController::check_config(c), Catch::Contains("multiple of cache_line_kb"));
    CHECK(dev::RaidController::check_config(raid_of(dev::RaidConfig::Level::RAID0, 2)).empty());
}

TEST_CASE("a raid scenario with a bad layout exits 2 naming the JSON path", "[raid][cli]") {
    const std::string f = (std::filesystem::temp_directory_path() / "blksim-test-bad-raid.json").string();
    write_file(f, R"({"host": {"cpus": 4, "cost_profile": "desktop-8t"},
      "devices": [{"name": "sda", "model": "raid", "profile": "huawei-sas3508", "params": {"level": "raid5"},
                   "members": [{"model": "hdd", "profile": "toshiba-mg04aca400n"}, {"model": "hdd"}]}],
      "jobs": [{"name": "j", "device": "sda", "rw": "read", "runtime": "1ms", "time_based": 1}]})");
    const auto r = clitest::run_blksim("validate " + f);
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains("/devices/0/params") && Catch::Contains("raid5 needs at least 3 members"));
    write_file(f, R"({"host": {"cpus": 4, "cost_profile": "desktop-8t"},
      "devices": [{"name": "sda", "model": "hdd", "members": [{"model": "hdd"}]}],
      "jobs": [{"name": "j", "device": "sda", "rw": "read", "runtime": "1ms", "time_based": 1}]})");
    const auto r2 = clitest::run_blksim("validate " + f);
    CHECK(r2.status == 2);
    CHECK_THAT(r2.out, Catch::Contains("/devices/0"));
}

TEST_CASE("check_idle names a host command the controller still owes, and is empty once all completed", "[raid]") {
    dev::RaidConfig c = raid_of(dev::RaidConfig::Level::RAID0, 2);
    Rig r(c);
    r.sequential(0, 8, blkmq::ReqOp::READ);
    r.rqs.assign(4, blkmq::Request{});
    r.issued.assign(4, sim::Time{});
    r.to_submit = 4;
    for (uint32_t i = 0; i < 4; ++i) {
        r.rqs[i].tag = static_cast<uint16_t>(i);
        r.submit(&r.rqs[i], r.eq.now());
    }
    CHECK(r.raid.check_idle() == "raid: 4 host command(s) never completed");
    while (r.eq.run_one()) {
    }
    CHECK(r.completed == 4);
    CHECK(r.raid.check_idle().empty());
}
