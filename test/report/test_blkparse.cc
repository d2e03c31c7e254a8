// The blkparse-style text writer. Expected lines are copied from real blkparse output
// (fixtures/real-linux-6.18/blktrace/loop0-mqdl-qd128-rt10.blkparse.txt.xz, loop0 = 7,0) and
// changed only where that capture differs from a blktrace run by design: it came through
// ftrace's blk tracer, so its sequence column is always 0 and, with no process-name records,
// the comm prints as "(null)". blksim counts sequences per CPU as blk_trace does and prints
// its comm ("fio").
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/blkmq/trace.h"
#include "models/report/blkparse_writer.h"

using namespace blksim;
using namespace blksim::report;
using blkmq::TraceAction;
using blkmq::TraceEvent;

namespace {

// A fixture line as blktrace proper would have printed it: the 8-wide sequence column
// (characters 11..18 of "%3d,%-3d %2d %8d ...") set to `seq`, "(null)" replaced by "fio".
std::string as_blktrace(std::string line, uint32_t seq) {
    line.replace(11, 8, fmt::format("{:>8}", seq));
    if (const auto at = line.find("(null)"); at != std::string::npos)
        line.replace(at, 6, "fio");
    return line + "\n";
}

TraceEvent ev(int64_t ns, uint32_t cpu, uint32_t pid, TraceAction a, uint64_t sector = 0,
              uint32_t nr_sectors = 0) {
    TraceEvent e;
    e.time = sim::Time::from_ns(ns);
    e.cpu = cpu;
    e.pid = pid;
    e.action = a;
    e.sector = sector;
    e.nr_sectors = nr_sectors;
    return e;
}

std::vector<TraceDevice> loop0() { return {{"loop0", 7, 0}}; }

}  // namespace

TEST_CASE("blkparse lines of one real request, Q to C", "[trace]") {
    // Fixture lines 133-138 and 404: fio (pid 32260, CPU 1) submits sector 1817024 through a
    // one-request plug; the completion runs on CPU 0 in pid 32262's context.
    const std::vector<std::string> fixture = {
        "  7,0    1        0     0.000134070 32260  Q   R 1817024 + 8 [(null)]",
        "  7,0    1        0     0.000135112 32260  G   R 1817024 + 8 [(null)]",
        "  7,0    1        0     0.000135522 32260  P   N [(null)]",
        "  7,0    1        0     0.000135843 32260  U   N [(null)] 1",
        "  7,0    1        0     0.000136344 32260  I   R 1817024 + 8 [(null)]",
        "  7,0    1        0     0.000137205 32260  D   R 1817024 + 8 [(null)]",
        "  7,0    0        0     0.000375235 32262  C   R 1817024 + 8 [0]",
    };
    std::ostringstream os;
    {
        BlkparseWriter w(os, loop0());
        w.emit(0, ev(134070, 1, 32260, TraceAction::QUEUE, 1817024, 8));
        w.emit(0, ev(135112, 1, 32260, TraceAction::GETRQ, 1817024, 8));
        // Plug events carry no data and no operation: the writer prints "N" even if the
        // model filled in the submitter's direction.
        TraceEvent plug = ev(135522, 1, 32260, TraceAction::PLUG);
        plug.sync = true;
        w.emit(0, plug);
        TraceEvent unplug = ev(135843, 1, 32260, TraceAction::UNPLUG);
        unplug.pdu = 1;
        w.emit(0, unplug);
        w.emit(0, ev(136344, 1, 32260, TraceAction::INSERT, 1817024, 8));
        w.emit(0, ev(137205, 1, 32260, TraceAction::ISSUE, 1817024, 8));
        w.emit(0, ev(375235, 0, 32262, TraceAction::COMPLETE, 1817024, 8));
    }  // the destructor flushes
    std::string expected;
    for (uint32_t i = 0; i < 6; ++i)
        expected += as_blktrace(fixture[i], i + 1);  // CPU 1's events 1..6
    expected += as_blktrace(fixture[6], 1);          // CPU 0's first event
    CHECK(os.str() == expected);
}

TEST_CASE("blkparse back merge and the first completion of the capture", "[trace]") {
    std::ostringstream os;
    BlkparseWriter w(os, loop0());
    w.emit(0, ev(0, 1, 22, TraceAction::COMPLETE, 694320, 8));
    w.emit(0, ev(27882087, 1, 32261, TraceAction::QUEUE, 1463448, 8));
    w.emit(0, ev(27883299, 1, 32261, TraceAction::BACKMERGE, 1463448, 8));
    w.flush();
    CHECK(os.str() ==
          as_blktrace("  7,0    1        0     0.000000000    22  C   R 694320 + 8 [0]", 1) +
              as_blktrace("  7,0    1        0     0.027882087 32261  Q   R 1463448 + 8 [(null)]", 2) +
              as_blktrace("  7,0    1        0     0.027883299 32261  M   R 1463448 + 8 [(null)]", 3));
}

TEST_CASE("blkparse rwbs, UT, requeue, errors and wide fields", "[trace]") {
    const std::vector<TraceDevice> devs = sim_trace_devices({"nullb0", "nullb1"});
    REQUIRE(devs.size() == 2);
    CHECK(devs[1].name == "nullb1");
    CHECK(devs[1].major == 252);
    CHECK(devs[1].minor == 1);

    std::ostringstream os;
    BlkparseWriter w(os, devs, "job0");
    const int64_t t = 12345 * int64_t{1000000000};

    TraceEvent q = ev(t + 1, 2, 123456, TraceAction::QUEUE, 2048, 16);
    q.write = true;
    q.sync = true;  // an O_DIRECT write: REQ_SYNC
    w.emit(1, q);
    TraceEvent ut = ev(t + 2, 2, 123456, TraceAction::UNPLUG_TIMER);
    ut.pdu = 3;
    w.emit(1, ut);
    w.emit(1, ev(t + 3, 2, 0, TraceAction::REQUEUE, 100, 8));
    TraceEvent c = ev(t + 4, 0, 0, TraceAction::COMPLETE, 4096, 0);  // no data: sector only
    c.error = -5;
    w.emit(1, c);
    w.emit(0, ev(t + 5, 2, 7, TraceAction::FRONTMERGE, 8, 8));  // another disk: its own count
    w.flush();
    CHECK(os.str() ==
          "252,1    2        1 12345.000000001 123456  Q  WS 2048 + 16 [job0]\n"
          "252,1    2        2 12345.000000002 123456 UT   N [job0] 3\n"
          "252,1    2        3 12345.000000003     0  R   R 100 + 8 [0]\n"
          "252,1    0        1 12345.000000004     0  C   N 4096 [-5]\n"
          "252,0    2        1 12345.000000005     7  F   R 8 + 8 [job0]\n");
}

TEST_CASE("blkparse writer buffers and streams a long run", "[trace]") {
    std::ostringstream os;
    BlkparseWriter w(os, loop0());
    w.emit(0, ev(1000, 0, 1, TraceAction::ISSUE, 8, 8));
    CHECK(os.str().empty());  // buffered, not yet written

    // ~60 bytes a line: 100k lines go out in ~64 KiB chunks while the run goes on.
    constexpr uint32_t N = 100000;
    for (uint32_t i = 1; i < N; ++i)
        w.emit(0, ev(1000 + i, 0, 1, TraceAction::ISSUE, 8 * uint64_t{i}, 8));
    CHECK(os.str().size() > 5000000);
    w.flush();
    const std::string out = os.str();
    CHECK(static_cast<uint32_t>(std::count(out.begin(), out.end(), '\n')) == N);
    const std::string last = out.substr(out.rfind('\n', out.size() - 2) + 1);
    CHECK(last == "  7,0    0   100000     0.000100999     1  D   R 799992 + 8 [fio]\n");
}
