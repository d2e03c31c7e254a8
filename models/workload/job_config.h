// One fio job, as fio's options describe it (names kept from fio's HOWTO). numjobs > 1
// clones the job, as fio does; each clone is one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/result/job_options.h"
#include "models/workload/random_dist.h"
#include "models/workload/replay.h"
#include "sim/time.h"

namespace blksim::workload {

enum class IoEngine : uint8_t { PSYNC, LIBAIO, IO_URING, PVSYNC2, NULL_IO };
// fio's td_ddir: TRIM / RANDTRIM trim only; TRIMWRITE / RANDTRIMWRITE trim a block, then
// write the same range (fio's TD_DDIR_TRIMWRITE: "trims preceding writes").
enum class RwPattern : uint8_t { READ, WRITE, RANDREAD, RANDWRITE, RW, RANDRW, TRIM, RANDTRIM, TRIMWRITE, RANDTRIMWRITE };

// fio bssplit: one block size and the percentage of a direction's I/Os that get it.
struct BsSplitEntry {
    uint64_t bs = 0;
    uint32_t percent = 0;
    bool operator==(const BsSplitEntry&) const = default;
};

// fio cmdprio_bssplit: `percent` % of the I/Os of size `bs` get ioprio_class/level.
struct CmdprioSplit {
    uint64_t bs = 0;
    uint32_t percent = 0;
    uint8_t ioprio_class = 1, level = 0;
    bool operator==(const CmdprioSplit&) const = default;
};

struct JobConfig {
    std::string name;
    std::string device;                   // the queue (disk) the job targets
    IoEngine ioengine = IoEngine::PSYNC;
    // fio hipri (io_uring, pvsync2): polled completion. io_uring reaps by spinning
    // (IORING_SETUP_IOPOLL); the kernel polls no synchronous direct I/O, so pvsync2 sleeps
    // as psync does (docs/fio.md "Polled completion").
    bool hipri = false;
    // fio sqthread_poll (io_uring): IORING_SETUP_SQPOLL, a kernel SQ thread submits the job's
    // I/O from the ring (models/workload/sq_thread.h); sqthread_poll_cpu binds it
    // (IORING_SETUP_SQ_AFF), else the machine places it (docs/fio.md "sqthread_poll").
    bool sqthread_poll = false;
    std::optional<uint32_t> sqthread_poll_cpu;
    RwPattern rw = RwPattern::READ;
    // fio's td_read() / td_write() / td_trim(): whether the pattern has reads, writes, trims.
    bool reads() const { return rw == RwPattern::READ || rw == RwPattern::RANDREAD || rw == RwPattern::RW || rw == RwPattern::RANDRW; }
    bool writes() const { return rw != RwPattern::READ && rw != RwPattern::RANDREAD && rw != RwPattern::TRIM && rw != RwPattern::RANDTRIM; }
    bool trims() const { return rw >= RwPattern::TRIM; }
    // fio's td_random(): offsets drawn at random.
    bool random() const {
        return rw == RwPattern::RANDREAD || rw == RwPattern::RANDWRITE || rw == RwPattern::RANDRW ||
               rw == RwPattern::RANDTRIM || rw == RwPattern::RANDTRIMWRITE;
    }
    uint32_t rwmixread = 50;              // percent reads for rw/randrw
    uint64_t bs_read = 4096, bs_write = 4096;  // fio bs=r[,w]; with bsrange/bssplit the smallest size (min_bs)
    uint64_t bs_trim = 4096;              // fio bs=r,w,t's third value (bs=r,w: trims take w)
    // fio bsrange / bssplit per direction (0 read, 1 write, 2 trim), drawn as fio's get_next_buflen()
    // draws them (models/workload/buflen.h). max 0: bs is the only size.
    struct BsRange {
        uint64_t max = 0;                 // the largest size (fio's max_bs)
        std::vector<BsSplitEntry> split;  // bssplit: sizes by percentage; empty: uniform over the range
        bool operator==(const BsRange&) const = default;
    } bs_range[3];
    bool bs_unaligned = false;            // fio blocksize_unaligned: sizes not rounded to min_bs multiples
    uint64_t blockalign[3] = {0, 0, 0};   // fio blockalign: random offsets' alignment; 0 = min_bs
    uint64_t min_bs(unsigned d) const { return d == 2 ? bs_trim : d ? bs_write : bs_read; }
    uint64_t max_bs(unsigned d) const { return bs_range[d].max ? bs_range[d].max : min_bs(d); }
    uint64_t size = 0;                    // bytes of the region; 0 = device size - offset
    uint64_t offset = 0;
    // fio offset_increment: clone c's region starts c increments further (fio's
    // get_start_offset() with subjob_number), rounded up to the smallest block size when the
    // increment was a percentage.
    uint64_t offset_increment = 0;
    bool offset_increment_align = false;
    uint64_t io_size = 0;                 // fio io_size/io_limit: bytes to do (0: size); the region stays size
    RandomDistConfig random_dist;         // fio random_distribution (random offsets only)
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
    // fio's sync options, on a raw block device (docs/fio.md "fsync and FUA"): fsync=N /
    // fdatasync=N issue an fsync() / fdatasync() after every N writes (blkdev_fsync: one empty
    // REQ_PREFLUSH write, either way); sync=1 (O_SYNC, or dsync: O_DSYNC) makes every direct
    // write REQ_FUA; end_fsync / fsync_on_close fsync once when the job's I/O is done.
    uint32_t fsync_blocks = 0;
    uint32_t fdatasync_blocks = 0;
    bool sync_writes = false;
    bool end_fsync = false;
    // fio verify= (models/workload/verify.h): the checksum's CPU time per byte, and fio's
    // do_verify: a job that wrote reads it all back once its writes are done.
    struct Verify {
        bool on = false;
        uint64_t ps_per_byte = 0;
        bool read_back = true;
    } verify;
    uint32_t groupid = 0;
    bool stonewall = false;               // fio stonewall: start after all earlier jobs have ended
    // fio exitall / exitall_on_error / exit_what (models/workload/exit_all.h): when a job
    // exits (in error), which other jobs are told to stop.
    enum class ExitWhat : uint8_t { GROUP, STONEWALL, ALL };
    bool exitall = false;
    bool exitall_on_error = false;
    ExitWhat exit_what = ExitWhat::GROUP;
    std::vector<uint32_t> cpus_allowed;   // empty = spread over all CPUs
    // fio cpus_allowed_policy=split: thread k of the run (over all jobs) gets the (k mod n)th
    // of the n CPUs, in increasing order (fio_cpus_split()); shared: clone c gets the c-th.
    bool cpus_split = false;
    // I/O priority, as fio sets it on each I/O (docs/references.md §6.6): prioclass/prio for
    // all of the job's I/Os, or per direction (fio's engines/cmdprio.c, libaio and io_uring)
    // cmdprio_class/cmdprio for cmdprio_percentage % of them, or cmdprio_bssplit's share of
    // each size.
    uint8_t prioclass = 0;                // 0 = not set (IOPRIO_CLASS_NONE), 1 RT, 2 BE, 3 IDLE
    uint8_t prio = 0;                     // level 0 (highest) .. 7
    struct Cmdprio {
        uint32_t percentage = 0;          // fio cmdprio_percentage
        uint8_t ioprio_class = 1;         // fio cmdprio_class; its default: RT
        uint8_t level = 0;                // fio cmdprio
        std::vector<CmdprioSplit> bssplit;  // fio cmdprio_bssplit, sorted by bs (as fio sorts it)
        bool used() const { return percentage != 0 || !bssplit.empty(); }
    } cmdprio[2];
    bool uses_prio() const { return prioclass != 0 || cmdprio[0].used() || cmdprio[1].used(); }
    // fio's rate options (models/workload/rate.h), per direction. bps: rate, or rate_iops
    // times the smallest block size, as fio 3.33's setup_rate() turns it into bytes.
    struct Rate {
        uint64_t bps[2] = {0, 0};         // 0 = not capped
        uint64_t iops[2] = {0, 0};        // rate_iops as given (check_min_rate compares with it)
        bool by_bytes[2] = {false, false};  // rate or rate_min given (check_min_rate checks bytes)
        uint64_t min_bps[2] = {0, 0};     // fio rate_min
        uint64_t min_iops[2] = {0, 0};    // fio rate_iops_min
        bool poisson = false;             // fio rate_process=poisson (else linear)
        sim::Duration cycle = sim::Duration::ns(1'000'000'000);  // fio rate_cycle
        bool ignore_thinktime = false;    // fio rate_ignore_thinktime
        bool caps() const { return bps[0] || bps[1]; }
        bool has_min() const { return min_bps[0] || min_bps[1] || min_iops[0] || min_iops[1]; }
        bool any() const { return caps() || has_min(); }
    } rate;
    // fio's thinktime options (backend.c handle_thinktime()).
    struct ThinkTime {
        sim::Duration time;               // fio thinktime; 0 = off
        sim::Duration spin;               // fio thinktime_spin: the part spent busy on the CPU
        uint64_t blocks = 1;              // fio thinktime_blocks
        bool blocks_set = false;          // thinktime_blocks was given (matters with iotime)
        bool blocks_issue = false;        // fio thinktime_blocks_type=issue (else complete)
        sim::Duration iotime;             // fio thinktime_iotime; 0 = off
        bool enabled() const { return time.count() > 0; }
    } thinktime;
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
    // fio gtod_reduce=1: fio takes no timestamps, so its report has no slat/clat/lat, latency
    // distribution or bw/iops samples. The model measures them anyway; the fio-format reports
    // leave them out (report::fio::reported_stats()).
    bool gtod_reduce = false;
    // fio's percentile options, for the fio-format reports (result::Percentiles).
    using Percentiles = result::Percentiles;
    Percentiles percentiles;
};

}  // namespace blksim::workload
