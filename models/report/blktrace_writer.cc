#include "models/report/blktrace_writer.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace blksim::report {

namespace bt = blktrace;
using blkmq::TraceAction;
using blkmq::TraceEvent;

namespace {

bool carries_no_op(TraceAction a) {
    return a == TraceAction::PLUG || a == TraceAction::UNPLUG || a == TraceAction::UNPLUG_TIMER;
}

}  // namespace

// blk_add_trace_bio/_rq/_plug/_unplug → __blk_add_trace(): the action's own category, the
// direction (ddir_act[op_is_write(op)]: no op is op 0, a read), REQ_SYNC, and BLK_TC_FS
// for a request.
uint32_t BlktraceWriter::action_word(const TraceEvent& e) {
    uint32_t what = 0;
    switch (e.action) {
    case TraceAction::QUEUE: what = bt::TA_QUEUE | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::BACKMERGE: what = bt::TA_BACKMERGE | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::FRONTMERGE: what = bt::TA_FRONTMERGE | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::GETRQ: what = bt::TA_GETRQ | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::PLUG: what = bt::TA_PLUG | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::UNPLUG: what = bt::TA_UNPLUG_IO | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::UNPLUG_TIMER: what = bt::TA_UNPLUG_TIMER | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::INSERT: what = bt::TA_INSERT | bt::tc_act(bt::TC_QUEUE); break;
    case TraceAction::ISSUE: what = bt::TA_ISSUE | bt::tc_act(bt::TC_ISSUE); break;
    case TraceAction::COMPLETE: what = bt::TA_COMPLETE | bt::tc_act(bt::TC_COMPLETE); break;
    case TraceAction::REQUEUE: what = bt::TA_REQUEUE | bt::tc_act(bt::TC_REQUEUE); break;
    case TraceAction::SPLIT: what = bt::TA_SPLIT; break;  // BLK_TA_SPLIT: no category of its own
    }
    if (carries_no_op(e.action))
        return what | bt::tc_act(bt::TC_READ);
    what |= bt::tc_act(e.write ? bt::TC_WRITE : bt::TC_READ);
    if (e.sync)
        what |= bt::tc_act(bt::TC_SYNC);
    if (e.discard)
        what |= bt::tc_act(bt::TC_DISCARD);  // __blk_add_trace(): REQ_OP_DISCARD
    // MASK_TC_BIT(opf, PREFLUSH) / (op == REQ_OP_FLUSH), MASK_TC_BIT(opf, FUA).
    if (e.flush)
        what |= bt::tc_act(bt::TC_FLUSH);
    if (e.fua)
        what |= bt::tc_act(bt::TC_FUA);
    if (e.request)
        what |= bt::tc_act(bt::TC_FS);
    return what;
}

BlktraceWriter::BlktraceWriter(std::vector<TraceDevice> devices,
                               std::vector<std::vector<std::ostream*>> files, Options opt)
    : devices_(std::move(devices)), streams_(devices_.size()), pid_noted_(devices_.size()),
      opt_(std::move(opt)) {
    if (files.size() != devices_.size())
        throw std::invalid_argument(fmt::format("blktrace writer: {} disks but {} sets of per-CPU files",
                                                devices_.size(), files.size()));
    if (opt_.max_pending == 0)
        opt_.max_pending = 1;
    for (std::size_t d = 0; d < devices_.size(); ++d) {
        streams_[d].resize(files[d].size());
        for (std::size_t c = 0; c < files[d].size(); ++c) {
            streams_[d][c].out = files[d][c];
            streams_[d][c].dev = static_cast<uint32_t>(d);
        }
        // blk_trace_start() → trace_note_time(): the wall clock when tracing started, from
        // the CPU that started it. blksim's clock starts at 0 (the epoch), like its output.
        if (!streams_[d].empty()) {
            bt::Record r;
            r.action = bt::TN_TIMESTAMP;
            r.device = bt::mkdev(devices_[d].major, devices_[d].minor);
            r.pdu_len = 8;
            const unsigned char words[8] = {};
            put(streams_[d][0], r, words);
        }
    }
}

BlktraceWriter::~BlktraceWriter() {
    try {
        flush();
    } catch (...) {
        // A destructor must not throw; callers that care call flush() themselves.
    }
}

BlktraceWriter::Stream& BlktraceWriter::stream(uint32_t dev, uint32_t cpu) {
    std::vector<Stream>& per_cpu = streams_.at(dev);
    if (cpu >= per_cpu.size())
        throw std::out_of_range(fmt::format("blktrace writer: event on CPU {} but {} has files for CPUs 0..{}",
                                            cpu, devices_[dev].name, per_cpu.size() - 1));
    return per_cpu[cpu];
}

void BlktraceWriter::emit(uint32_t dev, const TraceEvent& e) {
    Stream& s = stream(dev, e.cpu);  // a bad disk or CPU fails here, at the event that has it
    hold(s, Held{e, false, {}});
    arrived(s, e.time);
}

void BlktraceWriter::message(uint32_t dev, sim::Time t, uint32_t cpu, std::string_view text) {
    Stream& s = stream(dev, cpu);
    Held h;
    h.e.time = t;
    h.e.cpu = cpu;
    h.message = true;
    h.text = text;
    hold(s, std::move(h));
    arrived(s, t);
}

// Something at `t` came in on `s`: write out what the window has passed.
void BlktraceWriter::arrived(Stream& s, sim::Time t) {
    newest_ = std::max(newest_, t.ns());
    const int64_t horizon = newest_ - opt_.window.count();
    release(s, horizon);
    if (--until_sweep_ == 0 || held_ > opt_.max_pending) {
        until_sweep_ = SWEEP_EVERY;
        release_all(horizon);
    }
    while (held_ > opt_.max_pending && !s.held.empty())
        release(s, s.held.front().e.time.ns() + 1);  // over the bound: the oldest go out now
}

// Insert in time order: events mostly come in order (one comparison); a late one moves back
// past the few later ones (equal instants keep their arrival order).
void BlktraceWriter::hold(Stream& s, Held h) {
    s.held.push_back(std::move(h));
    ++held_;
    for (auto it = s.held.end() - 1; it != s.held.begin() && (it - 1)->e.time.ns() > it->e.time.ns(); --it)
        std::iter_swap(it, it - 1);
}

// Write out the stream's events older than `before`.
void BlktraceWriter::release(Stream& s, int64_t before) {
    while (!s.held.empty() && s.held.front().e.time.ns() < before) {
        if (s.held.front().message)
            write_message(s, s.held.front());
        else
            write_event(s, s.held.front().e);
        s.held.pop_front();
        --held_;
    }
}

void BlktraceWriter::release_all(int64_t before) {
    for (auto& per_cpu : streams_)
        for (Stream& s : per_cpu)
            release(s, before);
}

void BlktraceWriter::flush() {
    release_all(INT64_MAX);
    for (auto& per_cpu : streams_)
        for (Stream& s : per_cpu) {
            drain(s);
            if (s.out)
                s.out->flush();
        }
}

void BlktraceWriter::write_event(Stream& s, const TraceEvent& e) {
    const uint32_t dev = s.dev;
    const int64_t t = e.time.ns();
    if (t < s.last_time)
        ++late_;
    s.last_time = std::max(s.last_time, t);

    const uint32_t device = bt::mkdev(devices_[dev].major, devices_[dev].minor);
    // trace_note_tsk(): a task's first event on a traced disk is preceded by its name.
    std::vector<bool>& noted = pid_noted_[dev];
    if (e.pid >= noted.size())
        noted.resize(std::max<std::size_t>(e.pid + 1, noted.size() * 2), false);
    if (!noted[e.pid]) {
        noted[e.pid] = true;
        bt::Record n;
        n.time = static_cast<uint64_t>(t);
        n.action = bt::TN_PROCESS;
        n.pid = e.pid;
        n.device = device;
        n.cpu = e.cpu;
        n.pdu_len = bt::TASK_COMM_LEN;
        unsigned char comm[bt::TASK_COMM_LEN] = {};
        opt_.comm.copy(reinterpret_cast<char*>(comm), bt::TASK_COMM_LEN - 1);
        put(s, n, comm);
    }

    bt::Record r;
    r.sequence = ++s.sequence;
    r.time = static_cast<uint64_t>(t);
    r.action = action_word(e);
    r.pid = e.pid;
    r.device = device;
    r.cpu = e.cpu;
    if (carries_no_op(e.action)) {
        if (e.action != TraceAction::PLUG) {
            // blk_add_trace_unplug(): the depth as a big-endian u64.
            unsigned char depth[8];
            for (unsigned i = 0; i < 8; ++i)
                depth[i] = static_cast<unsigned char>(uint64_t{e.pdu} >> (8 * (7 - i)));
            r.pdu_len = 8;
            put(s, r, depth);
        } else {
            put(s, r, nullptr);
        }
    } else {
        r.sector = e.sector;
        r.bytes = e.nr_sectors << 9;
        if (e.action == TraceAction::COMPLETE)
            r.error = static_cast<uint16_t>(e.error);
        if (e.action == TraceAction::SPLIT) {
            // blk_add_trace_split(): where the rest of the bio starts, a big-endian u64 (the
            // model gives the split-off piece's length in `pdu`, as the text writer reads it).
            const uint64_t rest = e.sector + e.pdu;
            unsigned char at[8];
            for (unsigned i = 0; i < 8; ++i)
                at[i] = static_cast<unsigned char>(rest >> (8 * (7 - i)));
            r.pdu_len = 8;
            put(s, r, at);
        } else {
            put(s, r, nullptr);
        }
    }
    ++events_;
}

// __blk_trace_note_message() → __blk_add_trace(..., BLK_TN_MESSAGE, ...): a notify record
// with the CPU's next sequence number, no sector or size, and the text as its payload.
void BlktraceWriter::write_message(Stream& s, const Held& h) {
    const int64_t t = h.e.time.ns();
    if (t < s.last_time)
        ++late_;
    s.last_time = std::max(s.last_time, t);
    bt::Record r;
    r.sequence = ++s.sequence;
    r.time = static_cast<uint64_t>(t);
    r.action = bt::TN_MESSAGE;
    r.pid = h.e.pid;
    r.device = bt::mkdev(devices_[s.dev].major, devices_[s.dev].minor);
    r.cpu = h.e.cpu;
    r.pdu_len = static_cast<uint16_t>(h.text.size());
    put(s, r, reinterpret_cast<const unsigned char*>(h.text.data()));
    ++events_;
}

void BlktraceWriter::put(Stream& s, const bt::Record& r, const unsigned char* pdu) {
    const std::size_t at = s.buf.size();
    s.buf.resize(at + bt::RECORD_BYTES + r.pdu_len);
    bt::encode(r, s.buf.data() + at);
    if (r.pdu_len)
        std::copy(pdu, pdu + r.pdu_len, s.buf.begin() + static_cast<std::ptrdiff_t>(at + bt::RECORD_BYTES));
    if (s.buf.size() >= FLUSH_BYTES)
        drain(s);
}

void BlktraceWriter::drain(Stream& s) {
    if (s.out && !s.buf.empty())
        s.out->write(reinterpret_cast<const char*>(s.buf.data()), static_cast<std::streamsize>(s.buf.size()));
    s.buf.clear();
}

}  // namespace blksim::report
