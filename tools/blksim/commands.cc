#include "tools/blksim/commands.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/report/blkparse_writer.h"
#include "models/report/blktrace_writer.h"
#include "models/report/fio_log.h"
#include "models/report/fio_output.h"
#include "models/report/perfetto_writer.h"
#include "models/report/timeseries.h"
#include "models/result/run_result.h"
#include "models/topology/machine.h"
#include "models/topology/topology.h"
#include "tools/blksim/interrupt.h"
#include "tools/blksim/output_file.h"
#include "tools/experiment/mem_limit.h"
#include "tools/experiment/run_progress.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/units.h"

namespace blksim::cli {

namespace {

// Both trace outputs at once: each sink sees every event.
class TeeSink final : public blkmq::TraceSink {
public:
    void add(blkmq::TraceSink* s) {
        if (s)
            sinks_.push_back(s);
    }
    blkmq::TraceSink* sink() {
        if (sinks_.empty())
            return nullptr;
        return sinks_.size() == 1 ? sinks_[0] : this;
    }
    void emit(uint32_t dev, const blkmq::TraceEvent& e) override {
        for (blkmq::TraceSink* s : sinks_)
            s->emit(dev, e);
    }
    void message(uint32_t dev, sim::Time t, uint32_t cpu, std::string_view text) override {
        for (blkmq::TraceSink* s : sinks_)
            s->message(dev, t, cpu, text);
    }

private:
    std::vector<blkmq::TraceSink*> sinks_;
};

// `blksim run --blktrace DIR`: the per-CPU files blktrace would write, DIR/<disk>.blktrace.<cpu>
// for every disk and every CPU of the host (blktrace opens one per online CPU; CPUs without
// events leave theirs empty, and blkparse stops looking at the first missing number).
struct BlktraceFiles {
    std::string dir;
    std::vector<std::string> names;                             // per disk, '/' → '_' as the kernel does
    std::vector<std::vector<std::unique_ptr<OutputFile>>> files;  // [disk][cpu]
    uint32_t nr_cpus = 0;
    bool created_dir = false;  // removed again, if still empty, when the run does not finish

    ~BlktraceFiles() {
        files.clear();  // their temporary files first
        std::error_code ec;
        if (created_dir && std::filesystem::is_empty(dir, ec))
            std::filesystem::remove(dir, ec);
    }

    // Throws OutputError.
    void open(const std::string& d, const std::vector<std::string>& disks, uint32_t cpus) {
        namespace fs = std::filesystem;
        dir = d;
        nr_cpus = cpus;
        std::error_code ec;
        created_dir = fs::create_directories(dir, ec);
        if (ec || !fs::is_directory(dir))
            throw OutputError(fmt::format("--blktrace {}: cannot create the directory ({})", dir,
                                          ec ? ec.message() : "not a directory"));
        for (const std::string& disk : disks) {
            std::string name = disk;
            std::replace(name.begin(), name.end(), '/', '_');
            names.push_back(name);
            auto& per_cpu = files.emplace_back();
            for (uint32_t c = 0; c < nr_cpus; ++c)
                per_cpu.push_back(std::make_unique<OutputFile>(
                    (fs::path(dir) / fmt::format("{}.blktrace.{}", name, c)).string(), "--blktrace"));
        }
    }

    void finish() {
        namespace fs = std::filesystem;
        for (auto& per_cpu : files)
            for (auto& f : per_cpu)
                f->finish();
        created_dir = false;
        // Files of CPUs this host does not have, left by an earlier run, would be read by
        // blkparse (it takes <disk>.blktrace.N for N = 0, 1, ... until one is missing).
        std::error_code ec;
        for (const std::string& name : names)
            for (uint32_t c = nr_cpus;; ++c) {
                const fs::path stale = fs::path(dir) / fmt::format("{}.blktrace.{}", name, c);
                if (!fs::exists(stale, ec) || !fs::remove(stale, ec))
                    break;
            }
    }
};

// --perfetto: the bounds checked and the file opened before the run, the writer attached to
// the machine, the file written once the run has succeeded.
struct PerfettoOutput {
    OutputFile file;
    std::optional<report::PerfettoWriter::Options> bounds;
    std::unique_ptr<report::PerfettoWriter> writer;

    // False after printing why (bad bounds, bounds without a file). Throws OutputError.
    bool open(const PerfettoOptions& o) {
        if (o.file.empty() && o.window.empty() && o.sample.empty())
            return true;
        if (!(bounds = perfetto_bounds(o)))
            return false;
        if (o.file.empty()) {
            fmt::print(stderr, "blksim: --perfetto-window and --perfetto-sample bound a --perfetto FILE: give one\n");
            return false;
        }
        file.open(o.file, "--perfetto");
        return true;
    }
    void attach(topology::Machine& m, TeeSink& sinks) {
        if (!bounds)
            return;
        writer = std::make_unique<report::PerfettoWriter>(*bounds, m.queues(), static_cast<uint32_t>(m.cpus().size()));
        sinks.add(writer.get());
        report::attach_perfetto(m, *writer);
    }
    void finish(const std::string& scenario, const std::string& path, bool quiet) {
        if (!writer)
            return;
        writer->write(file.stream(), perfetto_meta(scenario));
        file.finish();
        print_perfetto_summary(*writer, path, quiet);
    }
};

}  // namespace

// Prints the loader's warnings when it goes out of scope, whether loading succeeded or not.
struct WarningPrinter {
    const std::vector<std::string>& warnings;
    ~WarningPrinter() {
        for (const std::string& w : warnings)
            fmt::print(stderr, "blksim: warning: {}\n", w);
    }
};

static scenario::Scenario load(const std::string& path, std::vector<std::string> sets, std::optional<uint64_t> seed,
                               const std::string& scheduler = {}) {
    if (seed)
        sets.push_back(fmt::format("seed={}", *seed));
    // A scenario whose jobs come from a fio job file may warn (options it does not support).
    std::vector<std::string> warnings;
    scenario::FioPolicy policy;
    policy.warnings = &warnings;
    const WarningPrinter printer{warnings};
    return scenario::load_scenario(path, sets, policy, scheduler, scenario::default_scenario_dir());
}

// A fio job file given to `blksim run`: named *.fio, or starting with an ini section
// ("[global]") where a scenario starts with '{'.
static bool looks_like_fio_job(const std::string& path) {
    if (std::filesystem::path(path).extension() == ".fio")
        return true;
    // Only a regular file's first 4 KiB: /dev/zero or a FIFO must get the loader's own message.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        return false;
    std::ifstream file(path, std::ios::binary);
    std::string head(4096, '\0');
    file.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(file.gcount()));
    std::istringstream in(head);
    std::string line;
    while (std::getline(in, line)) {
        const auto b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos || line[b] == ';' || line[b] == '#')
            continue;
        const auto e = line.find_last_not_of(" \t\r");
        return line[b] == '[' && line[e] == ']' && e > b + 1;
    }
    return false;
}

static int run_loaded(const scenario::Scenario& s, const RunOptions& o);

int run_machine(const topology::MachineConfig& cfg, const std::string& name, const MachineHook& before,
                const MachineHook& after, result::RunResult& result) {
    try {
        topology::Machine machine(cfg);
        before(machine);
        result = machine.run();
        after(machine);
    } catch (const topology::Interrupted& e) {
        // Nothing is put in place: the outputs' destructors remove their temporary files.
        fmt::print(stderr, "blksim: {}: {} by {}; no output written\n", name, e.what(), interrupt_signal_name());
        return interrupted_exit_status();
    } catch (const std::invalid_argument& e) {
        // A machine that cannot be built from a scenario that decoded: still bad input.
        fmt::print(stderr, "blksim: {}: {}\n", name, e.what());
        return 2;
    } catch (const std::logic_error& e) {
        fmt::print(stderr, "blksim: {}: {}\n", name, e.what());
        return 1;
    }
    return 0;
}

// The formats to print: the command line's --output-format if given, else the scenario's
// (both checked when read).
static report::OutputFormats output_formats(const scenario::OutputConfig& out, const std::string& cli) {
    return report::parse_output_formats(cli.empty() ? out.formats : cli).value_or(report::OutputFormats{});
}

bool load_or_say_why(const std::string& path, const std::vector<std::string>& sets, std::optional<uint64_t> seed,
                     scenario::Scenario& out, const std::string& scheduler) {
    try {
        out = load(path, sets, seed, scheduler);
        return true;
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return false;
    }
}

void add_kernel_tree_set(const std::string& kernel_tree, std::vector<std::string>& sets) {
    if (!kernel_tree.empty())
        sets.push_back("kernel.tree=" + std::filesystem::absolute(kernel_tree).lexically_normal().string());
}

int cmd_run(const RunOptions& o) {
    scenario::Scenario s;
    std::vector<std::string> sets = o.sets;
    add_kernel_tree_set(o.kernel_tree, sets);
    if (looks_like_fio_job(o.scenario)) {
        fmt::print(stderr, "blksim: run: {} is a fio job file, and run takes a scenario: run it with blksim fio "
                           "--device DEVICE -- {} (DEVICE: a device profile, nvme, nullb or a scenario file)\n",
                   o.scenario, o.scenario);
        return 2;
    }
    if (!load_or_say_why(o.scenario, sets, o.seed, s, o.scheduler))
        return 2;
    return run_loaded(s, o);
}

FioLogFiles::FioLogFiles() = default;
FioLogFiles::~FioLogFiles() = default;

// fio's log files, relative to the current directory as fio writes them; opened once the
// machine is built (it names them), before it runs. Throws OutputError.
void FioLogFiles::open(const std::vector<result::FioLogFile>& logs, const std::string& dir) {
    namespace fs = std::filesystem;
    for (const result::FioLogFile& l : logs)
        files.push_back(std::make_unique<OutputFile>(dir.empty() ? l.path : (fs::path(dir) / l.path).string(),
                                                     fmt::format("jobs.{}.{}", l.job, l.option)));
}

void FioLogFiles::write(const std::vector<result::FioLog>& logs) {
    for (std::size_t i = 0; i < logs.size() && i < files.size(); ++i) {
        report::write_fio_log(logs[i], files[i]->stream());
        files[i]->finish();
    }
}

// --blktrace: per-CPU binary files of every queue's disk in `dir`, opened into `files`.
static std::unique_ptr<report::BlktraceWriter> open_blktrace(const scenario::Scenario& s, const std::string& dir,
                                                             BlktraceFiles& files) {
    std::vector<std::string> disks;
    for (const auto& q : s.machine.queues)
        disks.push_back(q.device);
    files.open(dir, disks, s.machine.host.nr_cpus);
    std::vector<std::vector<std::ostream*>> outs;
    for (const auto& per_cpu : files.files) {
        auto& v = outs.emplace_back();
        for (const auto& f : per_cpu)
            v.push_back(&f->stream());
    }
    std::vector<report::TraceDevice> devs = report::sim_trace_devices(disks);
    for (std::size_t i = 0; i < devs.size(); ++i)
        devs[i].name = files.names[i];
    return std::make_unique<report::BlktraceWriter>(std::move(devs), std::move(outs));
}

// --trace: a blkparse-style text trace of every queue's disk into `file`, opened at `path`.
static std::unique_ptr<report::BlkparseWriter> open_text_trace(const scenario::Scenario& s, const std::string& path,
                                                               OutputFile& file) {
    file.open(path, "--trace");
    std::vector<std::string> names;
    for (const auto& q : s.machine.queues)
        names.push_back(q.device);
    return std::make_unique<report::BlkparseWriter>(file.stream(), report::sim_trace_devices(names));
}

// A broken invariant (status 1) is a model bug: the text trace up to it is what one debugs
// it with, so it is kept, its last line saying that it stops short.
static void keep_incomplete_trace(report::BlkparseWriter& trace, OutputFile& file) {
    trace.flush();
    file.write("# blksim: the run stopped at a broken invariant (see stderr): this trace is incomplete\n");
    file.finish();
}

// What the blktrace files hold (unless --quiet), and whether they hold events out of order.
static void print_blktrace_summary(const RunOptions& o, const report::BlktraceWriter* blktrace, uint32_t nr_cpus) {
    if (!o.quiet)
        fmt::print(stderr, "blksim: blktrace: {} events in {}/<disk>.blktrace.<0..{}> (blkparse -i <disk> -D {})\n",
                   blktrace->events(), o.blktrace_dir, nr_cpus - 1, o.blktrace_dir);
    if (blktrace->late_events() > 0)
        fmt::print(stderr, "blksim: blktrace: warning: {} events were written after a later event of their CPU\n",
                   blktrace->late_events());
}

// A job that ended with an error (rate_min not met, a trim the disk refused): fio's lines on stderr and fio's
// exit status 1, after the full report, as fio does.
static int job_errors(const result::RunResult& result) {
    int status = 0;
    for (const result::JobResult& j : result.jobs) {
        if (j.error == 0)
            continue;
        if (!j.error_msg.empty())
            fmt::print(stderr, "{}\n", j.error_msg);
        fmt::print(stderr, "fio: pid={}, err={}/{}\n", j.pid, j.error, j.verror);
        status = 1;
    }
    return status;
}

// The run summary on stderr: how fast the simulation went.
static void print_speed(const result::RunResult& result, double wall, uint64_t events, uint64_t ios) {
    fmt::print(stderr,
               "blksim: simulated {:.3f} s in {:.3f} s wall: {} events, {} I/Os, "
               "{:.2f} M simulated I/Os per wall-second\n",
               result.sim_time.seconds(), wall, events, ios, wall > 0 ? static_cast<double>(ios) / wall / 1e6 : 0.0);
}

// --mem-limit: false (after one message) when the option is bad or the machine would need more.
static bool within_mem_limit(const scenario::Scenario& s, const RunOptions& o) {
    const std::optional<uint64_t> mem_limit = mem_limit_bytes(o.mem_limit);
    if (!mem_limit)
        return false;
    if (const std::string why = experiment::over_mem_limit(s.machine, 1, *mem_limit); !why.empty()) {
        fmt::print(stderr, "blksim: {}: {}\n", o.scenario, why);
        return false;
    }
    return true;
}

// Runs a loaded scenario and prints fio's report; o.scenario names it in messages. Every
// output is opened before the run and put in place only when the run succeeded.
static int run_outputs(const scenario::Scenario& s, const RunOptions& o) {
    // --output-format (main.cc checked it) overrides the scenario's / fio's.
    const report::OutputFormats formats = output_formats(s.output, o.output_format);
    if (!within_mem_limit(s, o))
        return 2;

    // The trace goes out as the run goes: nothing is kept in memory.
    OutputFile trace_file;
    std::unique_ptr<report::BlkparseWriter> trace;
    if (!o.trace_file.empty())
        trace = open_text_trace(s, o.trace_file, trace_file);
    BlktraceFiles bt_files;
    std::unique_ptr<report::BlktraceWriter> blktrace;
    if (!o.blktrace_dir.empty())
        blktrace = open_blktrace(s, o.blktrace_dir, bt_files);
    PerfettoOutput perfetto;
    if (!perfetto.open(o.perfetto))
        return 2;
    TeeSink sinks;
    sinks.add(trace.get());
    sinks.add(blktrace.get());
    OutputFile series_file;
    std::optional<int64_t> series_ns;
    if (!o.timeseries_file.empty()) {
        if (!(series_ns = timeseries_interval_ns(o.timeseries_interval)))
            return 2;
        series_file.open(o.timeseries_file, "--timeseries");
    }

    topology::MachineConfig cfg = s.machine;
    cfg.stop = &interrupted();
    const auto wall0 = std::chrono::steady_clock::now();
    result::RunResult result;
    uint64_t events = 0, ios = 0;
    FioLogFiles logs;
    const bool progress = experiment::progress_line_wanted(o.quiet, o.trace_file, o.timeseries_file);
    const auto before = [&](topology::Machine& machine) {
        if (progress)
            machine.set_progress(experiment::make_progress_line());
        logs.open(machine.log_files());
        perfetto.attach(machine, sinks);
        machine.set_trace(sinks.sink());
        if (o.explain)
            machine.set_explain(sinks.sink());
        if (series_ns)
            report::attach_timeseries(machine, series_file.stream(), sim::Duration::ns(*series_ns));
    };
    const auto after = [&](topology::Machine& machine) {
        if (trace)
            trace->flush();
        if (blktrace)
            blktrace->flush();
        events = machine.events_processed();
        ios = machine.ios_completed();
    };
    if (const int rc = run_machine(cfg, o.scenario, before, after, result); rc != 0) {
        // Every output of the run is dropped but the text trace up to a broken invariant.
        if (rc == 1 && trace)
            keep_incomplete_trace(*trace, trace_file);
        return rc;
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    const std::string out = report::format_report(result, formats, s.output.group_reporting);
    write_output("-", "", out);
    logs.write(result.logs);
    if (series_ns)
        series_file.finish();
    trace_file.finish();
    if (!o.quiet)
        print_speed(result, wall, events, ios);
    perfetto.finish(o.scenario, o.perfetto.file, o.quiet);
    if (blktrace) {
        bt_files.finish();
        print_blktrace_summary(o, blktrace.get(), s.machine.host.nr_cpus);
    }
    return job_errors(result);
}

static int run_loaded(const scenario::Scenario& s, const RunOptions& o) {
    if (o.explain && o.trace_file.empty() && o.blktrace_dir.empty()) {
        fmt::print(stderr, "blksim: --explain: the decisions go into a trace: give --trace FILE or --blktrace DIR too\n");
        return 2;
    }
    catch_interrupts();
    try {
        return run_outputs(s, o);
    } catch (const OutputError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return 2;
    }
}

int cmd_fio(const FioOptions& o) {
    if (o.fio_args.empty()) {
        fmt::print(stderr, "blksim: fio: nothing to run: give fio's options or a job file after '--', e.g. "
                           "blksim fio --device nvme -- --name=r --rw=randread --runtime=1s --time_based\n");
        return 2;
    }
    scenario::FioCommand cmd;
    cmd.device = o.device;
    cmd.scheduler = o.scheduler;
    cmd.fio_args = o.fio_args;
    cmd.sets = o.sets;
    add_kernel_tree_set(o.kernel_tree, cmd.sets);
    if (o.seed)
        cmd.sets.push_back(fmt::format("seed={}", *o.seed));
    std::vector<std::string> warnings;
    cmd.policy.strict = o.strict;
    cmd.policy.warnings = &warnings;
    scenario::FioRun run;
    std::string error;
    {
        const WarningPrinter printer{warnings};  // the notes first, then the error
        try {
            run = scenario::load_fio_command(cmd);
        } catch (const scenario::ScenarioError& e) {
            error = e.what();
        }
    }
    if (!error.empty()) {
        fmt::print(stderr, "blksim: {}\n", error);
        return 2;
    }
    if (run.parse_only) {
        uint64_t threads = 0;
        for (const auto& j : run.scenario.machine.jobs)
            threads += j.numjobs;
        fmt::print("fio: ok: {} job(s), {} thread(s) on {} ({} CPU(s), {} device(s))\n", run.scenario.machine.jobs.size(),
                   threads, o.device.empty() ? "no device" : o.device, run.scenario.machine.host.nr_cpus,
                   run.scenario.machine.devices.size());
        return 0;
    }
    if (!run.output_file.empty() && !redirect_stdout(run.output_file, "fio --output=" + run.output_file)) {
        fmt::print(stderr, "blksim: fio --output={}: cannot open for writing\n", run.output_file);
        return 2;
    }
    RunOptions ro;
    ro.scenario = o.device.empty() ? "blksim fio" : o.device;
    ro.output_format = o.output_format;
    ro.quiet = o.quiet;
    ro.trace_file = o.trace_file;
    ro.blktrace_dir = o.blktrace_dir;
    ro.explain = o.explain;
    ro.timeseries_file = o.timeseries_file;
    ro.timeseries_interval = o.timeseries_interval;
    ro.mem_limit = o.mem_limit;
    ro.perfetto = o.perfetto;
    return run_loaded(run.scenario, ro);
}

int cmd_validate(const std::string& path, const std::vector<std::string>& sets, bool graph) {
    try {
        const auto s = load(path, sets, std::nullopt);
        if (graph) {
            // The decoder has checked the topology already; print it as Graphviz DOT.
            std::ostringstream dot;
            topology::Topology(s.machine).write_graphviz(dot);
            fmt::print("{}", dot.str());
            return 0;
        }
        uint64_t threads = 0;
        for (const auto& j : s.machine.jobs)
            threads += j.numjobs;
        fmt::print("{}: ok: {} CPU(s), {} device(s), {} job(s), {} thread(s)\n", path,
                   s.machine.host.nr_cpus, s.machine.devices.size(), s.machine.jobs.size(), threads);
        return 0;
    } catch (const scenario::ScenarioError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return 2;
    }
}

std::optional<uint64_t> mem_limit_bytes(const std::string& text) {
    const std::optional<uint64_t> limit = experiment::parse_mem_limit(text);
    if (!limit)
        fmt::print(stderr, "blksim: --mem-limit {}: not a size (allowed: a number with K, M, G or T, e.g. 16G)\n", text);
    return limit;
}

std::optional<int64_t> timeseries_interval_ns(const std::string& text, const char* option) {
    const int64_t min_ns = report::TimeSeriesWriter::MIN_INTERVAL.count();
    try {
        const int64_t ns = units::parse_time(text, units::TimeUnit::MSEC).count();
        if (ns >= min_ns)
            return ns;
        fmt::print(stderr, "blksim: {} {}: too short (at least 1us)\n", option, text);
    } catch (const units::ValueError& e) {
        fmt::print(stderr, "blksim: {} {}: {}\n", option, text, e.what());
    }
    return std::nullopt;
}

}  // namespace blksim::cli
