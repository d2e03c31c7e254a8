#include "tools/disksim/replay.h"

#include <chrono>

#include <fmt/format.h>

#include "models/blkmq/request.h"
#include "models/device/hdd.h"
#include "sim/event_queue.h"
#include "tools/disksim/param_file.h"

namespace blksim::disksim {

namespace {

struct Replayer {
    sim::EventQueue eq;
    dev::Hdd hdd;
    const std::vector<TraceRecord>& trace;
    blkmq::Request rq;
    size_t next = 0;
    sim::Time issued;
    uint64_t buffered_before = 0;
    ReplayResult res;

    Replayer(const dev::HddConfig& cfg, const std::vector<TraceRecord>& t) : hdd(eq, cfg), trace(t) {
        hdd.set_completion_sink(&Replayer::done, this);
    }
    uint64_t buffered() const { return hdd.stats().read_hits + hdd.stats().write_back_acks; }

    void issue(uint64_t) {
        const TraceRecord& r = trace[next];
        rq = blkmq::Request{};
        rq.sector = r.lba;
        rq.nr_sectors = r.blocks;
        rq.op = r.write ? blkmq::ReqOp::WRITE : blkmq::ReqOp::READ;
        issued = eq.now();
        buffered_before = buffered();
        (void)hdd.queue_rq(&rq, true, issued, 0);
    }
    static void done(void* obj, blkmq::Request*, sim::Time now) {
        auto* self = static_cast<Replayer*>(obj);
        const TraceRecord& r = self->trace[self->next];
        self->res.simulated_ms.push_back(static_cast<double>((now - self->issued).count()) / 1e6);
        self->res.simulated_hit.push_back(self->buffered() > self->buffered_before ? 1 : 0);
        if (++self->next < self->trace.size())
            self->eq.at<&Replayer::issue>(now + sim::Duration::ns(static_cast<int64_t>(r.idle_us * 1000.0)), self, 0);
    }
};

}  // namespace

ReplayResult replay_trace(const dev::HddConfig& cfg, const std::vector<TraceRecord>& trace, const std::string& file) {
    const auto t0 = std::chrono::steady_clock::now();
    auto rp = std::make_unique<Replayer>(cfg, trace);
    const uint64_t cap = rp->hdd.capacity_sectors();
    for (const TraceRecord& r : trace)
        if (r.lba + r.blocks > cap)
            throw DisksimError(fmt::format("{}:{}: blocks {} .. {} lie beyond the drive's {} blocks", file, r.line, r.lba,
                                           r.lba + r.blocks - 1, cap));
    rp->res.simulated_ms.reserve(trace.size());
    rp->res.simulated_hit.reserve(trace.size());
    if (!trace.empty())
        rp->eq.at<&Replayer::issue>(sim::Time::zero(), rp.get(), 0);
    while (rp->eq.run_one()) {
    }
    ReplayResult res = std::move(rp->res);
    const auto& s = rp->hdd.stats();
    res.read_hits = s.read_hits;
    res.read_misses = s.read_misses;
    res.write_back = s.write_back_acks;
    res.write_through = s.write_through;
    const double ops = s.media_ops ? static_cast<double>(s.media_ops) : 1.0;
    res.seek_ms_mean = static_cast<double>(s.seek_ns) / ops / 1e6;
    res.rotation_ms_mean = static_cast<double>(s.rotation_ns) / ops / 1e6;
    res.transfer_ms_mean = static_cast<double>(s.transfer_ns) / ops / 1e6;
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (res.simulated_ms.size() != trace.size())
        throw std::logic_error(fmt::format("replay: {} of {} requests completed", res.simulated_ms.size(), trace.size()));
    return res;
}

}  // namespace blksim::disksim
