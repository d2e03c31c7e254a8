// One fio job, as fio's options describe it (names kept from fio's HOWTO). numjobs > 1
// clones the job, as fio does; each clone is one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/workload/replay.h"
#include "sim/time.h"

namespace blksim::workload {

enum class IoEngine : uint8_t { PSYNC, LIBAIO, IO_URING };
enum class RwPattern : uint8_t { READ, WRITE, RANDREAD, RANDWRITE, RW, RANDRW };

struct JobConfig {
    std::string name;
    std::string device;                   // the queue (disk) the job targets
    IoEngine ioengine = IoEngine::PSYNC;
    RwPattern rw = RwPattern::READ;
    uint32_t rwmixread = 50;              // percent reads for rw/randrw
    uint64_t bs_read = 4096, bs_write = 4096;  // fio bs=r[,w]
    uint64_t size = 0;                    // bytes of the region; 0 = device size - offset
    uint64_t offset = 0;
    uint32_t numjobs = 1;
    uint32_t iodepth = 1;
    uint32_t iodepth_batch_submit = 1;
    uint32_t iodepth_batch_complete_min = 1;
    uint32_t iodepth_batch_complete_max = 0;  // 0 = iodepth
    sim::Duration runtime;                // 0 = until size is done
    bool time_based = false;
    sim::Duration ramp_time;
    uint64_t number_ios = 0;              // 0 = unlimited
    std::optional<uint64_t> randseed;     // default: derived from the scenario seed
    bool direct = true;
    uint32_t groupid = 0;
    bool stonewall = false;               // fio stonewall: start after all earlier jobs have ended
    std::vector<uint32_t> cpus_allowed;   // empty = spread over all CPUs
    // I/O priority, as fio sets it on each I/O (§6.6): prioclass/prio for all of the job's
    // I/Os, or cmdprio_class/cmdprio for cmdprio_percentage % of them (libaio, io_uring).
    uint8_t prioclass = 0;                // 0 = not set (IOPRIO_CLASS_NONE), 1 RT, 2 BE, 3 IDLE
    uint8_t prio = 0;                     // level 0 (highest) .. 7
    uint32_t cmdprio_percentage = 0;
    uint8_t cmdprio_class = 1;            // fio's default for cmdprio_class: RT
    uint8_t cmdprio = 0;
    bool uses_prio() const { return prioclass != 0 || cmdprio_percentage != 0; }
    // fio read_iolog: replay this recorded stream instead of drawing offsets (rw, bs, size,
    // offset then only describe the job in the report). Shared by the job's clones, each of
    // which replays all of it, as fio's clones do with one log.
    std::shared_ptr<const ReplayLog> replay;
    bool replay_no_stall = false;         // fio replay_no_stall: ignore the recorded timing
    // fio's log files (models/workload/io_log.h): the NAME of write_lat_log / write_bw_log /
    // write_iops_log, "" = not written; log_avg_msec 0 = one line per I/O.
    struct Logs {
        std::string lat, bw, iops;
        uint32_t avg_msec = 0;
        bool offset = false;              // fio log_offset
        bool prio = false;                // fio log_prio
        bool any() const { return !lat.empty() || !bw.empty() || !iops.empty(); }
    } logs;
};

}  // namespace blksim::workload
