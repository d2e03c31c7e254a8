// Plugging and merging: the per-call plug turns a batch of sequential bios into one
// request; blktrace events come in the kernel's order.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "models/device/null_blk_config.h"
#include "models/blkmq/trace.h"
#include "test/models/machine_fixture.h"
#include "tools/scenario/scenario.h"

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

TEST_CASE("merging stops at max_segments (one segment per 4 KiB page)", "[models][plug][merge]") {
    auto cfg = batch_writer(32, 32, 1280);
    cfg.queues[0].max_segments = 16;
    topology::Machine m(cfg);
    m.run();
    const auto& st = m.queues()[0]->stats();
    CHECK(st.ios[1] == 2);  // 2 requests of 16 pages = 64 KiB
    CHECK(st.merges[1] == 30);
    CHECK(st.sectors[1] == 256);
}

TEST_CASE("a bio larger than the queue's limits is split, and its io_u ends with the last piece", "[models][split]") {
    // 1 MiB reads: max_segments 128 pages caps a request at 512 KiB (below max_sectors_kb
    // 1280), so each bio is split in two: Q X G G ... two requests, one fio I/O.
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 50_us;
    auto cfg = testing::nullb_machine(1, nb, "none", 3);
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::READ);
    j.bs_read = 1 << 20;
    j.number_ios = 4;
    cfg.jobs.push_back(j);
    {
        topology::Machine m(cfg);
        RecordingSink sink;
        m.queues()[0]->set_trace(&sink, 0);
        const auto r = m.run();
        const auto& st = m.queues()[0]->stats();
        CHECK(r.jobs[0].dir[0].total_ios == 4);
        CHECK(st.ios[0] == 8);
        CHECK(st.sectors[0] == 4 * 2048);
        CHECK(m.queues()[0]->split_sectors() == 1024);
        REQUIRE(sink.events.size() > 3);
        CHECK(sink.actions().substr(0, 4) == "QXGP");
        CHECK(sink.events[1].sector == 0);
        CHECK(sink.events[1].sector + sink.events[1].pdu == 1024);  // "0 / 1024"
        // Both pieces sit in one plug and go to the driver together: the I/O takes about
        // one piece's 50 us, not two.
        CHECK(r.jobs[0].dir[0].clat.mean() >= 50'000);
        CHECK(r.jobs[0].dir[0].clat.mean() < 60'000);
    }
    // max_sectors_kb 128 → 8 pieces per bio; max_segments 256 and 1280 KiB → no split.
    cfg.queues[0].max_sectors_kb = 128;
    {
        topology::Machine m(cfg);
        const auto r = m.run();
        CHECK(r.jobs[0].dir[0].total_ios == 4);
        CHECK(m.queues()[0]->stats().ios[0] == 32);
    }
    cfg.queues[0].max_sectors_kb = 1280;
    cfg.queues[0].max_segments = 256;
    {
        topology::Machine m(cfg);
        m.run();
        CHECK(m.queues()[0]->stats().ios[0] == 4);
    }
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

TEST_CASE("a task that sleeps for a tag between two pieces of a split bio resumes submitting", "[models][split]") {
    // Regression: a psync reader's 256 KiB bio in four 64 KiB pieces, 4 driver tags and 8
    // scheduler tags shared with two io_uring jobs. The reader sleeps for a tag after two
    // pieces; if the tag comes back before its step ends it must go on with the third
    // piece, not wait for a completion of an I/O it has not finished submitting.
    dev::NullBlkConfig nb;
    nb.irqmode = dev::NullBlkConfig::IrqMode::TIMER;
    nb.completion_nsec = 25_us;
    nb.hw_queue_depth = 4;
    auto cfg = testing::nullb_machine(3, nb, "mq-deadline", 3);
    cfg.queues[0].max_sectors_kb = 64;
    auto seq = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::READ);
    seq.name = "seqr";
    seq.bs_read = 256 * 1024;
    seq.number_ios = 100;
    cfg.jobs.push_back(seq);
    auto rnd = testing::nullb_job(workload::IoEngine::IO_URING, workload::RwPattern::RANDRW);
    rnd.name = "randrw";
    rnd.bs_read = rnd.bs_write = 8192;
    rnd.iodepth = 8;
    rnd.iodepth_batch_submit = 8;
    rnd.numjobs = 2;
    rnd.number_ios = 300;
    cfg.jobs.push_back(rnd);
    topology::Machine m(cfg);
    const auto r = m.run();  // a stall would throw logic_error
    CHECK(r.jobs[0].dir[0].total_ios == 100);
    CHECK(m.queues()[0]->stats().ios[0] >= 400);  // every 256 KiB read went as 4 pieces
}

TEST_CASE("a request inserted next to one the elevator holds joins it (elv_attempt_insert_merge)", "[models][merge][insert-merge]") {
    // A disk behind an HBA with a queue depth (dispatch budget) of 1, taken by job c's
    // write. Jobs a and b each write one 4 KiB block, b's right behind a's, at the same
    // instant from other CPUs: neither bio finds the other's request (each is still in its
    // submitter's plug), so both become requests. a's is inserted and, without budget,
    // stays in mq-deadline; b's, inserted after it, is appended to it at insertion (I, then
    // M) instead of waiting beside it. os_jitter is off so that the three jobs start at one
    // instant and c, the first job, takes the budget: with each bio submitted at its own
    // instant, the job whose CPU draws the shortest wake-up delay would go first (b, seed 1),
    // and a's request could then never meet b's in the elevator.
    auto text = [](int nomerges) {
        return R"({"host": {"cpus": 3, "cost_profile": "desktop-8t", "os_jitter": false},
          "controllers": [{"name": "hba0", "kind": "hba", "can_queue": 64}],
          "devices": [{"name": "sda", "model": "hdd", "controller": "hba0", "params": {"queue_depth": 1, "write_cache": 0}}],
          "queues": [{"device": "sda", "scheduler": "mq-deadline", "nomerges": )" + std::to_string(nomerges) + R"(}],
          "global": {"ioengine": "psync", "rw": "write", "bs": "4k", "size": "4k", "number_ios": 1, "direct": 1},
          "jobs": [{"name": "c", "device": "sda", "offset": 1048576, "cpus_allowed": "0"},
                   {"name": "a", "device": "sda", "offset": 0, "cpus_allowed": "1"},
                   {"name": "b", "device": "sda", "offset": 4096, "cpus_allowed": "2"}]})";
    };
    const auto s = scenario::load_scenario_text(text(0), "insert-merge.json");
    topology::Machine machine(s.machine);
    RecordingSink sink;
    machine.queues()[0]->set_trace(&sink, 0);
    auto r = machine.run();
    const auto& st = machine.queues()[0]->stats();
    CHECK(r.jobs[1].dir[1].total_ios == 1);
    CHECK(r.jobs[2].dir[1].total_ios == 1);
    CHECK(st.merges[1] == 1);
    CHECK(st.ios[1] == 2);  // c's, and a's carrying b's bio
    CHECK(st.sectors[1] == 24);
    CHECK(sink.actions().find("IM") != std::string::npos);
    // nomerges=2: no merging at all, three requests.
    const auto s2 = scenario::load_scenario_text(text(2), "insert-merge.json");
    topology::Machine off(s2.machine);
    off.run();
    CHECK(off.queues()[0]->stats().merges[1] == 0);
    CHECK(off.queues()[0]->stats().ios[1] == 3);
}
