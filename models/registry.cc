#include "models/registry.h"

namespace blksim::registry {

namespace {

constexpr Param null_blk_params[] = {
    {"submit_queues", "1", "hardware queues (hctx), capped at the number of CPUs"},
    {"hw_queue_depth", "64", "driver tags per hardware queue (tag set queue_depth)"},
    {"irqmode", "1", "0 = complete inside ->queue_rq, 1 = softirq, 2 = hrtimer after completion_nsec"},
    {"completion_nsec", "10000", "service time with irqmode=2, in ns"},
    {"blocksize", "512", "logical block size in bytes"},
    {"gb", "250", "capacity in 10^9 bytes"},
    {"shared_tags", "0", "1 = share one tag set with the other shared_tags null_blk devices"},
    {"requeue_every", "0", "fault injection: every Nth ->queue_rq answers BLK_STS_RESOURCE"},
};

constexpr Param nvme_params[] = {
    {"nr_io_queues", "0", "queue pairs; 0 = one per CPU"},
    {"queue_depth", "1023", "tags per queue"},
    {"cmd_overhead", "1000", "controller ns per command (IOPS ceiling)"},
    {"read_latency", "80000", "ns of media time per read up to 4 KiB"},
    {"write_latency", "20000", "ns to buffer a write up to 4 KiB"},
    {"per_4k", "2000", "ns of media time per further 4 KiB"},
    {"parallel_units", "64", "flash units working at once"},
    {"link_mbps", "3200", "host transfer rate, MB/s"},
    {"gb", "1920", "capacity in 10^9 bytes"},
    {"blocksize", "512", "logical block size"},
};

constexpr Entry device_table[] = {
    {"null_blk", "drivers/block/null_blk: no media, completes per irqmode; the calibration device",
     null_blk_params},
    {"nvme", "NVMe SSD: per-CPU queues, controller / parallel flash / link timelines, interrupts on the queue's CPU",
     nvme_params},
};

constexpr Param async_params[] = {
    {"iodepth", "1", "io_us in flight"},
    {"iodepth_batch_submit", "1", "io_us per submit call"},
    {"iodepth_batch_complete_min", "1", "completions to wait for when the queue is full"},
    {"iodepth_batch_complete_max", "= iodepth_batch_complete_min", "completions reaped per call"},
};

constexpr Entry engine_table[] = {
    {"psync", "pread/pwrite: one I/O in flight, the thread sleeps until it completes (aliases sync, pvsync)", {}},
    {"libaio", "Linux native AIO: io_submit / io_getevents with a user-space completion ring", async_params},
    {"io_uring", "io_uring: SQ/CQ rings, io_uring_enter to submit and to wait", async_params},
};

constexpr Param none_params[] = {
    {"nr_requests", "hw_queue_depth", "request slots (no elevator: the driver tag depth)"},
    {"max_sectors_kb", "1280", "largest request, KiB"},
    {"nomerges", "0", "0 all merges, 1 one-hit cache only, 2 none"},
    {"rq_affinity", "1", "1 complete in the submitter's LLC group, 2 force the submitting CPU"},
};

constexpr Param mq_deadline_params[] = {
    {"nr_requests", "2*min(depth,128)", "scheduler tags per hctx"},
    {"iosched/*", "see below", "the tunables, set in queues[].iosched by sysfs name"},
};

constexpr Entry scheduler_table[] = {
    {"none", "no elevator: direct issue to the driver when the hctx is idle, else the software queues",
     none_params},
    {"mq-deadline", "block/mq-deadline.c: per-priority sector-sorted and FIFO lists, batches, expiry, one lock",
     mq_deadline_params},
};

}  // namespace

std::span<const Entry> device_models() { return device_table; }
std::span<const Entry> io_engines() { return engine_table; }
std::span<const Entry> schedulers() { return scheduler_table; }

}  // namespace blksim::registry
