#include "models/topology/machine.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "models/device/build_cache.h"
#include "models/device/device.h"
#include "models/result/report_check.h"
#include "models/sched/scheduler_kinds.h"
#include "models/topology/topology.h"
#include "models/workload/exit_all.h"

namespace blksim::topology {

static constexpr sim::Duration kProgressWindow = sim::Duration::ns(120'000'000'000);

Machine::Machine(const MachineConfig& cfg) : cfg_(cfg) {
    // Links are checked before anything is built (Topology::Error is an invalid_argument).
    const Topology topo(cfg);
    for (uint32_t c = 0; c < cfg.host.nr_cpus; ++c) {
        cpus_.push_back(std::make_unique<cpu::Cpu>(eq_, c));
        cpus_.back()->set_sd_llc(cfg.host.shared_llc);
        cpus_.back()->set_context_switch(cfg.host.costs.context_switch);
        if (cfg.host.run_to_parity)
            cpus_.back()->set_eevdf(cpu::sched_base_slice(cfg.host.nr_cpus), cpu::OsJitterParams{}.tick_period);
        if (cfg.host.os_jitter || !cfg.host.vcpu_preemption.empty())
            cpus_.back()->enable_jitter(cfg.seed, cfg.host.os_jitter, cfg.host.vcpu_preemption);
    }
    dev::BuildCache built;
    for (const auto& d : cfg.devices) {
        devices_.push_back(d.kind().make(d.model, eq_, cfg.host.nr_cpus, built));
        devices_.back()->seed(cfg.seed, d.name);
    }
    make_tag_sets(topo);
    make_queues(topo);
    index_audit_spaces();
    make_threads();
}

// The driver's tag sets: one per device, except null_blk devices loaded with
// shared_tags=1, which all use the module's one set (it takes the first one's geometry),
// and SCSI disks behind an HBA, which all use the host's (shost->tag_set, can_queue
// tags per hctx); such a disk's own queue depth becomes its dispatch budget.
void Machine::make_tag_sets(const Topology& topo) {
    blkmq::TagSet* null_blk_shared = nullptr;
    std::vector<blkmq::TagSet*> hba_tag_set(cfg_.controllers.size(), nullptr);
    for (std::size_t di = 0; di < cfg_.devices.size(); ++di) {
        const auto& d = cfg_.devices[di];
        dev::Device& dv = *devices_[di];
        if (const auto hba = topo.host_adapter(di)) {
            blkmq::TagSet*& ts = hba_tag_set[*hba];
            if (ts == nullptr) {
                const dev::ControllerConfig& c = cfg_.controllers[*hba];
                tag_sets_.push_back(std::make_unique<blkmq::TagSet>(
                    std::max(1u, std::min(c.nr_hw_queues, cfg_.host.nr_cpus)), c.can_queue, cfg_.tag_fairness,
                    c.reserved_tags, c.host_tagset));
                ts = tag_sets_.back().get();
            }
            device_tag_set_.push_back(ts);
            continue;
        }
        const uint32_t nr_hw = std::max(1u, std::min(dv.nr_hw_queues(), cfg_.host.nr_cpus));
        const bool shared = null_blk_shared_tags(d);
        if (shared && null_blk_shared) {
            if (null_blk_shared->nr_hw_queues() != nr_hw || null_blk_shared->queue_depth() != dv.queue_depth() ||
                null_blk_shared->hctx_shared() != dv.host_tagset())
                throw std::invalid_argument(fmt::format(
                    "device '{}': null_blk devices with shared_tags=1 share one tag set and must have "
                    "the same submit_queues, hw_queue_depth and shared_tag_bitmap", d.name));
            device_tag_set_.push_back(null_blk_shared);
            continue;
        }
        tag_sets_.push_back(
            std::make_unique<blkmq::TagSet>(nr_hw, dv.queue_depth(), cfg_.tag_fairness, 0, dv.host_tagset()));
        device_tag_set_.push_back(tag_sets_.back().get());
        if (shared)
            null_blk_shared = tag_sets_.back().get();
    }
}

// One request queue per queue entry, on its device's tag set.
void Machine::make_queues(const Topology& topo) {
    for (const auto& qc : cfg_.queues) {
        std::size_t di = 0;
        while (di < cfg_.devices.size() && cfg_.devices[di].name != qc.device)
            ++di;
        if (di == cfg_.devices.size())
            throw std::invalid_argument(fmt::format("queue names unknown device '{}'", qc.device));
        const uint32_t budget = topo.host_adapter(di) ? devices_[di]->queue_depth() : 0;
        const sched::SchedulerKind* elevator = sched::find_scheduler_kind(qc.scheduler);
        if (elevator == nullptr)
            throw std::invalid_argument(fmt::format("queue {}: unknown scheduler '{}'", qc.device, qc.scheduler));
        queues_.push_back(std::make_unique<blkmq::RequestQueue>(
            qc.device, eq_, qc, *elevator, *devices_[di], *device_tag_set_[di], cpus_, cfg_.host.costs, budget));
        devices_[di]->attach(queues_.back().get());
    }
}

// The tag spaces the periodic audit sums over, each once (a shared tag set is one space),
// and each hctx with the index of its space.
void Machine::index_audit_spaces() {
    for (const auto& q : queues_) {
        for (uint32_t h = 0; h < q->nr_hw_queues(); ++h) {
            const blkmq::HwQueue& hctx = q->hctx(h);
            const auto it = std::find(audit_spaces_.begin(), audit_spaces_.end(), &hctx.tags);
            audit_hctxs_.emplace_back(static_cast<std::size_t>(it - audit_spaces_.begin()), &hctx);
            if (it == audit_spaces_.end())
                audit_spaces_.push_back(&hctx.tags);
        }
    }
    audit_sums_.resize(audit_spaces_.size());
}

// An SQ thread without sqthread_poll_cpu may run on any online CPU (6.1's io_sq_thread() sets
// cpu_online_mask, whatever the job's cpus_allowed): the scheduler's fork and load balancing
// (find_idlest_cpu()) put it on the least loaded CPU, the lowest numbered of equals. It is not
// migrated later (docs/fio.md "sqthread_poll").
uint32_t Machine::sq_thread_cpu(const workload::JobConfig& j, std::vector<uint32_t>& load) {
    uint32_t best = 0;
    if (j.sqthread_poll_cpu) {
        best = *j.sqthread_poll_cpu;
        if (best >= load.size())
            throw std::invalid_argument(fmt::format("job '{}': sqthread_poll_cpu {} does not exist (the host has {} CPUs)",
                                                    j.name, best, load.size()));
    } else {
        for (uint32_t c = 1; c < load.size(); ++c)
            if (load[c] < load[best])
                best = c;
    }
    ++load[best];
    return best;
}

// One thread per numjobs clone; fio numbers them in order. Without cpus_allowed the
// kernel scheduler spreads threads over the CPUs (thread k on CPU k mod nr_cpus).
void Machine::make_threads() {
    uint32_t k = 0;
    uint32_t wave = 0;
    std::size_t total = 0;
    std::vector<uint32_t> thread_cpu, load(cfg_.host.nr_cpus, 0);
    for (const auto& j : cfg_.jobs)
        for (uint32_t clone = 0; clone < j.numjobs; ++clone, ++total) {
            thread_cpu.push_back(j.cpus_allowed.empty() ? static_cast<uint32_t>(total % cfg_.host.nr_cpus)
                                                        : j.cpus_allowed[(j.cpus_split ? total : clone) % j.cpus_allowed.size()]);
            ++load[thread_cpu.back()];
        }
    result_.jobs.resize(total);
    std::unordered_map<std::string, std::size_t> queue_by_device;  // its index in queues_
    for (std::size_t i = 0; i < queues_.size(); ++i)
        queue_by_device[queues_[i]->name()] = i;
    for (const auto& j : cfg_.jobs) {
        const auto found = queue_by_device.find(j.device);
        if (found == queue_by_device.end())
            throw std::invalid_argument(fmt::format("job '{}' names unknown device '{}'", j.name, j.device));
        blkmq::RequestQueue* q = queues_[found->second].get();
        if (j.stonewall && k > 0)
            ++wave;  // wait for every earlier job (fio ignores a stonewall on the first)
        for (uint32_t clone = 0; clone < j.numjobs; ++clone, ++k) {
            wave_.push_back(wave);
            thread_queue_.push_back(found->second);
            const uint32_t cpu = thread_cpu[k];
            cpu::Cpu* sq_cpu = j.sqthread_poll ? cpus_[sq_thread_cpu(j, load)].get() : nullptr;
            result::JobResult& r = result_.jobs[k];
            r.pid = 1000 + k;
            threads_.push_back(std::make_unique<workload::JobThread>(
                eq_, j, clone, cfg_.seed, *cpus_[cpu], *q, cfg_.host, r, cfg_.bw_avg_time, sq_cpu));
            threads_.back()->enable_logs(k + 1);  // fio numbers its jobs from 1
        }
    }
    workload::install_exit_all(threads_);
}

Machine::~Machine() = default;

uint64_t Machine::ios_completed() const {
    uint64_t n = 0;
    for (const auto& t : threads_)
        n += t->completed();
    return n;
}

result::RunResult Machine::run() {
    if (series_)
        series_->start(eq_.now());
    sim::Time end;
    try {
        run_waves();
        end = run_end();
        if (series_)
            series_->finish(end);
        check_invariants();
    } catch (const std::invalid_argument&) {
        throw;
    } catch (const std::logic_error& e) {
        // A stall or a broken invariant: with the queues' state, or a hang would say only
        // that it hung.
        throw std::logic_error(std::string(e.what()) + "\n" + debugfs_dump());
    }

    result_.sim_time = end - sim::Time::zero();
    // fio tracks no disk for a job of a diskless engine (the null engine): a queue that only
    // such jobs name is left out of the report, as fio leaves out "disk_util".
    std::vector<uint8_t> named(queues_.size()), disk(queues_.size());
    for (std::size_t i = 0; i < threads_.size(); ++i) {
        named[thread_queue_[i]] = 1;
        disk[thread_queue_[i]] |= !threads_[i]->diskless();
    }
    for (std::size_t k = 0; k < queues_.size(); ++k)
        if (!named[k] || disk[k])
            queues_[k]->report(end, result_.disks.emplace_back(), result_.queues.emplace_back());
    for (const auto& c : cpus_)
        result_.cpus.push_back(c->report());
    // What the device models add (Device::report): the HDD's seek/rotation split, cache hits.
    for (std::size_t di = 0; di < devices_.size(); ++di) {
        result::DeviceReport dr;
        dr.name = cfg_.devices[di].name;
        devices_[di]->report(dr);
        if (!dr.empty())
            result_.devices.push_back(std::move(dr));
    }
    // What a scheduler adds (ElevatorReport, bfq's expirations and idling), after the devices.
    for (const auto& q : queues_) {
        if (const sched::ElevatorReport* e = q->elevator_report()) {
            result::DeviceReport dr;
            dr.name = q->name();
            e->report(dr);
            if (!dr.empty())
                result_.devices.push_back(std::move(dr));
        }
    }
    if (const std::string why = result::impossible_in(result_); !why.empty())
        throw std::logic_error("invariant violated: the report would show " + why);
    // Moved out, not copied: the histograms and fio's log files (which may hold a sample per
    // I/O) are the bulk of it, and run() is called once.
    result::RunResult out = std::move(result_);
    for (const auto& t : threads_)
        t->take_logs(out.logs);
    return out;
}

void Machine::run_waves() {
    const uint32_t nr_waves = wave_.empty() ? 0 : wave_.back() + 1;
    for (uint32_t w = 0; w < nr_waves; ++w) {
        // A wave starts when the previous one has ended (fio's stonewall).
        for (std::size_t i = 0; i < threads_.size(); ++i) {
            if (wave_[i] == w) {
                ++live_threads_;
                threads_[i]->start(eq_.now(), &live_threads_);
            }
        }
        if (series_ && !sample_armed_)
            arm_sample();  // it stops when nothing but itself is pending (between waves)
        // The audit runs between events, at the first one at or after each period (no
        // event of its own: a far-future entry would cost every heap pop a level).
        const sim::Duration period =
            cfg_.audit_interval.count() > 0 ? cfg_.audit_interval : sim::Duration::ns(1'000'000'000);
        sim::Time next_audit = eq_.now() + period;
        // The progress line's ticks share the audit's test: one comparison per event either way.
        sim::Time next_progress = progress_ ? eq_.now() + progress_->interval() : sim::Time::never();
        sim::Time next_check = sim::min(next_audit, next_progress);
        while (live_threads_ > 0) {
            if (!eq_.run_one())
                throw std::logic_error(fmt::format(
                    "invariant violated: the run stalled at {} ns with {} job thread(s) still "
                    "waiting and nothing left to happen", eq_.now().ns(), live_threads_));
            if (eq_.now() >= next_check) {
                if (eq_.now() >= next_audit) {
                    if (cfg_.stop && cfg_.stop->load(std::memory_order_relaxed))
                        throw Interrupted(fmt::format("interrupted at {:.3f} s simulated", eq_.now().seconds()));
                    audit();
                    next_audit = eq_.now() + period;
                }
                if (eq_.now() >= next_progress) {
                    progress_->tick(*this, eq_.now());
                    next_progress = eq_.now() + progress_->interval();
                }
                next_check = sim::min(next_audit, next_progress);
            }
        }
    }
}

std::string Machine::debugfs_dump() const {
    std::string out = fmt::format("queue state at {} ns (as /sys/kernel/debug/block/<dev>/ shows it):", eq_.now().ns());
    std::size_t quiet = 0;
    for (const auto& q : queues_) {
        if (q->allocated() == q->freed()) {
            ++quiet;
            continue;
        }
        const std::string s = q->debugfs_show(eq_.now());
        std::size_t from = 0;
        while (from < s.size()) {
            const std::size_t eol = s.find('\n', from);
            const std::size_t end = eol == std::string::npos ? s.size() : eol;
            out += "\n  ";
            out.append(s, from, end - from);
            from = end + 1;
        }
    }
    if (quiet)
        out += fmt::format("\n  ({} queue(s) holding no request)", quiet);
    return out;
}

// The run ends with its last event or with the last work a core was booked for, whichever
// is later: the last job's final step may still be running when the event that ended it fires.
sim::Time Machine::run_end() const {
    sim::Time end = eq_.now();
    for (const auto& c : cpus_)
        end = sim::max(end, c->free_at());
    return end;
}

std::vector<result::FioLogFile> Machine::log_files() const {
    // The threads are the jobs' clones in job order, as the constructor made them.
    std::vector<result::FioLogFile> out;
    std::size_t k = 0;
    for (std::size_t j = 0; j < cfg_.jobs.size(); ++j)
        for (uint32_t clone = 0; clone < cfg_.jobs[j].numjobs; ++clone, ++k)
            threads_[k]->log_files(j, out);
    return out;
}

// The audit also watches for progress, so it runs even with the counter audit off (then
// once a simulated second): a run must never go on for ever.
void Machine::audit() {
    if (cfg_.audit_interval.count() == 0) {
        // counters only at the end of the run
    } else if (std::string why = audit_now(); !why.empty())
        throw std::logic_error(fmt::format("invariant violated at {} ns: {}", eq_.now().ns(), why));
    if (live_threads_ == 0)
        return;
    // Progress: with I/O in the kernel, something must complete now and then. A driver
    // that refuses a command for ever (or a model that lost one behind a rerun loop) would
    // otherwise be simulated for ever. The window is four times the kernel's default request
    // timeout (30 s), far beyond any modelled service time.
    uint64_t done = 0, in_kernel = 0;
    for (const auto& t : threads_) {
        done += t->completed();
        in_kernel += t->in_kernel();
    }
    // The window opens at the first audit that finds I/O in the kernel after one that found
    // none: audits run only at events, and a job that sleeps on purpose (a replay's recorded
    // gap, a think time) leaves none for a long while, so the one before may be far back.
    if (done != progress_done_ || in_kernel == 0 || progress_idle_) {
        progress_done_ = done;
        progress_at_ = eq_.now();
        progress_idle_ = in_kernel == 0;
    } else if (eq_.now() - progress_at_ >= kProgressWindow) {
        throw std::logic_error(fmt::format(
            "invariant violated at {} ns: no I/O completed for {} s of simulated time while {} I/Os are "
            "in the kernel (rule: the run makes progress)", eq_.now().ns(), kProgressWindow.count() / 1'000'000'000,
            in_kernel));
    }
}

void Machine::arm_sample() {
    sample_armed_ = true;
    eq_.at<&Machine::sample>(eq_.now() + series_->interval(), this, 0);
}

void Machine::sample(uint64_t) {
    ++samples_;
    sample_armed_ = false;
    series_->sample(eq_.now());
    // Only while the model has something left to happen: a run where nothing but the
    // observers is pending has stalled, and the audit (or the run loop) must see it.
    if (model_pending())
        arm_sample();
}

std::string Machine::audit_now() const {
    for (const auto& q : queues_)
        if (std::string why = q->audit(); !why.empty())
            return fmt::format("queue {}: {}", q->name(), why);
    // A tag space may be shared by the hctxs of several queues (shared tag sets, host
    // tags): what it has handed out is what those hctxs hold (groups built once, no
    // allocation here: the audit runs every audit_interval).
    std::fill(audit_sums_.begin(), audit_sums_.end(), 0);
    for (const auto& [space, hctx] : audit_hctxs_)
        audit_sums_[space] += hctx->nr_active;
    for (std::size_t i = 0; i < audit_spaces_.size(); ++i)
        if (audit_spaces_[i]->in_use() != audit_sums_[i])
            return fmt::format("a driver tag space of depth {} has {} tags in use, its hctxs hold {} "
                               "(rule: every tag handed out is held by a request)", audit_spaces_[i]->depth(),
                               audit_spaces_[i]->in_use(), audit_sums_[i]);
    for (std::size_t i = 0; i < threads_.size(); ++i)
        if (threads_[i]->completed() > threads_[i]->submitted())
            return fmt::format("job thread {} ('{}') completed {} I/Os but submitted {}", i,
                               result_.jobs[i].name, threads_[i]->completed(), threads_[i]->submitted());
    return {};
}

void Machine::check_invariants() const {
    if (std::string why = audit_now(); !why.empty())
        throw std::logic_error(fmt::format("invariant violated at the end of the run: {}", why));
    check_io_accounted();
    check_queues_idle();
}

// Every device idle, every job thread done with all it submitted, and each byte counted once
// from the job to the report and to its queue's requests.
void Machine::check_io_accounted() const {
    for (std::size_t d = 0; d < devices_.size(); ++d)
        if (const std::string why = devices_[d]->check_idle(); !why.empty())
            throw std::logic_error(fmt::format("invariant violated: device {}: {}", cfg_.devices[d].name, why));
    for (std::size_t i = 0; i < threads_.size(); ++i) {
        const auto& t = *threads_[i];
        if (!t.exited() || t.in_kernel() != 0 || t.submitted() != t.completed())
            throw std::logic_error(fmt::format(
                "invariant violated: job thread {} ('{}') submitted {} I/Os and completed {} "
                "({} still in the kernel)", i, result_.jobs[i].name, t.submitted(), t.completed(),
                t.in_kernel()));
        for (unsigned d = 0; d < 3; ++d)
            if (t.kernel_bytes(d) != result_.jobs[i].dir[d].io_bytes + t.ramp_bytes(d))
                throw std::logic_error(fmt::format(
                    "invariant violated: job thread {} ('{}'): the report says {} bytes {}, the kernel "
                    "completed {} of which {} during ramp_time (rule: per-job bytes match the report)",
                    i, result_.jobs[i].name, result_.jobs[i].dir[d].io_bytes, d == 2 ? "trimmed" : d ? "written" : "read",
                    t.kernel_bytes(d), t.ramp_bytes(d)));
    }
    std::vector<std::array<uint64_t, 2>> bytes(queues_.size());
    for (std::size_t i = 0; i < threads_.size(); ++i)
        if (!threads_[i]->diskless())
            for (unsigned d = 0; d < 2; ++d)
                bytes[thread_queue_[i]][d] += threads_[i]->kernel_bytes(d);
    for (std::size_t k = 0; k < queues_.size(); ++k) {
        const blkmq::RequestQueue& q = *queues_[k];
        for (unsigned d = 0; d < 2; ++d)
            if (bytes[k][d] != q.stats().sectors[d] << 9)
                throw std::logic_error(fmt::format(
                    "invariant violated: queue {}: its jobs completed {} bytes {}, its requests {} "
                    "(rule: every byte a job submits is completed by exactly one request)", q.name(), bytes[k][d],
                    d ? "written" : "read", q.stats().sectors[d] << 9));
    }
}

// Every queue, scheduler and hctx back to empty: no request, tag or pending dispatch left.
void Machine::check_queues_idle() const {
    for (const auto& q : queues_) {
        if (q->in_flight() != 0 || q->allocated() != q->freed())
            throw std::logic_error(fmt::format(
                "invariant violated: queue {}: {} requests allocated, {} freed, {} in flight",
                q->name(), q->allocated(), q->freed(), q->in_flight()));
        if (auto* a = q->elevator_audit(); a && a->queued() != 0)
            throw std::logic_error(fmt::format(
                "invariant violated: queue {}: the {} scheduler still holds {} request(s)",
                q->name(), q->elevator()->name(), a->queued()));
        if (auto* a = q->elevator_audit(); a) {
            if (const std::string why = a->check_idle(); !why.empty())
                throw std::logic_error(fmt::format("invariant violated: queue {}: {}", q->name(), why));
        }
        for (uint32_t h = 0; h < q->nr_hw_queues(); ++h) {
            const auto& hctx = q->hctx(h);
            if (hctx.sched_tags && hctx.sched_tags->in_use() != 0)
                throw std::logic_error(fmt::format(
                    "invariant violated: queue {} hctx {}: {} scheduler tags still in use",
                    q->name(), h, hctx.sched_tags->in_use()));
            if (hctx.tags.in_use() != 0 || hctx.nr_active != 0 || hctx.in_driver != 0 ||
                hctx.has_pending())
                throw std::logic_error(fmt::format(
                    "invariant violated: queue {} hctx {}: {} driver tags still in use, {} held "
                    "by this hctx, {} at the driver, requests pending: {}", q->name(), h,
                    hctx.tags.in_use(), hctx.nr_active, hctx.in_driver, hctx.has_pending()));
        }
    }
}

}  // namespace blksim::topology
