// The device interface (docs/architecture.md, Principles): a device accepts a
// command when it has a free slot and completes it later by calling
// DriverQueue::complete_request() (models/blkmq/driver_api.h). Composite devices (RAID)
// will own other devices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/blkmq/driver_api.h"
#include "models/blkmq/explain.h"
#include "models/blkmq/request.h"
#include "sim/time.h"

namespace blksim::result {
struct DeviceReport;
}

namespace blksim::dev {

// blk_status_t results of ->queue_rq that the block layer distinguishes.
enum class BlkStatus : uint8_t {
    OK,            // BLK_STS_OK: the device owns the request now
    RESOURCE,      // BLK_STS_RESOURCE: out of a resource, possibly global: rerun in 3 ms
    DEV_RESOURCE,  // BLK_STS_DEV_RESOURCE: a completion of this device will free it
};

class Device;

// The kernel driver stack a device's commands go through below blk-mq, for its CPU cost
// (cpu::CpuCosts): a thin driver (null_blk, nvme, brd), libata under the SCSI midlayer, or a
// SCSI low-level driver (SAS HBA, RAID card).
enum class HostPath : uint8_t { DIRECT, ATA, SCSI };

// What a device's mechanism does with a command, for a trace (--perfetto): phases a model
// computes anyway (an HDD's seek, rotational wait and transfer). Off unless attached: then
// the cost is one pointer test per media operation.
class PhaseTrace {
public:
    // `name` is a string literal; `sector` the command's first (its request's, 0 for the
    // drive's own work such as destaging).
    virtual void phase(const Device& d, const char* name, sim::Time start, sim::Time end, uint64_t sector) = 0;

protected:
    ~PhaseTrace() = default;
};

class Device {
public:
    virtual ~Device() = default;

    void set_phase_trace(PhaseTrace* t) { phase_trace_ = t; }

    // The request queue the device completes its requests to (the driver's disk).
    virtual void attach(blkmq::DriverQueue* q) = 0;

    // ->queue_rq(hctx, {rq, last}) at `now`, from CPU `cpu`. The driver emits D itself in
    // the kernel (blk_mq_start_request); here the request queue does it on OK.
    virtual BlkStatus queue_rq(blkmq::Request* rq, bool last, sim::Time now, uint32_t cpu) = 0;

    virtual uint32_t nr_hw_queues() const = 0;
    virtual uint32_t queue_depth() const = 0;        // tag set queue_depth per hctx
    virtual uint64_t capacity_sectors() const = 0;
    virtual uint32_t logical_block_size() const = 0;
    // The tag set's request timeout (set->timeout; the kernel's default is 30 s).
    virtual sim::Duration request_timeout() const { return sim::Duration::ns(30'000'000'000); }
    // True when ->queue_rq completes the request before returning (null_blk irqmode=0).
    virtual bool completes_inline() const { return false; }
    // queue/rotational: a spinning disk (the driver leaves QUEUE_FLAG_NONROT clear). bfq
    // idles for throughput on such devices (docs/references.md §5.1). Flash and null_blk are
    // non-rotational.
    virtual bool rotational() const { return false; }
    virtual HostPath host_path() const { return HostPath::DIRECT; }
    // blk_queue_write_cache(q, wc, fua): the device has a volatile write cache (BLK_FEAT_WRITE_CACHE,
    // sysfs queue/write_cache "write back") and honours FUA writes (BLK_FEAT_FUA). Without a
    // write cache the block layer strips REQ_PREFLUSH and REQ_FUA and ends an empty flush at
    // once; with one, flushes reach ->queue_rq as REQ_OP_FLUSH requests (blk-flush.c). FUA
    // counts only together with a write cache, as blk_validate_limits() has it.
    virtual bool write_cache() const { return false; }
    virtual bool fua() const { return false; }
    // The discard queue limits the driver sets (sysfs queue/discard_max_hw_bytes >> 9,
    // queue/discard_granularity in bytes): 0 sectors = no discard support, and the BLKDISCARD
    // ioctl fails with EOPNOTSUPP before any bio (bdev_max_discard_sectors() == 0).
    virtual uint32_t max_discard_sectors() const { return 0; }
    virtual uint32_t discard_granularity() const { return logical_block_size(); }
    // BLK_MQ_F_TAG_HCTX_SHARED: the driver's hctxs all draw on one host-wide tag space
    // (set->shared_tags) instead of queue_depth tags each.
    virtual bool host_tagset() const { return false; }
    // The model's own figures for blksim's report section (seek/rotation split, cache hits,
    // internal queue depth...); a model with nothing to add leaves `r` empty.
    virtual void report(result::DeviceReport& /*r*/) const {}
    // The time series (`--timeseries`, models/report/timeseries.h): what the model holds now,
    // beside the request queue's own figures. series_columns() names the values once (the
    // HDD's commands in its NCQ queue and dirty cache, a RAID controller's commands per
    // member disk...); series_sample() writes that many values, read-only, at each sample.
    // A model whose only queue is the driver's in-flight count (null_blk, NVMe) has none.
    virtual std::vector<std::string> series_columns() const { return {}; }
    virtual void series_sample(std::span<double> /*out*/) const {}
    // At the end of a run (every host command completed): what the device still owes the
    // host or broke on the way (a command it never completed, more commands at once than
    // its queue depth), or "" when all is well. Background work (destaging) may go on.
    virtual std::string check_idle() const { return {}; }

    // Without a request queue (device tests, the member disks of a RAID controller):
    // completions go to this function instead of DriverQueue::complete_request. Models
    // that support it (hdd, sata_ssd, nvme, raid) finish requests through end_request().
    using CompletionSink = void (*)(void* obj, blkmq::Request* rq, sim::Time now);
    void set_completion_sink(CompletionSink fn, void* obj) {
        sink_ = fn;
        sink_obj_ = obj;
    }

    // The device's random streams, seeded from the run's seed and the device's name (a model
    // that draws nothing ignores it; a composite device seeds its members).
    virtual void seed(uint64_t /*run_seed*/, std::string_view /*name*/) {}

    // --explain: the device's decisions (models/blkmq/explain.h), as disk `dev`.
    void set_explain(blkmq::TraceSink* sink, uint32_t dev) { explain_.attach(sink, dev); }

protected:
    blkmq::Explain explain_;

    void trace_phase(const char* name, sim::Time start, sim::Time end, uint64_t sector) const {
        if (phase_trace_) [[unlikely]]
            phase_trace_->phase(*this, name, start, end, sector);
    }
    // A finished request goes back to the request queue `q` (completion interrupt on
    // `irq_cpu`, or found by the submitter's poll) when the device is attached to one, else
    // to the completion sink.
    void end_request(blkmq::DriverQueue* q, blkmq::Request* rq, sim::Time now, uint32_t irq_cpu,
                     blkmq::DriverQueue::CompletionPath path = blkmq::DriverQueue::CompletionPath::DEVICE_IRQ) const;

private:
    PhaseTrace* phase_trace_ = nullptr;
    CompletionSink sink_ = nullptr;
    void* sink_obj_ = nullptr;
};

}  // namespace blksim::dev
