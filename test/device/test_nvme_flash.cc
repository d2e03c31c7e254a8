// The NVMe model's flash units and link (models/device/nvme.h, link.h): a page is read by
// the unit that holds it (pages striped by LBA over the units), so reads of different units
// go in parallel and reads of one unit queue; a page just read is in its unit's page
// register; a large read's pages are read at once; random reads collide, so a queue as deep
// as the units keeps fewer of them busy; and the link moves whatever data is ready first.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "models/device/link.h"
#include "models/device/nvme.h"

#include "test/device/device_rig.h"

using namespace blksim;

namespace {

constexpr uint64_t kPageSectors = 32;  // the default 16 KiB page

struct Rig : testing::DeviceRig<dev::Nvme> {
    explicit Rig(const dev::NvmeConfig& cfg) : DeviceRig(cfg, "nvme-flash-test") {}
};

// The flash alone: no controller time, a link too fast to matter, constant media times.
dev::NvmeConfig flash_only() {
    dev::NvmeConfig c;
    c.cmd_overhead = sim::Duration::ns(0);
    c.link_bytes_per_s = 1'000'000'000'000'000;
    c.read_sigma = 0;
    c.write_sigma = 0;
    c.free_pool_gc = false;
    return c;
}

// Submits the requests (first sector, sectors) all at instant 0, one each, reads then, from
// index first_write on, writes, and returns their completion instants (ns) in submission
// order.
std::vector<int64_t> at_once(const dev::NvmeConfig& c, const std::vector<std::pair<uint64_t, uint32_t>>& requests,
                             size_t first_write = SIZE_MAX) {
    Rig r(c);
    std::vector<int64_t> done(requests.size(), -1);
    r.device.set_completion_sink(
        [](void* obj, blkmq::Request* rq, sim::Time now) { (*static_cast<std::vector<int64_t>*>(obj))[rq->tag] = now.ns(); },
        &done);
    std::vector<blkmq::Request> rqs(requests.size());
    for (size_t i = 0; i < requests.size(); ++i) {
        rqs[i].tag = static_cast<uint16_t>(i);
        rqs[i].sector = requests[i].first;
        rqs[i].nr_sectors = requests[i].second;
        rqs[i].op = i >= first_write ? blkmq::ReqOp::WRITE : blkmq::ReqOp::READ;
        REQUIRE(r.device.queue_rq(&rqs[i], true, sim::Time::zero(), 0) == dev::BlkStatus::OK);
    }
    while (r.eq.run_one()) {
    }
    return done;
}

std::vector<int64_t> read_at_once(const dev::NvmeConfig& c, const std::vector<std::pair<uint64_t, uint32_t>>& reads) {
    return at_once(c, reads);
}

}  // namespace

TEST_CASE("NVMe flash: reads of pages on different units go in parallel, of one unit's pages in turn", "[nvme]") {
    const dev::NvmeConfig c = flash_only();
    const int64_t tr = c.read_latency.count();
    const uint64_t units = c.parallel_units;
    std::vector<std::pair<uint64_t, uint32_t>> spread, one_unit;
    for (uint64_t i = 0; i < 8; ++i) {
        spread.emplace_back(i * kPageSectors, 8);           // pages 0..7: units 0..7
        one_unit.emplace_back(i * units * kPageSectors, 8);  // pages 0, 64, 128...: all unit 0
    }
    for (const int64_t t : read_at_once(c, spread))
        CHECK(t == Approx(tr).epsilon(0.01));
    const std::vector<int64_t> queued = read_at_once(c, one_unit);
    for (size_t i = 0; i < queued.size(); ++i)
        CHECK(queued[i] == Approx(static_cast<double>(tr) * static_cast<double>(i + 1)).epsilon(0.01));
}

TEST_CASE("NVMe flash: a page just read is in its unit's page register", "[nvme]") {
    const dev::NvmeConfig c = flash_only();
    const int64_t tr = c.read_latency.count(), per_4k = c.per_4k.count();
    // The four 4 KiB pieces of page 0: one sensing, then each piece moved out.
    const std::vector<int64_t> t = read_at_once(c, {{0, 8}, {8, 8}, {16, 8}, {24, 8}});
    CHECK(t[0] == Approx(tr).epsilon(0.01));
    for (size_t i = 1; i < 4; ++i)
        CHECK(t[i] == Approx(tr + per_4k).epsilon(0.01));
    // Another page read on that unit in between evicts it: the page is sensed again.
    const std::vector<int64_t> evicted =
        read_at_once(c, {{0, 8}, {c.parallel_units * kPageSectors, 8}, {8, 8}});
    CHECK(evicted[2] == Approx(3 * tr).epsilon(0.01));
}

TEST_CASE("NVMe flash: a large read's pages are read at once on their units", "[nvme]") {
    const dev::NvmeConfig c = flash_only();
    const int64_t tr = c.read_latency.count(), per_4k = c.per_4k.count();
    // 64 KiB from page 0: four pages on four units, each sensed once and its three further
    // 4 KiB pieces moved, where one unit reading 16 pieces would take tR + 15 per_4k.
    const std::vector<int64_t> t = read_at_once(c, {{0, 128}});
    CHECK(t[0] == Approx(tr + 3 * per_4k).epsilon(0.01));
    // Not page-aligned: 8 KiB starting 4 KiB before a page boundary takes a piece of each.
    CHECK(read_at_once(c, {{24, 16}})[0] == Approx(tr).epsilon(0.01));
}

TEST_CASE("NVMe flash: random reads collide on the units, so a queue as deep as the units keeps fewer busy",
          "[nvme]") {
    const dev::NvmeConfig c = flash_only();
    const double units = c.parallel_units, tr = static_cast<double>(c.read_latency.count()) * 1e-9;
    const auto iops = [&](uint32_t qd) {
        Rig r(c);
        r.mixed(8, 0);  // 4 KiB random reads only
        r.run(qd, 200'000);
        return r.iops();
    };
    // QD 1: one unit at a time. QD = units: each read goes to a unit chosen at random, so
    // some units have several queued and others none. A closed network of QD customers over
    // `units` servers chosen at random gives QD / (QD + units - 1) of the units' rate with
    // exponential service times (Gordon-Newell); constant ones collide less, so the model
    // lies between that and the units' full rate.
    CHECK(iops(1) == Approx(1 / tr).epsilon(0.01));
    const double full = units / tr, qd = units;
    const double at_units = iops(c.parallel_units);
    INFO("QD " << qd << ": " << at_units << " IOPS, units' rate " << full);
    CHECK(at_units > qd / (qd + units - 1) * full);
    CHECK(at_units < 0.75 * full);
    // Deeper queues fill more units: at 8 x the units nearly all are busy.
    CHECK(iops(8 * c.parallel_units) > 0.85 * full);
}

TEST_CASE("NVMe flash: the link moves a read that is ready before one that arrived first", "[nvme]") {
    dev::NvmeConfig c = flash_only();
    c.link_bytes_per_s = 4'096'000'000;  // 1 us per 4 KiB
    const int64_t tr = c.read_latency.count();
    // Four reads queued on unit 0 (ready at 1, 2, 3, 4 tR), then one on unit 1: it is ready
    // at 1 tR and crosses the link in the gap after the first, not after the fourth.
    std::vector<std::pair<uint64_t, uint32_t>> reads;
    for (uint64_t i = 0; i < 4; ++i)
        reads.emplace_back(i * c.parallel_units * kPageSectors, 8);
    reads.emplace_back(kPageSectors, 8);
    const std::vector<int64_t> t = read_at_once(c, reads);
    CHECK(t[0] == tr + 1000);
    CHECK(t[4] == tr + 2000);  // behind the first's transfer, ready at the same instant
    CHECK(t[3] == 4 * tr + 1000);
}

TEST_CASE("Link: a booking takes the earliest gap at or after it is ready that holds it", "[nvme]") {
    dev::Link l;
    CHECK(l.book(100, 10, 0) == 110);  // [100, 110)
    CHECK(l.book(200, 10, 0) == 210);  // [200, 210): a gap from 110 to 200
    CHECK(l.book(105, 10, 0) == 120);  // after the first, in the gap
    CHECK(l.book(115, 80, 0) == 200);  // fills the gap exactly: one busy span to 210
    CHECK(l.book(150, 5, 0) == 215);   // no gap left before 210
    CHECK(l.free_at() == 215);
    CHECK(l.book(0, 50, 0) == 50);     // before everything
    CHECK(l.book(40, 60, 0) == 215 + 60);  // no gap of 60 before the end
    // Many short bookings with the clock moving on: those that ended are dropped (no booking
    // is ready before the clock), and a booking behind the last one still finds its place.
    for (int64_t i = 0; i < 200; ++i)
        l.book(1000 + 20 * i, 10, 1000 + 20 * i);
    CHECK(l.book(1000 + 20 * 199 + 5, 10, 1000 + 20 * 199) == 1000 + 20 * 199 + 20);
}

TEST_CASE("NVMe flash: writes take the units in turn, whatever the reads hold", "[nvme]") {
    const dev::NvmeConfig c = flash_only();
    const int64_t tr = c.read_latency.count(), tw = c.write_latency.count();
    // A read holds unit 0 for tR; the first write goes to unit 0 too (the write pointer
    // starts there) and waits for it, the second to unit 1, free.
    const std::vector<int64_t> t = at_once(c, {{0, 8}, {1 << 20, 8}, {2 << 20, 8}}, 1);
    CHECK(t[0] == tr);
    CHECK(t[1] == tr + tw);
    CHECK(t[2] == tw);
}
