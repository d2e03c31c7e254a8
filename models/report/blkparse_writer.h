// blkparse-style text trace: every TraceEvent becomes one line in the layout of the real
// `blkparse` default output (blktrace 1.2.0, blkparse_fmt.c process_default()), e.g.
//
//   "  7,0    1        3     0.000134070 32260  Q   R 1817024 + 8 [fio]"
//
// Lines are streamed as the simulation runs: each is formatted into one reused buffer that is
// written out in large chunks, so memory stays flat for any run length and nothing is
// allocated per event. blkparse's end-of-trace summary (per-CPU and per-device totals,
// "Throughput (R/W)") is not written: btt-style statistics come from format_blksim_extras().
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "models/blkmq/trace.h"

namespace blksim::report {

// A traced disk as blkparse names it: "major,minor" in the first column.
struct TraceDevice {
    std::string name;
    uint32_t major = 0;
    uint32_t minor = 0;
};

// blksim's numbering for simulated disks: major 252 (a dynamically allocated block major, as
// virtual devices such as null_blk/zram get), minor = the disk's index in the scenario. Real
// disks use minor = index * 16 to leave room for partitions; simulated disks have none, so
// the index itself keeps the numbers small and obvious.
inline constexpr uint32_t SIM_BLOCK_MAJOR = 252;
std::vector<TraceDevice> sim_trace_devices(const std::vector<std::string>& names);

class BlkparseWriter final : public blkmq::TraceSink {
public:
    // `devices[i]` describes request queue i (TraceSink::emit's `dev`). `comm` is the process
    // name printed in brackets (blkparse looks it up by pid; every simulated submitter is fio).
    BlkparseWriter(std::ostream& out, std::vector<TraceDevice> devices, std::string comm = "fio");
    ~BlkparseWriter() override;
    BlkparseWriter(const BlkparseWriter&) = delete;
    BlkparseWriter& operator=(const BlkparseWriter&) = delete;

    void emit(uint32_t dev, const blkmq::TraceEvent& e) override;
    void message(uint32_t dev, sim::Time t, uint32_t cpu, std::string_view text) override;
    // Write out whatever is buffered (also done by the destructor).
    void flush();

private:
    void format_line(const TraceDevice& d, uint32_t sequence, const blkmq::TraceEvent& e);
    uint32_t next_sequence(uint32_t dev, uint32_t cpu);
    void spill();  // write out the buffer once FLUSH_BYTES have accumulated

    // Buffered bytes written to `out_` once this much has accumulated.
    static constexpr std::size_t FLUSH_BYTES = 64 * 1024;

    std::ostream& out_;
    std::vector<TraceDevice> devices_;
    std::string comm_;
    // The kernel's per-CPU blk_trace sequence counter, one set per traced queue: the third
    // column, 1 for a CPU's first event on that disk.
    std::vector<std::vector<uint32_t>> sequence_;
    fmt::memory_buffer buf_;
};

}  // namespace blksim::report
