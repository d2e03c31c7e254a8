// The NVMe model's parameters, apart from the model (nvme.h).
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace blksim::dev {

// A datacenter NVMe SSD, first model (the device issue refines it): a controller front
// end that takes commands one at a time, flash units working in parallel, and a host link
// that moves the data. Each is a timeline; no per-unit events.
struct NvmeConfig {
    uint32_t nr_io_queues = 0;         // submission/completion queue pairs; 0 = one per CPU
    uint32_t queue_depth = 1023;       // per queue (MQES + 1 as Linux uses it)
    // The driver's poll_queues parameter: queue pairs without an interrupt (HCTX_TYPE_POLL),
    // whose completions the submitter finds by polling. 0 (the kernel's default): none, and
    // a polled bio completes by interrupt.
    uint32_t poll_queues = 0;
    sim::Duration cmd_overhead = sim::Duration::ns(1000);     // controller time per command
    sim::Duration read_latency = sim::Duration::ns(80000);    // media time of a read (up to 4 KiB)
    sim::Duration write_latency = sim::Duration::ns(20000);   // write into the controller's buffer
    sim::Duration per_4k = sim::Duration::ns(2000);           // media time per further 4 KiB
    uint32_t parallel_units = 64;      // flash dies/planes busy at once
    // Spread of each command's media time around its mean: the sigma of a mean-preserving
    // lognormal (service_spread.h; 0 = constant). 0.14 is the SATA SSD's figure fitted to a
    // TLC drive's QD1 read percentiles, taken over for the same kind of flash (an assumption,
    // docs/model.md): a QD1 4 KiB read's p99 ~30 % above its median.
    double read_sigma = 0.14;
    double write_sigma = 0.14;
    uint64_t link_bytes_per_s = 3'200'000'000;  // host transfer rate (PCIe link / controller)
    uint64_t size_bytes = 1'920'000'000'000;    // 1.92 TB
    uint32_t blocksize = 512;
    // Volatile write cache (Identify Controller VWC). A datacenter drive with power-loss
    // protection reports none (so Linux sends it no flushes), hence the default; a client
    // drive reports one. Then a Flush command costs flush_latency after the controller took
    // it (an estimate: client NVMe drives manage ~1-3 k fsyncs per second in published fio
    // fsync=1 runs), queued beside other commands as NVMe allows, and a FUA write
    // program_latency more than a buffered one (its data programmed before the answer).
    bool volatile_write_cache = false;
    bool fua = true;
    sim::Duration flush_latency = sim::Duration::ns(500'000);
    sim::Duration program_latency = sim::Duration::ns(200'000);
    // Dataset Management with the Deallocate attribute (ONCS bit 2), what Linux sends for a
    // discard (nvme_setup_discard(): up to 256 ranges, max_discard_sectors UINT_MAX when the
    // drive gives no DMRSL). deallocate_latency: the controller's time per command (a mapping
    // update, no media or link time). No datasheet gives it; 20 us is an assumption (measure
    // with fio rw=randtrim on the drive).
    bool dsm = true;
    sim::Duration deallocate_latency = sim::Duration::ns(20'000);
};

}  // namespace blksim::dev
