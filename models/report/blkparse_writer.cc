// blkparse's default line (blkparse_fmt.c process_default()): a fixed header
//   "%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s "  (major,minor cpu sequence sec.nsec pid act rwbs)
// then an action-specific tail. blkparse prints the process name it learned from the trace's
// notify records; blksim prints one configurable comm for every pid.
#include "models/report/blkparse_writer.h"

#include <iterator>
#include <utility>

namespace blksim::report {

namespace {

using blkmq::TraceAction;
using blkmq::TraceEvent;

// The action column: the letter, except unplug-by-timer which blkparse shows as "UT"
// (blkparse.c dump_trace_fs(): log_unplug(pci, t, "UT")).
const char* action_name(TraceAction a) {
    switch (a) {
    case TraceAction::QUEUE: return "Q";
    case TraceAction::BACKMERGE: return "M";
    case TraceAction::FRONTMERGE: return "F";
    case TraceAction::GETRQ: return "G";
    case TraceAction::PLUG: return "P";
    case TraceAction::UNPLUG: return "U";
    case TraceAction::UNPLUG_TIMER: return "UT";
    case TraceAction::INSERT: return "I";
    case TraceAction::ISSUE: return "D";
    case TraceAction::COMPLETE: return "C";
    case TraceAction::REQUEUE: return "R";
    case TraceAction::SPLIT: return "X";
    }
    return "?";
}

// The rwbs column (blkparse.h fill_rwbs()): 'W' for a write, 'R' for a read that moves data,
// 'N' for an event without data; then 'S' when REQ_SYNC is set. The kernel traces plug and
// unplug with no operation flags at all (blk_add_trace_plug/unplug), hence "N" whatever the
// submitter's I/O was. blksim sets `sync` as the kernel does: O_DIRECT writes carry REQ_SYNC
// (dio "WS"), O_DIRECT reads do not (plain "R", as in the 6.18 fixture). A flush (BLK_TC_FLUSH:
// REQ_PREFLUSH, or the flush machinery's REQ_OP_FLUSH) puts an 'F' first, a FUA write
// (BLK_TC_FUA) an 'F' after the direction: fsync's empty flush "FWS", the flush request "FN",
// an O_SYNC direct write "WFS".
struct Rwbs {
    char s[6] = {};
    const char* c_str() const { return s; }
};
Rwbs fill_rwbs(const TraceEvent& e) {
    Rwbs r;
    const bool no_op = e.action == TraceAction::PLUG || e.action == TraceAction::UNPLUG ||
                       e.action == TraceAction::UNPLUG_TIMER;
    if (no_op) {
        r.s[0] = 'N';
        return r;
    }
    int i = 0;
    if (e.flush)
        r.s[i++] = 'F';
    if (e.discard)
        r.s[i++] = 'D';  // blk_fill_rwbs(): REQ_OP_DISCARD
    else if (e.write)
        r.s[i++] = 'W';
    else
        r.s[i++] = e.nr_sectors ? 'R' : 'N';
    if (e.fua)
        r.s[i++] = 'F';
    if (e.sync)
        r.s[i++] = 'S';
    return r;
}

}  // namespace

std::vector<TraceDevice> sim_trace_devices(const std::vector<std::string>& names) {
    std::vector<TraceDevice> devs;
    devs.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        devs.push_back({names[i], SIM_BLOCK_MAJOR, static_cast<uint32_t>(i)});
    return devs;
}

BlkparseWriter::BlkparseWriter(std::ostream& out, std::vector<TraceDevice> devices, std::string comm)
    : out_(out), devices_(std::move(devices)), comm_(std::move(comm)), sequence_(devices_.size()) {
    buf_.reserve(FLUSH_BYTES + 256);
}

BlkparseWriter::~BlkparseWriter() { flush(); }

void BlkparseWriter::flush() {
    if (buf_.size())
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
    out_.flush();
}

// blk_trace's per-CPU `sequence` is pre-incremented for every event the queue records on
// that CPU. The table grows only the first time a CPU is seen, never per event.
uint32_t BlkparseWriter::next_sequence(uint32_t dev, uint32_t cpu) {
    std::vector<uint32_t>& per_cpu = sequence_[dev];
    if (cpu >= per_cpu.size())
        per_cpu.resize(cpu + 1, 0);
    return ++per_cpu[cpu];
}

void BlkparseWriter::spill() {
    if (buf_.size() >= FLUSH_BYTES) {
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }
}

void BlkparseWriter::emit(uint32_t dev, const TraceEvent& e) {
    const TraceDevice& d = devices_.at(dev);  // throws before anything is counted
    format_line(d, next_sequence(dev, e.cpu), e);
    spill();
}

// blkparse.c handle_notify(), BLK_TN_MESSAGE: the header with "0" for the sequence (the
// record has one: the kernel counts a message in the CPU's sequence, so the events after it
// are numbered on from there), "m" for the action, "N" for no data, then the text.
void BlkparseWriter::message(uint32_t dev, sim::Time t, uint32_t cpu, std::string_view text) {
    const TraceDevice& d = devices_.at(dev);
    next_sequence(dev, cpu);
    const int64_t ns = t.ns();
    fmt::format_to(std::back_inserter(buf_), "{:>3},{:<3} {:>2} {:>8} {:>5}.{:09} {:>5} {:>2} {:>3} {}\n", d.major,
                   d.minor, cpu, 0, ns / 1000000000, ns % 1000000000, 0, "m", "N", text);
    spill();
}

void BlkparseWriter::format_line(const TraceDevice& d, uint32_t sequence, const TraceEvent& e) {
    auto out = std::back_inserter(buf_);
    const int64_t ns = e.time.ns();
    fmt::format_to(out, "{:>3},{:<3} {:>2} {:>8} {:>5}.{:09} {:>5} {:>2} {:>3} ", d.major, d.minor,
                   e.cpu, sequence, ns / 1000000000, ns % 1000000000, e.pid, action_name(e.action),
                   fill_rwbs(e).c_str());

    switch (e.action) {
    case TraceAction::COMPLETE:
    case TraceAction::REQUEUE:
        // The error code instead of a name; without data, the sector alone.
        if (e.nr_sectors)
            fmt::format_to(out, "{} + {} [{}]\n", e.sector, e.nr_sectors, e.error);
        else
            fmt::format_to(out, "{} [{}]\n", e.sector, e.error);
        break;
    case TraceAction::QUEUE:
    case TraceAction::INSERT:
    case TraceAction::ISSUE:
    case TraceAction::BACKMERGE:
    case TraceAction::FRONTMERGE:
    case TraceAction::GETRQ:
        if (e.nr_sectors)
            fmt::format_to(out, "{} + {} [{}]\n", e.sector, e.nr_sectors, comm_);
        else
            fmt::format_to(out, "[{}]\n", comm_);
        break;
    case TraceAction::PLUG:
        fmt::format_to(out, "[{}]\n", comm_);
        break;
    case TraceAction::UNPLUG:
    case TraceAction::UNPLUG_TIMER:
        // The pdu is the number of requests the unplug flushed.
        fmt::format_to(out, "[{}] {}\n", comm_, e.pdu);
        break;
    case TraceAction::SPLIT:
        // blkparse: "sector / new_sector", where the rest of the bio starts.
        fmt::format_to(out, "{} / {} [{}]\n", e.sector, e.sector + e.pdu, comm_);
        break;
    }
}

}  // namespace blksim::report
