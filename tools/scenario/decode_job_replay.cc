// A job's read_iolog= replay (a blktrace or a fio iolog) and the log files it writes
// (write_lat_log, write_bw_log, write_iops_log).
#include <algorithm>
#include <filesystem>
#include <memory>

#include "tools/replay/trace_reader.h"
#include "tools/scenario/decode_job.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

std::string fmt_replay_entry(const workload::ReplayLog& log, std::size_t i) {
    const workload::ReplayEntry& e = log.entries[i];
    return log.source + ": I/O " + std::to_string(i + 1) + " of the " + log.format + " (" +
           (e.ddir ? "write" : "read") + " of " + std::to_string(e.bytes) + " bytes at byte offset " +
           std::to_string(e.offset) + ")";
}

}  // namespace

// fio read_iolog=: a blktrace binary (a file, or the base name of per-CPU files) or a fio
// iolog v2/v3, read by tools/replay. A relative path is looked up beside the scenario
// first, then from the working directory. The job then describes itself as fio does after
// reading the log: rw from the directions it holds, bs the largest I/O of each direction.
void decode_replay(const JobInput& in, const Opt& v, workload::JobConfig& j) {
    const dev::DeviceConfig& d = in.device;
    const std::string given = text(v);
    std::string path = given;
    if (const fs::path p(given); p.is_relative()) {
        const fs::path beside = in.st.ctx.scenario_dir / p;
        if (!replay::replay_files(beside.string()).empty()) path = beside.string();
    }
    std::shared_ptr<workload::ReplayLog> log;
    try {
        log = std::make_shared<workload::ReplayLog>(replay::load_replay_log(path));
    } catch (const replay::TraceError& e) {
        in.rep().fail(v.ptr, e.what());
    }
    const uint64_t capacity = capacity_bytes(d);
    const uint64_t lbs = logical_block_size(d);
    bool dirs[2] = {false, false};
    uint64_t max_bs[2] = {0, 0};
    for (std::size_t i = 0; i < log->entries.size(); ++i) {
        const workload::ReplayEntry& e = log->entries[i];
        if (e.offset > capacity || e.bytes > capacity - e.offset)
            in.rep().fail(v.ptr, fmt_replay_entry(*log, i) + " ends beyond " + d.name + " (" + std::to_string(capacity) + " bytes)");
        if (j.direct && (e.offset % lbs != 0 || e.bytes % lbs != 0))
            in.rep().fail(v.ptr, fmt_replay_entry(*log, i) + " is not aligned to " + d.name + "'s logical block size " +
                                 std::to_string(lbs) + " (direct I/O needs that)");
        dirs[e.ddir] = true;
        max_bs[e.ddir] = std::max<uint64_t>(max_bs[e.ddir], e.bytes);
    }
    j.rw = dirs[0] && dirs[1] ? workload::RwPattern::RW : dirs[1] ? workload::RwPattern::WRITE : workload::RwPattern::READ;
    if (max_bs[0]) j.bs_read = max_bs[0];
    if (max_bs[1]) j.bs_write = max_bs[1];
    j.replay = std::move(log);
}

// fio's log files (models/workload/io_log.h). An empty name is the job's, as fio's bare
// write_lat_log.
void decode_logs(const JobInput& in, workload::JobConfig& j) {
    auto name = [&](const char* option, std::string& out) {
        if (const Opt* v = in.get(option)) out = text(*v).empty() ? j.name : text(*v);
    };
    name("write_lat_log", j.logs.lat);
    name("write_bw_log", j.logs.bw);
    name("write_iops_log", j.logs.iops);
    if (const Opt* v = in.get("log_avg_msec")) j.logs.avg_msec = static_cast<uint32_t>(number(*v));
    if (const Opt* v = in.get("log_offset")) j.logs.offset = boolean(*v);
    if (const Opt* v = in.get("log_prio")) j.logs.prio = boolean(*v);
}

}  // namespace blksim::scenario
