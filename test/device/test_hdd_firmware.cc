// The HDD's firmware beyond one stream (models/device/hdd.h): a cache segment per
// sequential stream. The drive is driven directly, as in test_hdd.cc.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "models/device/hdd.h"

#include "test/device/device_rig.h"

using namespace blksim;

namespace {

using Rig = testing::DeviceRig<dev::Hdd>;

// `streams` sequential readers, one request each in flight (tag i reads stream i), 64 KiB
// reads, the streams 100 GB apart: the drive sees them interleaved.
std::unique_ptr<Rig> interleaved_streams(const dev::HddConfig& cfg, uint32_t streams, uint64_t reads) {
    auto r = std::make_unique<Rig>(cfg, "hdd-firmware-test");
    auto pos = std::make_shared<std::vector<uint64_t>>();
    for (uint32_t i = 0; i < streams; ++i)
        pos->push_back(uint64_t{i} * 200'000'000);
    r->next = [pos](blkmq::Request& rq) {
        uint64_t& p = (*pos)[rq.tag];
        rq.sector = p;
        rq.nr_sectors = 128;
        rq.op = blkmq::ReqOp::READ;
        rq.ioprio_class = 2;
        p += 128;
    };
    r->run(streams, reads);
    return r;
}

}  // namespace

TEST_CASE("HDD: interleaved sequential readers keep streaming up to the segment count, then read at random-access rates",
          "[hdd][device]") {
    // FIFO serves the streams in turn, the cyclic order in which LRU loses every segment once
    // there is one stream more than segments. RPO serves them in positioning order: up to the
    // segment count it streams as FIFO does; beyond it, LRU replaces the segment of a stream
    // that has read all its data and waits for the head, so part of the hits remain.
    for (const auto sched : {dev::HddConfig::Sched::FIFO, dev::HddConfig::Sched::RPO}) {
        dev::HddConfig c;
        c.cache_segments = 4;
        c.sched = sched;
        dev::HddConfig no_prefetch = c;
        no_prefetch.stream_read_ahead_kb = 0;  // prefetch only when the head is idle
        double ratio_at_segments = 0;
        for (uint32_t n = 2; n <= 6; ++n) {
            CAPTURE(sched == dev::HddConfig::Sched::FIFO, n);
            const auto with = interleaved_streams(c, n, 3000);
            const auto without = interleaved_streams(no_prefetch, n, 3000);
            const auto& s = with->device.stats();
            const double hit_ratio = static_cast<double>(s.read_hits) / 3000;
            // Without prefetch among other commands every read pays a seek and a rotation.
            CHECK(without->device.stats().read_hits < 30);
            if (n <= c.cache_segments) {
                // Each stream's segment survives until its reader comes back: 512 KiB read
                // on per positioning, 8 of every 9 reads are hits.
                CHECK(hit_ratio > 0.85);
                CHECK(with->iops() > 3 * without->iops());
                ratio_at_segments = hit_ratio;
            } else if (sched == dev::HddConfig::Sched::FIFO) {
                // One stream more than segments: LRU hands each stream's segment to another
                // before its reader returns, no read continues a segment.
                CHECK(hit_ratio < 0.05);
                CHECK(with->iops() == Approx(without->iops()).epsilon(0.05));
            } else {
                CHECK(hit_ratio < ratio_at_segments - 0.05);
            }
        }
    }
}

TEST_CASE("HDD: cache hits and write-back acknowledgements each cost their own firmware overhead", "[hdd][device]") {
    using namespace blksim::sim::literals;
    // 512 B reads of one cached sector and 512 B sequential writes into the write cache, four
    // at a time: every command is answered from the buffer, so the firmware's time per
    // command is the rate (the link moves 512 B in under a microsecond).
    const auto cached_iops = [](sim::Duration hit, sim::Duration ack, blkmq::ReqOp op) {
        dev::HddConfig c;
        c.hit_overhead = hit;
        c.write_ack_overhead = ack;
        Rig r(c, "hdd-firmware-test");
        if (op == blkmq::ReqOp::READ) {
            r.next = [](blkmq::Request& rq) {
                rq.sector = 1000;
                rq.nr_sectors = 1;
                rq.op = blkmq::ReqOp::READ;
                rq.ioprio_class = 2;
            };
        } else {
            r.sequential(1000, 1, blkmq::ReqOp::WRITE);
        }
        r.run(4, 20000);
        const auto& s = r.device.stats();
        CHECK(s.read_misses + s.write_through <= 4);  // (the first reads fill the cache)
        return static_cast<double>(r.completed - 1) / (r.last_done - r.first_done).seconds();
    };
    for (const auto& [hit, ack] : {std::pair{50_us, 200_us}, std::pair{200_us, 50_us}}) {
        CAPTURE(hit.count(), ack.count());
        CHECK(cached_iops(hit, ack, blkmq::ReqOp::READ) == Approx(1e9 / static_cast<double>(hit.count())).epsilon(0.02));
        CHECK(cached_iops(hit, ack, blkmq::ReqOp::WRITE) == Approx(1e9 / static_cast<double>(ack.count())).epsilon(0.02));
    }
}

TEST_CASE("HDD: a 512 B write on a 512e drive costs a revolution more than on 512n; whole 4 KiB writes do not",
          "[hdd][device]") {
    // Write-through (no write cache), one command at a time, FIFO: each write's latency is
    // overhead + seek + rotation + media time, and on 512e a partial physical sector adds a
    // revolution (read it as it passes, write it when it comes round again).
    const auto mean_latency = [](uint32_t logical, uint32_t physical, uint32_t sectors, uint32_t offset) {
        dev::HddConfig c;
        c.blocksize = logical;
        c.physical_block_size = physical;
        c.write_cache = false;
        c.sched = dev::HddConfig::Sched::FIFO;
        Rig r(c, "hdd-firmware-test");
        const uint64_t blocks = r.device.capacity_sectors() / 8 - 1;
        r.next = [&r, blocks, sectors, offset](blkmq::Request& rq) {
            rq.sector = r.rng.below(blocks) * 8 + offset;
            rq.nr_sectors = sectors;
            rq.op = blkmq::ReqOp::WRITE;
            rq.ioprio_class = 2;
        };
        r.run(1, 4000);
        return std::pair{r.lat.mean(), r.device.stats().rmw_writes};
    };
    const double rev = static_cast<double>(dev::HddMechanics(dev::HddConfig{}).revolution_ns());
    const auto [n512, rmw_n] = mean_latency(512, 512, 1, 3);
    const auto [e512, rmw_e] = mean_latency(512, 4096, 1, 3);
    CHECK(rmw_n == 0);
    CHECK(rmw_e == 4000);
    CHECK(e512 - n512 == Approx(rev).epsilon(0.02));
    // Whole, aligned physical sectors: no read first, on 512e as on 4Kn and 512n.
    const auto [n4k, rmw_n4k] = mean_latency(512, 512, 8, 0);
    const auto [e4k, rmw_e4k] = mean_latency(512, 4096, 8, 0);
    const auto [k4k, rmw_k4k] = mean_latency(4096, 512, 8, 0);  // (physical below logical: 4Kn)
    CHECK(rmw_e4k + rmw_k4k == 0);
    CHECK(e4k == n4k);
    CHECK(k4k == n4k);
}
