// An NVMe SSD (first model): one submission/completion queue pair per CPU by default, deep
// queues, no budget, interrupts on the queue's CPU, coalescing off; with poll_queues, a
// polled request (REQ_POLLED) completes without an interrupt, found by its submitter. The
// poll queues share the default queues' hctxs and tags here (the kernel gives them their own
// hctx map, HCTX_TYPE_POLL): what differs is how a completion reaches the host. Service of a command:
//   controller  takes commands one at a time: cmd_overhead each (the IOPS ceiling);
//   flash       a read's pages are striped by LBA over the parallel_units (page p on unit
//               p mod parallel_units, as a drive filled sequentially lays them out), each
//               read by its own unit in read_latency plus per_4k for each further 4 KiB of
//               it, in parallel; the page a unit read last stays in its page register;
//               a write takes the next unit in turn for write_latency;
//   link        moves the data at link_bytes_per_s, one transfer at a time (the bandwidth
//               ceiling), each once it is ready, in the earliest gap that holds it (link.h).
// Each stage is a timeline, so a command's completion instant is known when it arrives; the
// completion is one event. A page's or a write's media time is drawn around its mean
// (service_spread.h). No read-ahead into DRAM (docs/model.md, "Sequential reads").
// Write buffer and GC (ssd_write_buffer.h, shared with the SATA SSD): a write needs room in
// the buffer when the controller has fetched it (else it waits, in order, for the drain);
// the buffer drains at parallel_units x page / program_latency, slower once garbage
// collection runs, whose page copies and erases occupy flash units (reads queue behind them).
// Simplified (docs/model.md): writes take the units in turn; a GC copy goes round the
// units and an erase to its victim's unit (a read waits behind GC when its own unit is busy
// with one); the layout is the sequential fill's whatever the drive was written with;
// host programs drain as a fluid and do not occupy the units; no write-buffer flushes.
#pragma once

#include <vector>

#include "models/blkmq/driver_api.h"
#include "models/device/device.h"
#include "models/device/link.h"
#include "models/device/nvme_config.h"
#include "models/device/service_spread.h"
#include "models/device/ssd_write_buffer.h"
#include "sim/random.h"
#include "sim/event_queue.h"

namespace blksim::dev {

class Nvme final : public Device {
public:
    Nvme(sim::EventQueue& eq, const NvmeConfig& cfg, uint32_t nr_cpus = 1);
    void attach(blkmq::DriverQueue* q) override { q_ = q; }

    BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) override;
    uint32_t nr_hw_queues() const override { return nr_queues_; }
    uint32_t queue_depth() const override { return cfg_.queue_depth; }
    uint64_t capacity_sectors() const override { return cfg_.size_bytes >> 9; }
    uint32_t logical_block_size() const override { return cfg_.blocksize; }
    bool write_cache() const override { return cfg_.volatile_write_cache; }
    bool fua() const override { return cfg_.fua; }
    // nvme_config_discard(): UINT_MAX sectors (no DMRSL given), granularity the block size.
    uint32_t max_discard_sectors() const override { return cfg_.dsm ? 0xFFFFFFFFu : 0; }
    void seed(uint64_t run_seed, std::string_view name) override;

    // The write buffer and its garbage collection (what tests look at).
    const SsdWriteBuffer& write_buffer() const { return buf_; }
    uint64_t gc_copies() const { return gc_copies_; }
    uint64_t gc_erases() const { return gc_erases_; }

private:
    void complete(uint64_t rq_addr);
    // Puts a GC operation on its unit, from its instant.
    void put_gc_op(const GcOp& op);
    // A flash unit's timeline and its page register (the page its last read sensed).
    static constexpr uint64_t kNoPage = ~uint64_t{0};
    struct FlashUnit {
        int64_t free = 0;       // when its last booked operation ends (ns)
        uint64_t page = kNoPage;
        int64_t page_read = 0;  // when that page is in the register
    };
    // The read of bytes [b0, b1) on its pages' units from `t`: when the last page is read.
    sim::Time flash_read(uint64_t b0, uint64_t b1, sim::Time t);

    sim::EventQueue& eq_;
    NvmeConfig cfg_;
    uint32_t nr_queues_;
    blkmq::DriverQueue* q_ = nullptr;
    sim::Time ctrl_free_;
    Link link_;
    // Media times drawn around their means from the drive's own stream (seeded by seed()).
    sim::Rng rng_;
    ServiceSpread read_spread_, write_spread_;
    SsdWriteBuffer buf_;
    uint64_t page_bytes_;
    std::vector<FlashUnit> units_;
    size_t next_write_unit_ = 0;  // the FTL's write pointer over the units
    uint64_t gc_copies_ = 0, gc_erases_ = 0;
};

}  // namespace blksim::dev
