// Plugging and merging: the per-call plug turns a batch of sequential bios into one
// request; blktrace events come in the kernel's order.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "models/blkmq/trace.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

struct RecordingSink final : blkmq::TraceSink {
    std::vector<blkmq::TraceEvent> events;
    void emit(uint32_t, const blkmq::TraceEvent& e) override { events.push_back(e); }
    std::string actions() const {
        std::string s;
        for (const auto& e : events)
            s += static_cast<char>(e.action);
        return s;
    }
};

topology::MachineConfig batch_writer(uint32_t nr_ios, uint32_t batch, uint32_t max_sectors_kb) {
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 50_us;
    auto m = testing::nullb_machine(1, nb, "none", 3);
    m.queues[0].max_sectors_kb = max_sectors_kb;
    auto j = testing::nullb_job(workload::IoEngine::LIBAIO, workload::RwPattern::WRITE);
    j.name = "seqw";
    j.bs_write = 4096;
    j.iodepth = batch;
    j.iodepth_batch_submit = batch;
    j.number_ios = nr_ios;
    m.jobs.push_back(j);
    return m;
}

}  // namespace

TEST_CASE("a plugged batch of 32 sequential 4 KiB writes becomes one 128 KiB request", "[models][plug][merge]") {
    auto cfg = batch_writer(32, 32, 1280);
    topology::Machine m(cfg);
    RecordingSink sink;
    m.queues()[0]->set_trace(&sink, 0);
    auto r = m.run();
    const auto& st = m.queues()[0]->stats();
    CHECK(st.ios[1] == 1);
    CHECK(st.merges[1] == 31);
    CHECK(st.sectors[1] == 256);
    CHECK(r.jobs[0].dir[1].total_ios == 32);  // fio still sees 32 I/Os
    // Q G P, then Q M for each bio that merged, U with 1 request, D and C.
    std::string expect = "QGP";
    for (int i = 0; i < 31; ++i)
        expect += "QM";
    expect += "UDC";
    CHECK(sink.actions() == expect);
    CHECK(sink.events.back().nr_sectors == 256);
}

TEST_CASE("merging stops at max_sectors_kb", "[models][plug][merge]") {
    auto cfg = batch_writer(32, 32, 64);
    topology::Machine m(cfg);
    m.run();
    const auto& st = m.queues()[0]->stats();
    CHECK(st.ios[1] == 2);        // 2 × 64 KiB
    CHECK(st.merges[1] == 30);
}

TEST_CASE("nomerges=2 turns plug merging off", "[models][plug][merge]") {
    auto cfg = batch_writer(32, 32, 1280);
    cfg.queues[0].nomerges = 2;
    topology::Machine m(cfg);
    m.run();
    CHECK(m.queues()[0]->stats().ios[1] == 32);
    CHECK(m.queues()[0]->stats().merges[1] == 0);
}

TEST_CASE("random writes do not merge and each request is Q G P ... U D C", "[models][plug][trace]") {
    auto cfg = batch_writer(64, 4, 1280);
    cfg.jobs[0].rw = workload::RwPattern::RANDWRITE;
    topology::Machine m(cfg);
    RecordingSink sink;
    m.queues()[0]->set_trace(&sink, 0);
    m.run();
    CHECK(m.queues()[0]->stats().merges[1] == 0);
    // Per sector: Q before G before D before C, each exactly once (random offsets over a
    // 250 GB device do not repeat here).
    std::map<uint64_t, std::string> per_sector;
    for (const auto& e : sink.events)
        if (e.action != blkmq::TraceAction::PLUG && e.action != blkmq::TraceAction::UNPLUG)
            per_sector[e.sector] += static_cast<char>(e.action);
    CHECK(per_sector.size() == 64);
    for (const auto& [sector, acts] : per_sector)
        CHECK(acts == "QGDC");
}
