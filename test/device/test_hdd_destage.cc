// The HDD's write cache against reads (models/device/hdd.h): destaging is the head's idle
// work until the dirty data passes its high mark, and a rewrite of dirty data replaces it
// in the buffer. The drive is driven directly, as in test_hdd.cc.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

#include "models/device/hdd.h"

#include "test/device/device_rig.h"

using namespace blksim;

namespace {

using Rig = testing::DeviceRig<dev::Hdd>;

// Tag 0 reads random 4 KiB blocks (ioprio class RT, so the rig's lat_high is the reads; NCQ
// priority is off, the drive ignores the class); tag 1 writes 4 KiB blocks, the block
// sectors `write_sector` gives, into the write cache. `max_dirty`: the most dirty sectors
// seen at a submission.
struct ReadWrite {
    std::unique_ptr<Rig> rig;
    uint64_t max_dirty = 0;
};

template <class F>
ReadWrite read_and_write(const dev::HddConfig& cfg, uint64_t n, F write_sector) {
    ReadWrite out{std::make_unique<Rig>(cfg, "hdd-destage-test"), 0};
    Rig& r = *out.rig;
    const uint64_t blocks = r.device.capacity_sectors() / 8;
    uint64_t* max_dirty = &out.max_dirty;
    r.next = [&r, blocks, write_sector, max_dirty](blkmq::Request& rq) {
        *max_dirty = std::max(*max_dirty, r.device.dirty_sectors());
        const bool write = rq.tag == 1;
        rq.sector = write ? write_sector(r.rng) : r.rng.below(blocks) * 8;
        rq.nr_sectors = 8;
        rq.op = write ? blkmq::ReqOp::WRITE : blkmq::ReqOp::READ;
        rq.ioprio_class = write ? 2 : 1;
    };
    r.run(2, n);
    return out;
}

}  // namespace

TEST_CASE("HDD: reads wait for destages only once the dirty data is past its high mark", "[hdd][device][hdd-destage]") {
    // Below the high mark: the writer rewrites 64 blocks spread over the disk, so at most 64
    // extents are dirty (the high mark is 192 extents). Past it: the writer writes all over
    // the disk and fills the cache's 256 extents.
    const auto few = read_and_write(dev::HddConfig{}, 40000, [](sim::Rng& g) { return g.below(64) * 1'000'000'007ULL % 900'000'000 * 8; });
    const auto many = read_and_write(dev::HddConfig{}, 40000, [](sim::Rng& g) { return g.below(900'000'000) * 8; });
    // The reads alone, one at a time.
    Rig alone(dev::HddConfig{}, "hdd-destage-test");
    const uint64_t blocks = alone.device.capacity_sectors() / 8;
    alone.next = [&alone, blocks](blkmq::Request& rq) {
        rq.sector = alone.rng.below(blocks) * 8;
        rq.nr_sectors = 8;
        rq.op = blkmq::ReqOp::READ;
    };
    alone.run(1, 5000);
    const auto& s = few.rig->device.stats();
    const auto& m = many.rig->device.stats();
    INFO("below: " << s.destages << " destages, " << s.destages_over_host << " ahead of a read; read mean "
                   << few.rig->lat_high.mean() / 1e6 << " ms; past: " << m.destages << " destages, "
                   << m.destages_over_host << " ahead of a read; read mean " << many.rig->lat_high.mean() / 1e6 << " ms");
    const double op_ms = static_cast<double>(s.seek_ns + s.rotation_ns + s.transfer_ns) / static_cast<double>(s.media_ops) / 1e6;
    INFO("reads alone " << alone.lat.mean() / 1e6 << " ms; a media operation " << op_ms << " ms");
    CHECK(few.max_dirty <= 65 * 8);  // 64 waiting, and a copy of one being destaged
    // A read that arrives while a destage runs waits for the rest of that one only.
    CHECK(few.rig->lat_high.mean() / 1e6 < alone.lat.mean() / 1e6 + op_ms);
    CHECK(s.destages > 100);             // the head destages between the reads...
    CHECK(s.destages_over_host == 0);    // ... never while a read waits for it
    CHECK(m.destages_over_host > 100);   // past the high mark destages compete by position
    CHECK(many.rig->lat_high.mean() > few.rig->lat_high.mean());
}

TEST_CASE("HDD: a rewrite of dirty data replaces it in the buffer; it adds no dirty data", "[hdd][device][hdd-destage]") {
    // (Section names stay short: Catch2 aborts wrapping a long one when it reports a failure.)
    // One extent dirty (and a copy being destaged), a destage per revolution.
    SECTION("the same 4 KiB 1000 times, alone") {
        Rig r(dev::HddConfig{}, "hdd-destage-test");
        uint64_t max_dirty = 0;
        r.next = [&r, &max_dirty](blkmq::Request& rq) {
            max_dirty = std::max(max_dirty, r.device.dirty_sectors());
            rq.sector = 4096;
            rq.nr_sectors = 8;
            rq.op = blkmq::ReqOp::WRITE;
        };
        r.run(1, 1000);
        const auto& s = r.device.stats();
        CHECK(s.write_back_acks == 1000);
        CHECK(max_dirty <= 2 * 8);
        // The head writes the block whenever it comes round: the rewrites between two
        // passes cost nothing on the media. Beyond one per revolution up to the last
        // acknowledgement: the first (less than a revolution away), the one under way at the
        // last acknowledgement and the drain after it (measured: 15 over 12.8 revolutions).
        const double revolutions = (r.last_done - sim::Time::zero()).seconds() / 60.0 * 7200;
        CHECK(static_cast<double>(s.destages) <= revolutions + 3);
        CHECK(s.destages < 100);
        CHECK(r.device.dirty_sectors() == 0);  // drained once the writes stop
    }
    // 4 KiB writes at 512 B offsets: at most the region dirty.
    SECTION("overlapping 4 KiB writes in a 64 KiB region, beside a reader") {
        const auto rw = read_and_write(dev::HddConfig{}, 20000, [](sim::Rng& g) { return 1'000'000 + g.below(121); });
        const auto& s = rw.rig->device.stats();
        INFO(s.write_back_acks << " writes acknowledged, " << s.destages << " destages, at most " << rw.max_dirty
                               << " sectors dirty");
        CHECK(s.write_back_acks > 10000);
        CHECK(s.destages > 10);
        CHECK(rw.max_dirty <= 2 * 128);  // the region waiting, and a copy of it being destaged
    }
}
