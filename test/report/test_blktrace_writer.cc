// The blktrace binary writer. Expected records are the bytes of the real 6.18 capture
// (fixtures/real-linux-6.18/blktrace/loop0-mqdl-qd128-rt10.blktrace.1, loop0 = 7,0): the same
// request as test_blkparse.cc, Q to I on CPU 1, a back merge and a completion. That capture
// came through ftrace's blk tracer, whose records have sequence 0; blktrace proper numbers
// them per CPU from 1, which is the only field the writer's bytes differ in.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/report/blktrace_format.h"
#include "models/report/blktrace_writer.h"

using namespace blksim;
using namespace blksim::report;
using blkmq::TraceAction;
using blkmq::TraceEvent;
namespace bt = blksim::report::blktrace;

namespace {

std::string unhex(const std::string& h) {
    std::string out;
    for (std::size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
    return out;
}

// The fixture record with its sequence field (bytes 4..7) set to `seq`.
std::string fixture_record(const std::string& hex, uint32_t seq) {
    std::string r = unhex(hex);
    for (unsigned i = 0; i < 4; ++i)
        r[4 + i] = static_cast<char>(seq >> (8 * i));
    return r;
}

TraceEvent ev(int64_t ns, uint32_t cpu, uint32_t pid, TraceAction a, uint64_t sector = 0, uint32_t nr_sectors = 0) {
    TraceEvent e;
    e.time = sim::Time::from_ns(ns);
    e.cpu = cpu;
    e.pid = pid;
    e.action = a;
    e.sector = sector;
    e.nr_sectors = nr_sectors;
    return e;
}

struct Parsed {
    bt::Record r;
    std::string pdu;
};

std::vector<Parsed> parse(const std::string& bytes) {
    std::vector<Parsed> out;
    std::size_t off = 0;
    while (off + bt::RECORD_BYTES <= bytes.size()) {
        const auto* p = reinterpret_cast<const unsigned char*>(bytes.data() + off);
        Parsed x{bt::decode(p, false), {}};
        x.pdu = bytes.substr(off + bt::RECORD_BYTES, x.r.pdu_len);
        off += bt::RECORD_BYTES + x.r.pdu_len;
        out.push_back(x);
    }
    CHECK(off == bytes.size());
    return out;
}

std::vector<TraceDevice> loop0() { return {{"loop0", 7, 0}}; }

}  // namespace

TEST_CASE("blktrace records of one real request are byte for byte the kernel's", "[trace][blktrace]") {
    // Records 132..136 and 18749 of fixture file .1.
    const std::vector<std::string> fixture = {
        "07746165000000004d08cca06b010000c0b91b00000000000010000001001100047e0000000070000100000000000000",  // Q R
        "07746165000000005f0ccca06b010000c0b91b00000000000010000004001100047e0000000070000100000000000000",  // G R
        "0774616500000000f90dcca06b01000000000000000000000000000009001100047e0000000070000100000000000000",  // P N
        "07746165000000003a0fcca06b0100000000000000000000000000000a001100047e0000000070000100000000000800"
        "0000000000000001",  // U N 1
        "07746165000000002f11cca06b010000c0b91b0000000000001000000c001101047e0000000070000100000000000000",  // I R
        "0774616500000000ba7373a26b01000098541600000000000010000002001100057e0000000070000100000000000000",  // M R
    };
    std::ostringstream cpu0, cpu1;
    {
        BlktraceWriter w(loop0(), {{&cpu0, &cpu1}});
        const int64_t t = 1561770854477;
        w.emit(0, ev(t, 1, 32260, TraceAction::QUEUE, 1817024, 8));
        w.emit(0, ev(1561770855519, 1, 32260, TraceAction::GETRQ, 1817024, 8));
        // Plug and unplug carry no operation whatever the model fills in: READ, no data.
        TraceEvent plug = ev(1561770855929, 1, 32260, TraceAction::PLUG, 1817024, 8);
        plug.write = plug.sync = true;
        w.emit(0, plug);
        TraceEvent unplug = ev(1561770856250, 1, 32260, TraceAction::UNPLUG);
        unplug.pdu = 1;
        w.emit(0, unplug);
        TraceEvent insert = ev(1561770856751, 1, 32260, TraceAction::INSERT, 1817024, 8);
        insert.request = true;  // blk_add_trace_rq: BLK_TC_FS
        w.emit(0, insert);
        w.emit(0, ev(1561798603706, 1, 32261, TraceAction::BACKMERGE, 1463448, 8));  // a bio merge: no FS
        w.flush();
        CHECK(w.events() == 6);
    }
    const std::vector<Parsed> recs = parse(cpu1.str());
    // pid 32260's name, Q G P U I, then pid 32261's name and its M.
    REQUIRE(recs.size() == 8);
    CHECK(recs[0].r.action == bt::TN_PROCESS);
    CHECK(recs[0].r.pid == 32260);
    CHECK(recs[0].r.sequence == 0);
    CHECK(recs[0].r.cpu == 1);
    CHECK(recs[0].pdu == std::string("fio") + std::string(13, '\0'));
    CHECK(recs[6].r.action == bt::TN_PROCESS);
    CHECK(recs[6].r.pid == 32261);

    std::string expect, got;
    uint32_t seq = 0;
    for (std::size_t i = 0; i < 6; ++i)
        expect += fixture_record(fixture[i], ++seq);
    const std::string all = cpu1.str();
    // Skip the two name records (48 + 16 bytes each).
    got = all.substr(64, 5 * 48 + 8) + all.substr(64 + 5 * 48 + 8 + 64);
    CHECK(got == expect);

    // CPU 0's file starts with the trace's start time (BLK_TN_TIMESTAMP, 8 bytes of payload).
    const std::vector<Parsed> c0 = parse(cpu0.str());
    REQUIRE(c0.size() == 1);
    CHECK(c0[0].r.action == bt::TN_TIMESTAMP);
    CHECK(c0[0].r.device == bt::mkdev(7, 0));
    CHECK(c0[0].pdu == std::string(8, '\0'));
}

TEST_CASE("blktrace D, C and R carry BLK_TC_FS and the error; writes are WRITE|SYNC", "[trace][blktrace]") {
    // D and C records of the fixture (records 128 and 0 of file .1).
    const std::string d_rec = "0774616500000000f0d4cba06b01000090481f000000000000100000070041012c000000000070000100000000000000";
    const std::string c_rec = "077461650000000097fcc9a06b01000030980a0000000000001000000800810116000000000070000100000000000000";
    std::ostringstream cpu0, cpu1;
    {
        BlktraceWriter w(loop0(), {{&cpu0, &cpu1}});
        TraceEvent c = ev(1561770720407, 1, 22, TraceAction::COMPLETE, 694320, 8);
        c.request = true;
        w.emit(0, c);
        TraceEvent d = ev(1561770841328, 1, 44, TraceAction::ISSUE, 2050192, 8);
        d.request = true;
        w.emit(0, d);
    }
    const std::string all = cpu1.str();
    REQUIRE(all.size() == 64 + 48 + 64 + 48);
    CHECK(all.substr(64, 48) == fixture_record(c_rec, 1));
    CHECK(all.substr(64 + 48 + 64, 48) == fixture_record(d_rec, 2));

    CHECK(BlktraceWriter::action_word([] {
              TraceEvent w = ev(0, 0, 1, TraceAction::QUEUE, 8, 8);
              w.write = w.sync = true;
              return w;
          }()) == (bt::TA_QUEUE | bt::tc_act(bt::TC_QUEUE | bt::TC_WRITE | bt::TC_SYNC)));
    TraceEvent r = ev(0, 0, 1, TraceAction::REQUEUE, 8, 8);
    r.request = true;
    CHECK(BlktraceWriter::action_word(r) == (bt::TA_REQUEUE | bt::tc_act(bt::TC_REQUEUE | bt::TC_READ | bt::TC_FS)));
    TraceEvent ut = ev(0, 0, 1, TraceAction::UNPLUG_TIMER);
    CHECK(BlktraceWriter::action_word(ut) == (bt::TA_UNPLUG_TIMER | bt::tc_act(bt::TC_QUEUE | bt::TC_READ)));

    // An error is the negative errno in 16 bits, as record_blktrace_event() stores it.
    std::ostringstream f0;
    {
        BlktraceWriter w(loop0(), {{&f0}});
        TraceEvent c = ev(5, 0, 1, TraceAction::COMPLETE, 8, 8);
        c.error = -5;
        w.emit(0, c);
    }
    const std::vector<Parsed> recs = parse(f0.str());
    REQUIRE(recs.size() == 3);
    CHECK(recs[2].r.error == 0xfffb);
    CHECK(bt::dev_major(recs[2].r.device) == 7);
}

TEST_CASE("blktrace files are in time order per CPU with sequences from 1, in bounded memory", "[trace][blktrace]") {
    std::ostringstream cpu0, cpu1;
    BlktraceWriter::Options opt;
    opt.window = sim::Duration::ns(1000);
    opt.max_pending = 64;
    BlktraceWriter w(loop0(), {{&cpu0, &cpu1}}, opt);
    // A completion preempting a step is emitted after the step's later events: 3 then 2.
    w.emit(0, ev(100, 0, 1, TraceAction::QUEUE, 8, 8));
    w.emit(0, ev(300, 0, 1, TraceAction::GETRQ, 8, 8));
    w.emit(0, ev(200, 0, 1, TraceAction::COMPLETE, 16, 8));
    w.emit(0, ev(250, 1, 2, TraceAction::QUEUE, 24, 8));
    // Nothing older than the window behind the newest event is held back...
    for (int64_t i = 0; i < 1000; ++i)
        w.emit(0, ev(10000 + i * 10, 0, 1, TraceAction::ISSUE, 8 * static_cast<uint64_t>(i), 8));
    CHECK(cpu0.str().empty());  // still in the 64 KiB write buffer
    w.flush();
    CHECK(w.late_events() == 0);
    const std::vector<Parsed> recs = parse(cpu0.str());
    std::vector<uint64_t> times;
    uint32_t seq = 0;
    for (const Parsed& p : recs) {
        if (p.r.action & bt::tc_act(bt::TC_NOTIFY))
            continue;
        times.push_back(p.r.time);
        CHECK(p.r.sequence == ++seq);
    }
    REQUIRE(times.size() == 1003);
    CHECK(times[0] == 100);
    CHECK(times[1] == 200);
    CHECK(times[2] == 300);
    CHECK(std::is_sorted(times.begin(), times.end()));
    CHECK(w.events() == 1004);

    // ...and an event older than what its CPU already wrote is written anyway, and counted.
    w.emit(0, ev(50, 0, 1, TraceAction::ISSUE, 8, 8));
    w.flush();
    CHECK(w.late_events() == 1);
}

TEST_CASE("blktrace writer refuses an event for a CPU it has no file for", "[trace][blktrace]") {
    std::ostringstream f0;
    BlktraceWriter w(loop0(), {{&f0}});
    CHECK_THROWS_AS(w.emit(0, ev(1, 3, 1, TraceAction::QUEUE, 8, 8)), std::out_of_range);
    CHECK_THROWS_AS(w.emit(1, ev(1, 0, 1, TraceAction::QUEUE, 8, 8)), std::out_of_range);
}
