// A closed-loop driver for one device model alone, without the block layer: keeps `qd`
// requests in flight, each refilled by `next` when it completes, and records latency (also
// split by I/O priority), bytes and, when asked, every completion.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "models/blkmq/request.h"
#include "models/device/device.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/stats.h"

namespace blksim::testing {

template <class Dev>
struct DeviceRig {
    sim::EventQueue eq;
    Dev device;
    std::vector<blkmq::Request> rqs;
    std::vector<sim::Time> issued;
    sim::Rng rng;
    // Fills in the next request (sector, size, op, priority).
    std::function<void(blkmq::Request&)> next;
    uint64_t to_submit = 0, completed = 0, bytes = 0;
    sim::RunningStat lat, lat_high, lat_low;  // ns; high = ioprio class RT
    sim::Time first_done, last_done;
    std::vector<std::pair<int64_t, uint32_t>> done_log;  // (instant, bytes), when `log`
    std::vector<double> lat_log;                         // every latency (ns), when `log`
    bool log = false;

    template <class Cfg>
    DeviceRig(const Cfg& cfg, const char* rng_name) : device(eq, cfg), rng(1, rng_name) {
        device.set_completion_sink(&DeviceRig::on_done, this);
    }

    static void on_done(void* obj, blkmq::Request* rq, sim::Time now) {
        auto* r = static_cast<DeviceRig*>(obj);
        const double l = static_cast<double>((now - r->issued[rq->tag]).count());
        r->lat.add(l);
        (rq->ioprio_class == 1 ? r->lat_high : r->lat_low).add(l);
        if (r->completed++ == 0)
            r->first_done = now;
        r->last_done = now;
        r->bytes += rq->bytes();
        if (r->log) {
            r->done_log.emplace_back(now.ns(), static_cast<uint32_t>(rq->bytes()));
            r->lat_log.push_back(l);
        }
        if (r->to_submit > 0)
            r->submit(rq, now);
    }
    void submit(blkmq::Request* rq, sim::Time now) {
        --to_submit;
        next(*rq);
        issued[rq->tag] = now;
        REQUIRE(device.queue_rq(rq, true, now, 0) == dev::BlkStatus::OK);
    }
    // Requests one after the other from `start`, `sectors` each.
    void sequential(uint64_t start, uint32_t sectors, blkmq::ReqOp op, uint8_t ioprio_class = 0) {
        auto pos = std::make_shared<uint64_t>(start);
        next = [pos, sectors, op, ioprio_class](blkmq::Request& rq) {
            rq.sector = *pos;
            rq.nr_sectors = sectors;
            rq.op = op;
            rq.ioprio_class = ioprio_class;
            *pos += sectors;
        };
    }
    // Random requests: writes of `sectors` from tags below `writers`, 4 KiB reads from the
    // others (a writer beside readers, as the SSDs' GC tests run them).
    void mixed(uint32_t sectors, uint32_t writers) {
        const uint64_t cap = device.capacity_sectors();
        next = [this, sectors, writers, cap](blkmq::Request& rq) {
            const bool write = rq.tag < writers;
            const uint32_t n = write ? sectors : 8;
            rq.sector = rng.below(cap / n) * n;
            rq.nr_sectors = n;
            rq.op = write ? blkmq::ReqOp::WRITE : blkmq::ReqOp::READ;
        };
    }
    // Keep qd requests in flight until n have been submitted, then drain.
    void run(uint32_t qd, uint64_t n) {
        rqs.assign(qd, blkmq::Request{});
        issued.assign(qd, sim::Time{});
        to_submit = n;
        for (uint32_t i = 0; i < qd && to_submit > 0; ++i) {
            rqs[i].tag = static_cast<uint16_t>(i);
            submit(&rqs[i], eq.now());
        }
        while (eq.run_one()) {
        }
    }
    double iops() const { return static_cast<double>(completed) / (last_done - sim::Time::zero()).seconds(); }
    double mb_per_s() const { return static_cast<double>(bytes) / (last_done - sim::Time::zero()).seconds() / 1e6; }
    // Bytes per second completed in [t0, t1) (needs `log`).
    double rate_between(double t0_s, double t1_s) const {
        uint64_t b = 0;
        for (const auto& [t, n] : done_log)
            if (t >= static_cast<int64_t>(t0_s * 1e9) && t < static_cast<int64_t>(t1_s * 1e9))
                b += n;
        return static_cast<double>(b) / (t1_s - t0_s);
    }
};

}  // namespace blksim::testing
