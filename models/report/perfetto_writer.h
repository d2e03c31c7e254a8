// `--perfetto FILE`: the run as Chrome trace-event JSON, the format ui.perfetto.dev and
// chrome://tracing open (docs/timeline.md). What it shows:
//
//   process "CPUs"      a track per core: the job threads' steps, and inside or after them
//                       the kernel work charged to the core by step (insert, lock section,
//                       queue_rq, kblockd, irq, completion, the elevator's finish hook), each
//                       lock's spin as its own slice; a counter "lock waiters": the cores
//                       spinning at each instant;
//   process "disk X"    "hctx N": each request at the driver on that hardware queue (D to C);
//                       "device": the drive's phases where the model computes them (an HDD's
//                       seek, rotation, read/write, destage);
//                       "requests": each sampled request from Q to C, its stages Q2G, G2I,
//                       I2D, D2C as children, and a flow Q → G → I → D (on its hctx) → C;
//                       counters at each trace event: requests at the driver, driver and
//                       scheduler tags in use, requests the elevator holds, sleepers on the
//                       tag space, and the device model's own figures (its --timeseries
//                       columns: an HDD's NCQ queue, ...).
//
// Everything is collected in memory while the run goes and written at the end: tracks must
// come out in time order, and the model places work a little ahead of the clock. Memory is
// bounded by the time window (Options::from/to), the request sample (every Nth request)
// and a cap on the records kept (Options::max_records): past it nothing more is kept, and
// the file says so (metadata "truncated_at_ns"). Overlapping slices of one track that do not
// nest (work charged to a core while a step is being played out) go on an extra lane of
// the track ("CPU 0 +1"), so that every lane nests properly.
//
// The hooks it uses (TraceSink, cpu::WorkTrace, dev::PhaseTrace) are pointer tests on the
// model's path when nothing is attached.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/blkmq/request_queue.h"
#include "models/blkmq/trace.h"
#include "models/cpu/cpu.h"
#include "models/device/device.h"
#include "models/report/cpu_breakdown.h"
#include "sim/time.h"

namespace blksim::topology {
class Machine;
}

namespace blksim::report {

class PerfettoWriter final : public blkmq::TraceSink, public cpu::WorkTrace, public dev::PhaseTrace {
public:
    struct Options {
        sim::Time from;                                             // the window: what overlaps
        sim::Time to = sim::Time::never();           // [from, to) is kept
        uint32_t sample = 1;                                        // every Nth completed request
        std::size_t max_records = 1'000'000;
    };

    PerfettoWriter(Options opt, std::span<const std::unique_ptr<blkmq::RequestQueue>> queues, uint32_t nr_cpus);
    PerfettoWriter(const PerfettoWriter&) = delete;
    PerfettoWriter& operator=(const PerfettoWriter&) = delete;

    void emit(uint32_t dev, const blkmq::TraceEvent& e) override;
    void work(uint32_t cpu, cpu::Work w, sim::Time start, sim::Duration len, sim::Duration cost,
              sim::Duration spin) override;
    void phase(const dev::Device& d, const char* name, sim::Time start, sim::Time end, uint64_t sector) override;

    // The whole file (the machine may be gone by then); `meta` (a JSON object's members, e.g. "scenario":"x.json") goes into
    // the file's "metadata" beside the window, the sample and the breakdown.
    void write(std::ostream& out, const std::string& meta) const;

    // CPU time per core and kind of work over the whole run (not only the window).
    const CpuBreakdown& breakdown() const { return breakdown_; }
    uint64_t requests() const { return requests_kept_; }
    // The instant records stopped being kept (the cap was reached), or -1.
    int64_t truncated_at() const { return truncated_at_; }
    // Slices left out because a track had more overlapping ones than it has lanes.
    uint64_t dropped() const { return dropped_; }

private:
    struct Slice {
        int64_t start, end;
        uint32_t name;   // strings_ index
        uint32_t args;   // strings_ index of a JSON object, 0: none
        uint32_t flow;   // flow id, 0: none
        char flow_ph;    // 's', 't' or 'f'
    };
    // What is laid out on one lane as a whole: one slice, or a request and its stages.
    struct Unit {
        uint32_t group;
        uint32_t first, count;  // slices_[first, first + count), the outermost first
    };
    struct Counter {
        int64_t ts;
        uint32_t series;  // counter_names_ index
        double value;
    };
    // A track: a core, a disk's hctx, its device, its requests.
    struct Group {
        uint32_t pid, tid_base;
        std::string name;
        bool nest;  // units may nest in each other (a core's work); else one at a time per lane
    };

    class Out;
    std::vector<std::vector<uint32_t>> lay_out(const std::vector<uint32_t>& order, std::size_t& k) const;
    void write_lane(Out& out, uint32_t pid, uint32_t tid, const std::vector<uint32_t>& lane) const;
    void write_counters(Out& out) const;
    void write_lock_waiters(Out& out) const;
    bool keep(int64_t start, int64_t end);
    uint32_t intern(const std::string& s);
    uint32_t add_unit(uint32_t group, uint32_t count);
    void sample_counters(uint32_t dev, int64_t ts);
    void completed(uint32_t dev, const blkmq::TraceEvent& e);

    Options opt_;
    std::span<const std::unique_ptr<blkmq::RequestQueue>> queues_;
    uint32_t nr_cpus_;
    std::vector<Group> groups_;
    std::vector<std::string> disk_names_;  // write() comes after the machine is gone
    std::vector<uint32_t> disk_group_;  // per disk, its first group: device, requests, hctx 0..
    std::unordered_map<const dev::Device*, uint32_t> device_disk_;
    std::vector<std::string> strings_;
    std::unordered_map<std::string, uint32_t> string_ids_;
    std::vector<Slice> slices_;
    std::vector<Unit> units_;
    std::vector<std::string> counter_names_;  // "pid\tname"
    std::vector<std::vector<uint32_t>> disk_counters_;  // per disk, its series
    std::vector<std::vector<double>> last_values_;     // per disk, the values last recorded
    std::vector<double> scratch_;
    std::vector<Counter> counters_;
    CpuBreakdown breakdown_;
    uint64_t completions_ = 0;
    uint64_t requests_kept_ = 0;
    uint32_t next_flow_ = 1;
    int64_t truncated_at_ = -1;
    mutable uint64_t dropped_ = 0;
};

// --perfetto on `m`: `w` receives every queue's trace events, every core's work and every
// device's phases. Call before m.run(); `w` must outlive the run.
void attach_perfetto(topology::Machine& m, PerfettoWriter& w);

}  // namespace blksim::report
