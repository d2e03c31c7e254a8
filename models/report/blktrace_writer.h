// blktrace binary output: every TraceEvent becomes one `struct blk_io_trace` record
// (models/report/blktrace_format.h) in the per-CPU file blktrace writes for the disk,
// <disk>.blktrace.<cpu>, so that the real blkparse and btt read a simulated run:
//
//   blkparse -i nullb0 -D DIR            # text, as for a real capture
//   blkparse -i nullb0 -D DIR -d all.bin -O && btt -i all.bin
//
// What the kernel writes, and so this writer:
//   - the action word with the category bits of __blk_add_trace(): BLK_TC_QUEUE/ISSUE/
//     COMPLETE/REQUEUE by action, READ or WRITE (plug and unplug carry no operation, which the
//     kernel records as a read), SYNC for REQ_SYNC (O_DIRECT writes), FS for the request-based
//     events (I, D, C, R, the M of a request merge);
//   - P and U/UT with sector 0 and no bytes; U/UT with an 8-byte big-endian payload, the
//     number of requests unplugged;
//   - X (split) with the bio's sector and size and, as payload, the sector where the rest of
//     the bio starts (big-endian u64);
//   - C with the error as the kernel stores it (a negative errno in 16 bits);
//   - one BLK_TN_PROCESS record (pid → "fio", sequence 0) before a task's first event on the
//     disk, on the CPU of that event, so that blkparse prints command names; one
//     BLK_TN_TIMESTAMP record at the start (wall clock 0: output stays deterministic);
//   - per-CPU sequence numbers from 1, in file order;
//   - an explained decision (--explain) as a BLK_TN_MESSAGE record, the text as its payload
//     (no NUL), as blk_add_trace_msg() writes it: blkparse prints it as "m   N <text>".
//
// Each per-CPU file must be in time order (blkparse merges the files by time and btt pairs
// events in the order blkparse hands them over), but the model emits a CPU's events a little
// out of order: a step's events carry instants inside the step, and interrupt work that
// preempts it is emitted later with earlier instants. Each CPU's events therefore pass
// through a small reorder buffer (sorted on arrival, which costs nothing for events that come
// in order): an event is written out once it is `window` older than the newest event seen;
// when `max_pending` are held, the oldest of the CPU at hand go out regardless. Memory stays
// bounded for any run length; an event that arrives after a later one of its CPU was
// written (none in the shipped scenarios) is written anyway and counted in late_events().
#pragma once

#include <cstdint>
#include <deque>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/blkmq/trace.h"
#include "models/report/blkparse_writer.h"
#include "models/report/blktrace_format.h"
#include "sim/time.h"

namespace blksim::report {

class BlktraceWriter final : public blkmq::TraceSink {
public:
    struct Options {
        sim::Duration window = sim::Duration::ns(1'000'000);  // 1 ms of simulated time
        std::size_t max_pending = 1u << 16;
        std::string comm = "fio";  // every simulated submitter is a fio thread
    };
    // `devices[d]` is request queue d (TraceSink::emit's `dev`); `files[d][cpu]` receives
    // the per-CPU file <devices[d].name>.blktrace.<cpu>. Opening them is the caller's
    // business (blktrace creates one per online CPU, empty ones included).
    BlktraceWriter(std::vector<TraceDevice> devices, std::vector<std::vector<std::ostream*>> files,
                   Options opt);
    BlktraceWriter(std::vector<TraceDevice> devices, std::vector<std::vector<std::ostream*>> files)
        : BlktraceWriter(std::move(devices), std::move(files), Options{}) {}
    ~BlktraceWriter() override;
    BlktraceWriter(const BlktraceWriter&) = delete;
    BlktraceWriter& operator=(const BlktraceWriter&) = delete;

    void emit(uint32_t dev, const blkmq::TraceEvent& e) override;
    void message(uint32_t dev, sim::Time t, uint32_t cpu, std::string_view text) override;
    // The end of the run: write out everything held back and buffered.
    void flush();

    uint64_t events() const { return events_; }          // event records written (messages too)
    uint64_t late_events() const { return late_; }        // written out of time order
    // The action word the kernel would record for `e` (category bits | action code).
    static uint32_t action_word(const blkmq::TraceEvent& e);

private:
    // An event waiting in a reorder buffer; a message carries its text.
    struct Held {
        blkmq::TraceEvent e;
        bool message = false;
        std::string text;
    };
    struct Stream {
        std::ostream* out = nullptr;
        uint32_t dev = 0;
        std::deque<Held> held;  // in time order (equal instants: arrival order)
        std::vector<unsigned char> buf;
        uint32_t sequence = 0;
        int64_t last_time = INT64_MIN;
    };

    void hold(Stream& s, Held h);
    void arrived(Stream& s, sim::Time t);
    void release(Stream& s, int64_t before);
    void release_all(int64_t before);
    void write_event(Stream& s, const blkmq::TraceEvent& e);
    void write_message(Stream& s, const Held& h);
    void put(Stream& s, const blktrace::Record& r, const unsigned char* pdu);
    static void drain(Stream& s);
    Stream& stream(uint32_t dev, uint32_t cpu);

    static constexpr std::size_t FLUSH_BYTES = 64 * 1024;
    static constexpr uint32_t SWEEP_EVERY = 4096;  // also release the CPUs that went quiet

    std::vector<TraceDevice> devices_;
    std::vector<std::vector<Stream>> streams_;      // [dev][cpu]
    std::vector<std::vector<bool>> pid_noted_;      // [dev][pid]: BLK_TN_PROCESS written
    Options opt_;
    std::size_t held_ = 0;
    uint32_t until_sweep_ = SWEEP_EVERY;
    int64_t newest_ = INT64_MIN;
    uint64_t events_ = 0;
    uint64_t late_ = 0;
};

}  // namespace blksim::report
