// Builds one simulated machine from its typed configuration — CPUs, devices, request
// queues, job threads — runs it to the end and checks the run's invariants.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "models/blkmq/request_queue.h"
#include "models/cpu/cpu.h"
#include "models/device/device.h"
#include "models/result/run_result.h"
#include "models/topology/machine_config.h"
#include "models/topology/run_progress.h"
#include "models/topology/run_sampler.h"
#include "models/workload/job_thread.h"
#include "sim/event_queue.h"

namespace blksim::topology {

class Topology;

// run() stopped because MachineConfig::stop was set: the run is incomplete, not wrong.
class Interrupted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Machine {
public:
    // The config must outlive the machine (threads keep references to their JobConfig).
    explicit Machine(const MachineConfig& cfg);
    Machine(const Machine&) = delete;
    Machine& operator=(const Machine&) = delete;
    ~Machine();

    // Run every job to its end. Throws std::logic_error naming the rule when an invariant
    // is violated (an I/O completed twice or never, a tag leaked, the run stalled), and
    // Interrupted when MachineConfig::stop was set.
    result::RunResult run();

    // The fio log files the run will write, in the order of the result's logs: known once
    // the machine is built, so that they can be opened before it runs.
    std::vector<result::FioLogFile> log_files() const;

    // blktrace: every request queue emits into `sink`, queue i as device i.
    void set_trace(blkmq::TraceSink* sink) {
        for (std::size_t i = 0; i < queues_.size(); ++i)
            queues_[i]->set_trace(sink, static_cast<uint32_t>(i));
    }

    // --explain: every request queue's decisions (its core's, elevator's and device's) go to
    // `sink` as blktrace messages, queue i as device i.
    void set_explain(blkmq::TraceSink* sink) {
        for (std::size_t i = 0; i < queues_.size(); ++i)
            queues_[i]->set_explain(sink, static_cast<uint32_t>(i));
    }

    // --timeseries: `s` watches the run from the start of run() to its end, every
    // s->interval() (report::TimeSeriesWriter samples every request queue and its device).
    // Off unless called; call before run().
    void set_sampler(std::unique_ptr<RunSampler> s) { series_ = std::move(s); }
    // A progress line: `p` is told every p->interval() of simulated time and destroyed with
    // the machine (so it can clear its line before an error is printed). Call before run().
    void set_progress(std::unique_ptr<RunProgress> p) { progress_ = std::move(p); }
    const std::vector<std::unique_ptr<workload::JobThread>>& threads() const { return threads_; }

    // Events of the model (the time series' own are not counted).
    uint64_t events_processed() const { return eq_.events_processed() - samples_; }
    uint64_t ios_completed() const;
    const std::vector<std::unique_ptr<blkmq::RequestQueue>>& queues() const { return queues_; }
    const std::vector<std::unique_ptr<cpu::Cpu>>& cpus() const { return cpus_; }

private:
    // The constructor's steps, in dependency order.
    void make_tag_sets(const Topology& topo);
    void make_queues(const Topology& topo);
    void index_audit_spaces();
    void make_threads();
    // The CPU of a job thread's io_uring SQ thread (sqthread_poll): sqthread_poll_cpu, else the
    // least loaded CPU (`load`: threads placed on each so far).
    static uint32_t sq_thread_cpu(const workload::JobConfig& j, std::vector<uint32_t>& load);
    void check_invariants() const;
    void check_io_accounted() const;
    void check_queues_idle() const;
    sim::Time run_end() const;
    // The periodic invariant audit (MachineConfig::audit_interval): counters that must
    // balance at any instant between events. "" when they do, else the rule broken.
    std::string audit_now() const;
    void audit();
    // The events up to the run's end, and the checks at the end (run()'s loop).
    void run_waves();
    // Every queue that holds a request, as debugfs shows it: appended to the message of a
    // stall or an invariant violation.
    std::string debugfs_dump() const;
    // The time series' sampling event. It only observes, so it must not keep a run alive
    // that has nothing else left to happen (model_pending()).
    void sample(uint64_t);
    void arm_sample();
    bool model_pending() const { return eq_.pending() > static_cast<std::size_t>(sample_armed_); }

    const MachineConfig& cfg_;
    sim::EventQueue eq_;
    std::vector<std::unique_ptr<cpu::Cpu>> cpus_;
    std::vector<std::unique_ptr<dev::Device>> devices_;
    std::vector<std::unique_ptr<blkmq::TagSet>> tag_sets_;
    std::vector<blkmq::TagSet*> device_tag_set_;  // per device
    std::vector<std::unique_ptr<blkmq::RequestQueue>> queues_;
    std::vector<std::unique_ptr<workload::JobThread>> threads_;
    std::unique_ptr<RunProgress> progress_;
    result::RunResult result_;
    std::unique_ptr<RunSampler> series_;  // nullptr: no --timeseries
    uint32_t live_threads_ = 0;
    // The audit's tag spaces (each driver tag space once) and which hctxs draw on which.
    std::vector<const blkmq::BlkMqTags*> audit_spaces_;
    std::vector<std::pair<std::size_t, const blkmq::HwQueue*>> audit_hctxs_;
    mutable std::vector<uint64_t> audit_sums_;
    uint64_t progress_done_ = 0;  // I/Os completed at the last audit that saw progress
    sim::Time progress_at_;
    bool progress_idle_ = true;    // the last audit found no I/O in the kernel
    uint64_t samples_ = 0;
    bool sample_armed_ = false;
    // fio's stonewall: thread i starts in wave wave_[i], once every thread of the waves
    // before it has exited.
    std::vector<uint32_t> wave_;
    // Thread i's queue, as its index in queues_ (make_threads()): the end of the run groups
    // the threads by queue with it, in one pass over each.
    std::vector<std::size_t> thread_queue_;
};

}  // namespace blksim::topology
