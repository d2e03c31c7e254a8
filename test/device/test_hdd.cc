// The HDD device (models/device/hdd.h) driven directly: a closed loop keeps `qd` requests
// at the drive and measures what comes back. No block layer in between, so every figure
// is the drive's own.
#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "models/device/hdd.h"
#include "sim/random.h"
#include "sim/stats.h"

#include "test/device/device_rig.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct Rig : testing::DeviceRig<dev::Hdd> {
    dev::Hdd& hdd = device;
    explicit Rig(const dev::HddConfig& cfg) : DeviceRig(cfg, "hdd-test") {}

    // Generators.
    void random_reads(uint32_t sectors, uint32_t high_percent = 0) {
        const uint64_t blocks = hdd.capacity_sectors() / sectors;
        next = [this, sectors, blocks, high_percent](blkmq::Request& rq) {
            rq.sector = rng.below(blocks) * sectors;
            rq.nr_sectors = sectors;
            rq.op = blkmq::ReqOp::READ;
            rq.ioprio_class = rng.below(100) < high_percent ? 1 : 2;
        };
    }
    void sequential(uint64_t start, uint32_t sectors, blkmq::ReqOp op) {
        DeviceRig::sequential(start, sectors, op, 2);  // best effort
    }
};

dev::HddConfig fifo() {
    dev::HddConfig c;
    c.sched = dev::HddConfig::Sched::FIFO;
    return c;
}

}  // namespace

TEST_CASE("HDD: random single-sector reads wait half a revolution on average", "[hdd][device]") {
    Rig r(fifo());
    r.random_reads(1);
    r.run(1, 20000);
    const auto& s = r.hdd.stats();
    REQUIRE(s.media_ops == 20000);
    const double rev = static_cast<double>(r.hdd.mechanics().revolution_ns());
    CHECK(static_cast<double>(s.rotation_ns) / static_cast<double>(s.media_ops) == Approx(rev / 2).epsilon(0.02));
    // The seeks of random LBA pairs: a third of the stroke-ish, between the single-track
    // and full-stroke figures, and the latency adds up from the parts.
    const double seek = static_cast<double>(s.seek_ns) / 20000;
    CHECK(seek > 5e6);
    CHECK(seek < 9e6);
    const double parts = (static_cast<double>(s.seek_ns + s.rotation_ns + s.transfer_ns)) / 20000 + 100e3;  // + overhead
    CHECK(r.lat.mean() == Approx(parts).epsilon(0.001));
}

TEST_CASE("HDD: sequential reads run at the zone's media rate, outer about twice inner", "[hdd][device]") {
    const auto bandwidth = [](uint64_t start_lba) {
        dev::HddConfig c;
        c.read_ahead_kb = 0;  // queued commands keep the head streaming by themselves
        Rig r(c);
        r.sequential(start_lba, 256, blkmq::ReqOp::READ);  // 128 KiB
        r.run(4, 4000);                                    // 500 MiB, many tracks and cylinders
        CHECK(r.hdd.stats().read_hits == 0);
        return static_cast<double>(r.bytes - 256 * 512) / (r.last_done - r.first_done).seconds();
    };
    const dev::HddMechanics m{dev::HddConfig{}};
    const double outer = bandwidth(0);
    const double inner = bandwidth(m.zone_first_lba(m.zones() - 1));
    CHECK(outer == Approx(m.zone_sustained_bytes_per_s(0)).epsilon(0.01));
    CHECK(inner == Approx(m.zone_sustained_bytes_per_s(m.zones() - 1)).epsilon(0.01));
    CHECK(outer / inner == Approx(227.0 / 114.0).epsilon(0.03));
}

TEST_CASE("HDD: one 128 KiB sequential read at a time streams at the media rate through read-ahead", "[hdd][device]") {
    // Queue depth 1: each read arrives after the previous one ended, when the head would
    // have passed its first sector. The running read-ahead reaches it instead (a stream
    // hit), so the drive reads on without losing a revolution per command.
    const auto run = [](uint32_t read_ahead_kb) {
        dev::HddConfig c;
        c.read_ahead_kb = read_ahead_kb;
        auto r = std::make_unique<Rig>(c);
        r->sequential(0, 256, blkmq::ReqOp::READ);
        r->run(1, 2000);  // 250 MiB
        return r;
    };
    const dev::HddMechanics m{dev::HddConfig{}};
    const auto with = run(512), without = run(0);
    const double bw = static_cast<double>(with->bytes - 256 * 512) / (with->last_done - with->first_done).seconds();
    CHECK(bw == Approx(m.zone_sustained_bytes_per_s(0)).epsilon(0.02));
    CHECK(with->hdd.stats().stream_hits > 1990);
    // Without read-ahead every command waits for its sector to come round again.
    CHECK(without->hdd.stats().stream_hits == 0);
    CHECK(without->iops() < 1.1e9 / static_cast<double>(m.revolution_ns()));
}

TEST_CASE("HDD: read-ahead turns 512 B sequential reads into cache hits", "[hdd][device]") {
    const auto run = [](uint32_t read_ahead_kb) {
        dev::HddConfig c;
        c.read_ahead_kb = read_ahead_kb;
        auto r = std::make_unique<Rig>(c);
        r->sequential(1'000'000, 1, blkmq::ReqOp::READ);
        r->run(1, 5000);
        return r;
    };
    const auto with = run(512), without = run(0);
    const auto& s = with->hdd.stats();
    CHECK(s.read_hits + s.read_misses == 5000);
    CHECK(static_cast<double>(s.read_hits) / 5000 > 0.99);
    CHECK(with->lat.mean() < 200e3);  // command overhead + 512 B over the link, not a revolution
    // Without read-ahead each read misses the sector it wants by the command overhead and
    // waits almost a whole revolution.
    CHECK(without->hdd.stats().read_hits == 0);
    CHECK(without->lat.mean() > 0.9 * static_cast<double>(without->hdd.mechanics().revolution_ns()));
    CHECK(with->iops() > 20 * without->iops());
}

TEST_CASE("HDD: the write cache acknowledges before the media write, a flush waits for it", "[hdd][device]") {
    struct Flush {
        sim::Time at;
        static void done(void* o, uint64_t) { static_cast<Flush*>(o)->fired = true; }
        bool fired = false;
    };
    dev::HddConfig c;
    Rig r(c);
    r.random_reads(8);
    const auto rnd = r.next;
    r.next = [&rnd](blkmq::Request& rq) {
        rnd(rq);
        rq.op = blkmq::ReqOp::WRITE;
    };
    // 32 random 4 KiB writes at once.
    r.run(32, 32);
    const auto& s = r.hdd.stats();
    CHECK(s.write_back_acks == 32);
    CHECK(s.write_through == 0);
    CHECK(r.lat.max() < 5e6);  // all in the buffer within a few ms: no seek, no rotation
    // The run drained the event queue, so the drive destaged everything meanwhile; do it
    // again and flush right after the last acknowledgement.
    Rig w(c);
    w.next = r.next;
    w.to_submit = 32;
    w.rqs.assign(32, blkmq::Request{});
    w.issued.assign(32, sim::Time{});
    for (uint32_t i = 0; i < 32; ++i) {
        w.rqs[i].tag = static_cast<uint16_t>(i);
        w.submit(&w.rqs[i], sim::Time::zero());
    }
    while (w.completed < 32 && w.eq.run_one()) {
    }
    const sim::Time acked = w.eq.now();
    CHECK(w.hdd.dirty_sectors() > 0);
    Flush f;
    w.hdd.flush(acked, &Flush::done, &f, 0);
    while (!f.fired && w.eq.run_one()) {
    }
    REQUIRE(f.fired);
    f.at = w.eq.now();
    CHECK(w.hdd.dirty_sectors() == 0);
    CHECK(w.hdd.stats().destages >= 28);  // a few may have merged
    // 32 random destages even in RPO order take far longer than the acknowledgements did.
    CHECK((f.at - acked).count() > 40'000'000);
    CHECK(w.hdd.stats().flushes == 1);

    // With the write cache off every write goes to the media first.
    c.write_cache = false;
    Rig t(c);
    t.next = r.next;
    t.run(1, 200);
    CHECK(t.hdd.stats().write_through == 200);
    CHECK(t.lat.mean() > 5e6);
}

TEST_CASE("HDD: RPO at QD32 gives about twice FIFO's random 4 KiB read IOPS", "[hdd][device]") {
    const auto iops = [](dev::HddConfig::Sched sched, uint32_t qd) {
        dev::HddConfig c;
        c.sched = sched;
        Rig r(c);
        r.random_reads(8);
        r.run(qd, 6000);
        return r.iops();
    };
    const double rpo = iops(dev::HddConfig::Sched::RPO, 32), fifo = iops(dev::HddConfig::Sched::FIFO, 32);
    const double qd1 = iops(dev::HddConfig::Sched::RPO, 1);
    CHECK(fifo == Approx(qd1).epsilon(0.05));  // FIFO gains nothing from the queue
    CHECK(fifo > 70);
    CHECK(fifo < 90);  // ~ 1 / (7.4 ms seek + 4.17 ms rotation + overhead)
    CHECK(rpo / fifo > 1.8);
    CHECK(rpo / fifo < 3.2);
}

TEST_CASE("HDD: NCQ priority cuts the latency of high-priority commands", "[hdd][device]") {
    const auto run = [](bool prio) {
        dev::HddConfig c;
        c.ncq_prio_enable = prio;
        auto r = std::make_unique<Rig>(c);
        r->random_reads(256, 10);  // 128 KiB, 10 % with ioprio class RT
        r->run(24, 8000);
        return r;
    };
    const auto on = run(true), off = run(false);
    INFO("prio on: high " << on->lat_high.mean() / 1e6 << " ms, low " << on->lat_low.mean() / 1e6 << " ms");
    CHECK(on->hdd.stats().high_prio == on->lat_high.count());
    CHECK(off->hdd.stats().high_prio == 0);
    // Off: the class means nothing to the drive.
    CHECK(off->lat_high.mean() == Approx(off->lat_low.mean()).epsilon(0.15));
    // On: high-priority commands wait for the command in service and the one chosen ahead,
    // then go next; the others pay for it.
    CHECK(on->lat_high.mean() < 0.25 * on->lat_low.mean());
    CHECK(on->lat_high.mean() < 40e6);
    CHECK(on->lat_low.mean() > off->lat_low.mean());
    // ... and the drive gives up some throughput (high ones are served without reordering).
    CHECK(on->iops() < off->iops());
}

TEST_CASE("HDD: the aging bound caps how long RPO lets a command wait", "[hdd][device]") {
    const auto max_ms = [](sim::Duration max_wait) {
        dev::HddConfig c;
        c.max_wait = max_wait;
        Rig r(c);
        r.random_reads(256);
        r.run(32, 20000);
        return std::make_pair(r.lat.max() / 1e6, r.hdd.stats().aged);
    };
    // A bound well above the mean wait (~210 ms here), as drives set it: few commands reach
    // it, and those go next, so none waits much longer than the bound.
    const auto [capped, aged] = max_ms(600_ms);
    const auto [free, never] = max_ms(sim::Duration{});
    CHECK(aged > 0);
    CHECK(never == 0);
    CHECK(capped < 600 + 3 * 25);  // the bound plus the commands already committed
    CHECK(free > capped + 100);
}

TEST_CASE("HDD: the internal queue depth is measured", "[hdd][device]") {
    Rig r(dev::HddConfig{});
    r.random_reads(8);
    r.run(16, 3000);
    CHECK(r.hdd.stats().depth_max == 16);
    CHECK(r.hdd.mean_queue_depth(r.eq.now()) == Approx(16).epsilon(0.02));
    CHECK(r.hdd.stats().commands == 3000);
}

TEST_CASE("HDD: sustained random writes destage in RPO order and beat write-through", "[hdd][device]") {
    const auto run = [](bool write_cache) {
        dev::HddConfig c;
        c.write_cache = write_cache;
        auto r = std::make_unique<Rig>(c);
        r->random_reads(8);
        const auto rnd = r->next;
        r->next = [rnd](blkmq::Request& rq) {
            rnd(rq);
            rq.op = blkmq::ReqOp::WRITE;
        };
        r->run(32, 8000);  // far more than the cache's 256 dirty extents
        return r;
    };
    const auto wb = run(true), wt = run(false);
    const auto& s = wb->hdd.stats();
    CHECK(s.write_back_acks > 4000);  // the cache keeps taking writes as it destages
    CHECK(s.destages > 3000);
    // Destaging by position over ~200 dirty extents positions faster than RPO over 32 commands.
    CHECK(static_cast<double>(s.seek_ns + s.rotation_ns) / static_cast<double>(s.media_ops) < 3.5e6);
    CHECK(wb->iops() > 1.3 * wt->iops());
    CHECK(wb->lat.max() < 2e9);  // host commands are not starved behind the destages
}

TEST_CASE("write-back acknowledgements pass the firmware one at a time", "[hdd]") {
    // 512 B sequential writes, write cache on, 32 in flight: every one is a write-back
    // acknowledgement, so the drive's rate is its command overhead's, not the link's
    // (600 MB/s would allow ~1 M of them per second).
    dev::HddConfig cfg;
    cfg.cmd_overhead = 100_us;
    Rig w(cfg);
    w.sequential(0, 1, blkmq::ReqOp::WRITE);
    w.run(32, 20000);
    CHECK(w.hdd.stats().write_back_acks == 20000);
    CHECK(w.iops() == Approx(10000).epsilon(0.02));
}

TEST_CASE("HDD: reads never pass the host link's rate, buffered parts included", "[hdd][device]") {
    // A link slower than the media, and a read-ahead of half a read: while the host takes a
    // read's data, read-ahead buffers the first half of the next one, and the head then
    // reads only the rest.
    // The buffered part still crosses the link, and the drive's rate is the link's.
    dev::HddConfig c;
    c.link_bytes_per_s = 4'000'000;
    c.read_ahead_kb = 256;  // half a read: the next read finds only its first half
    Rig r(c);
    r.sequential(0, 1024, blkmq::ReqOp::READ);  // 512 KiB
    r.run(1, 200);
    CHECK(r.hdd.stats().read_hits > 0);
    const double bw = static_cast<double>(r.bytes - 1024 * 512) / (r.last_done - r.first_done).seconds();
    CHECK(bw <= 4'000'000 * 1.0001);
    CHECK(bw > 0.9 * 4'000'000);
}

TEST_CASE("HDD: a command stamped ahead of the clock does not start before its stamp", "[hdd][device]") {
    // The host's dispatch loop plays rounds out ahead of the clock, so ->queue_rq can come
    // with an instant later than the drive's events still to run. A head freed before that
    // instant must not serve the command early: its D2C would be negative (the invariant
    // search's seed 13281: a 512 B read completed 15 us before it was issued).
    Rig r(fifo());
    r.rqs.assign(2, blkmq::Request{});
    r.issued.assign(2, sim::Time{});
    r.to_submit = 0;
    const auto read = [&](uint16_t tag, uint64_t sector, sim::Time stamp) {
        blkmq::Request& rq = r.rqs[tag];
        rq.tag = tag;
        rq.sector = sector;
        rq.nr_sectors = 1;
        rq.op = blkmq::ReqOp::READ;
        r.issued[tag] = stamp;
        REQUIRE(r.hdd.queue_rq(&rq, true, stamp, 0) == dev::BlkStatus::OK);
    };
    read(0, 0, sim::Time{});  // keeps the head busy for a few ms
    const sim::Time stamp = sim::Time::from_ns(50'000'000);  // long after the first ends
    read(1, r.hdd.capacity_sectors() / 2, stamp);            // queued behind it, far from the cache
    while (r.eq.run_one()) {
    }
    REQUIRE(r.completed == 2);
    CHECK(r.lat.min() > 0);  // ns from each command's own stamp
    CHECK(r.last_done > stamp + sim::Duration::ns(1'000'000));  // a seek and a rotation after it
}
