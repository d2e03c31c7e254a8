// `blksim report`: one run of a scenario, or a finished sweep, as one self-contained HTML page
// with its plots (docs/plots.md). The run is made with what the plots need — fio's json+
// (clat histogram bins, per priority too), fio's iops and latency logs every interval, and
// the --timeseries of queue depth and tags — into a work directory; scripts/blksim-plot.py
// draws the PNGs there; the page inlines them as data: URIs beside fio's text report,
// blksim's section and the scenario.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "models/report/cpu_breakdown.h"
#include "models/report/fio_output.h"
#include "models/report/perfetto_writer.h"
#include "models/report/timeseries.h"
#include "models/topology/machine.h"
#include "tools/blksim/commands.h"
#include "tools/blksim/html_page.h"
#include "tools/blksim/interrupt.h"
#include "tools/blksim/output_file.h"
#include "tools/blksim/seed_option.h"
#include "tools/blksim/timeline_page.h"
#include "tools/input/input_file.h"
#include "tools/experiment/simulate.h"
#include "tools/experiment/sweep.h"
#include "tools/scenario/data_dir.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

namespace {

namespace fs = std::filesystem;


// --- the plot tool ------------------------------------------------------------------------

struct PlotTool {
    std::string python, script;
};

// The interpreter: $BLKSIM_PYTHON, else BLKSIM_PYTHON as CMake configured it (Debian's
// /usr/bin/python3, where python3-matplotlib lives). The script: $BLKSIM_PLOT, else
// blksim-plot.py in blksim's data folder (data_dir.h).
std::optional<PlotTool> find_plot_tool() {
    PlotTool t;
    const char* py = std::getenv("BLKSIM_PYTHON");
    t.python = py && *py ? py : BLKSIM_PYTHON;
    std::vector<fs::path> tried;
    if (const char* p = std::getenv("BLKSIM_PLOT"); p && *p) {
        tried.emplace_back(p);
    } else {
        tried.push_back(scenario::data_dir() / "blksim-plot.py");
    }
    std::error_code ec;
    if (fs::path(t.python).is_absolute() && !fs::is_regular_file(t.python, ec)) {
        fmt::print(stderr, "blksim: report: {} does not exist (set BLKSIM_PYTHON to a python3 that has matplotlib: "
                           "apt-get install python3-matplotlib)\n", t.python);
        return std::nullopt;
    }
    for (const fs::path& p : tried) {
        if (fs::is_regular_file(p, ec)) {
            t.script = p.string();
            return t;
        }
    }
    std::string list;
    for (const fs::path& p : tried)
        list += (list.empty() ? "" : ", ") + p.string();
    fmt::print(stderr, "blksim: report: the plot tool blksim-plot.py is not in {} (set BLKSIM_PLOT to its path)\n",
               list);
    return std::nullopt;
}

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (const char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct Figure {
    std::string path, title;
    int width = 0, height = 0;
};

// Runs the plot tool; it prints PATH<TAB>WxH<TAB>TITLE per PNG it wrote (into `figs`), its
// errors go to our stderr. Its exit status 2 (bad input, named in its message) stays 2;
// anything else that is not 0 becomes 1.
int run_plot_tool(const PlotTool& t, const std::vector<std::string>& args, std::vector<Figure>& figs) {
    std::string cmd = shell_quote(t.python) + " " + shell_quote(t.script);
    for (const std::string& a : args)
        cmd += " " + shell_quote(a);
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        fmt::print(stderr, "blksim: report: cannot run {}: {}\n", t.python, std::strerror(errno));
        return 2;
    }
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    const int st = pclose(p);
    const int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (rc == 127) {
        fmt::print(stderr, "blksim: report: cannot run the plot tool with {} (set BLKSIM_PYTHON to a python3 "
                           "that has matplotlib: apt-get install python3-matplotlib)\n", t.python);
        return 2;
    }
    if (rc != 0) {
        fmt::print(stderr, "blksim: report: {} failed (exit status {})\n", t.script, rc);
        return rc == 2 ? 2 : 1;
    }
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
        const auto a = line.find('\t'), b = line.find('\t', a + 1);
        Figure f;
        if (a == std::string::npos || b == std::string::npos ||
            std::sscanf(line.c_str() + a + 1, "%dx%d", &f.width, &f.height) != 2) {
            fmt::print(stderr, "blksim: report: {} printed '{}', not PATH<TAB>WxH<TAB>TITLE\n", t.script, line);
            return 1;
        }
        f.path = line.substr(0, a);
        f.title = line.substr(b + 1);
        figs.push_back(std::move(f));
    }
    return 0;
}

// --- files ----------------------------------------------------------------------------------

// The work directory: --workdir (kept), else a fresh temporary one removed at the end.
struct WorkDir {
    fs::path path;
    bool keep = false;
    ~WorkDir() {
        std::error_code ec;
        if (!keep && !path.empty())
            fs::remove_all(path, ec);
    }
    bool open(const std::string& given) {
        std::error_code ec;
        if (!given.empty()) {
            keep = true;
            path = given;
            fs::create_directories(path, ec);
            if (ec || !fs::is_directory(path)) {
                fmt::print(stderr, "blksim: report: --workdir {}: cannot create the directory\n", given);
                return false;
            }
            return true;
        }
        std::string tmpl = (fs::temp_directory_path(ec) / "blksim-report-XXXXXX").string();
        if (ec || !mkdtemp(tmpl.data())) {
            fmt::print(stderr, "blksim: report: cannot create a temporary directory ({})\n", std::strerror(errno));
            return false;
        }
        path = tmpl;
        return true;
    }
};

// Inlines the figures into the page; false when one cannot be read back.
bool add_figures(HtmlPage& page, const std::vector<Figure>& figs,
                 const std::vector<std::pair<std::string, std::string>>& notes) {
    for (const Figure& f : figs) {
        std::string why;
        const auto png = input::read_file(f.path, input::kMaxDataFile, why);
        if (!png) {
            fmt::print(stderr, "blksim: report: cannot read the plot {}: {}\n", f.path, why);
            return false;
        }
        std::string caption = f.title;
        for (const auto& [name, note] : notes)
            if (fs::path(f.path).filename() == name)
                caption += ". " + note;
        page.figure(*png, caption, f.width, f.height);
    }
    return true;
}

// Throws OutputError.
void write_page(const HtmlPage& page, OutputFile& out, std::size_t figures, const PlotTool& tool,
                const std::string& path) {
    const std::string html = page.str();
    out.write(html);
    out.finish();
    fmt::print(stderr, "blksim: report: wrote {} ({} KiB, {} plots by {})\n", path, (html.size() + 1023) / 1024,
               figures, tool.script);
}

// The plot tool ran while a signal came (it got it too, from the terminal): stop here.
bool stop_if_interrupted(int& rc) {
    if (!interrupted().load())
        return false;
    fmt::print(stderr, "blksim: report: interrupted by {}; no page written\n", interrupt_signal_name());
    rc = interrupted_exit_status();
    return true;
}

// --- a run --------------------------------------------------------------------------------

// About 200 points over the longest job (runtime + ramp_time), rounded up to 1, 2 or 5 times
// a power of ten, at least 1 ms (fio's log_avg_msec is whole milliseconds); 10 ms when no
// job has a runtime (a size-bound run's length is not known before it ends).
sim::Duration auto_interval(const topology::MachineConfig& m) {
    int64_t longest = 0;
    for (const auto& j : m.jobs)
        if (j.runtime.count() > 0)
            longest = std::max(longest, (j.runtime + j.ramp_time).count());
    if (longest == 0)
        return sim::Duration::ns(10'000'000);
    const double want = std::max(1e6, static_cast<double>(longest) / 200);
    double step = std::pow(10.0, std::floor(std::log10(want)));
    for (const double k : {1.0, 2.0, 5.0, 10.0})
        if (k * step >= want) {
            step *= k;
            break;
        }
    return sim::Duration::ns(static_cast<int64_t>(step));
}

// The summary table: per job group and direction, the figures compare and sweep use.
void add_summary(HtmlPage& page, const result::RunResult& r) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string current;
    for (const experiment::Metric& m : experiment::run_metrics(r)) {
        // "<group>/<dir>.<name>": the group may hold '/' and the name '.' (clat_p99.9_ns).
        const std::size_t dot = m.key.find('.', m.key.rfind('/'));
        const std::string who = m.key.substr(0, dot);
        if (who != current) {
            if (!row.empty())
                rows.push_back(row);
            row = {who};
            current = who;
        }
        const std::string name = m.key.substr(dot + 1);
        if (name == "iops")
            row.push_back(fmt::format("{:.0f}", m.value));
        else if (name == "bw_bytes")
            row.push_back(fmt::format("{:.1f}", m.value / (1024 * 1024)));
        else
            row.push_back(fmt::format("{:.1f}", m.value / 1e3));
    }
    // run_metrics() gives iops, bw_bytes, then clat mean, p50, p99, p99.9 per direction.
    if (!row.empty())
        rows.push_back(row);
    page.table({"group / direction", "IOPS", "MiB/s", "clat mean (us)", "p50 (us)", "p99 (us)", "p99.9 (us)"}, rows);
}

const std::vector<std::pair<std::string, std::string>> RUN_NOTES = {
    {"cdf.png", "From fio's json+ clat histogram bins (bucket midpoints, <= 1/64 relative error). Solid: each job "
                "group and direction; dashed: per I/O priority class, when the job sets one. Right: the fraction "
                "slower than x, so p99 is at 1e-2 and p99.9 at 1e-3"},
    {"stages.png", "btt's stages per request: Q2G bio queued to request allocated (a tag wait shows here), G2I to "
                   "inserted (elevator lock), I2D inserted to issued (held by the scheduler), D2C in the driver "
                   "and device. Bars on a log axis; right, the mean Q2C split into its stages"},
    {"timeline.png", "fio's iops logs summed over the jobs, and the mean of fio's clat log samples, per "
                     "log_avg_msec window"},
    {"depth.png", "blksim --timeseries: snapshots at each sample instant of the requests at the driver, the tags "
                  "held, what the scheduler, hctx->dispatch and the software queues hold, sleeping submitters, "
                  "and the device's own queue"},
};

// Where each core's time went, by kind of work, in microseconds (and its share of the core's
// busy time).
void add_cpu_breakdown(HtmlPage& page, const report::CpuBreakdown& breakdown) {
    const auto& b = breakdown.ns();
    std::vector<std::string> header = {"CPU"};
    for (uint32_t w = 0; w < cpu::NR_WORK_KINDS; ++w)
        header.push_back(fmt::format("{} (us)", cpu::work_name(static_cast<cpu::Work>(w))));
    header.push_back("busy (us)");
    std::vector<std::vector<std::string>> rows;
    for (std::size_t c = 0; c < b.size(); ++c) {
        int64_t busy = 0;
        for (const int64_t ns : b[c])
            busy += ns;
        if (busy == 0)
            continue;
        std::vector<std::string> row = {fmt::format("{}", c)};
        for (const int64_t ns : b[c])
            row.push_back(ns == 0 ? "" : fmt::format("{:.1f} ({:.0f}%)", static_cast<double>(ns) / 1e3,
                                                     100.0 * static_cast<double>(ns) / static_cast<double>(busy)));
        row.push_back(fmt::format("{:.1f}", static_cast<double>(busy) / 1e3));
        rows.push_back(std::move(row));
    }
    page.table(header, rows);
}

void add_cpu_section(HtmlPage& page, const report::CpuBreakdown& b) {
    page.heading("Where the CPUs' time went");
    page.paragraph("The whole run, per core: a job thread's steps (its syscalls, bio submission, plugging and merging, "
                   "fio's own work), the kernel work charged by the block layer's steps, and the spin on locks "
                   "(counted out of the step or lock section it delayed).");
    add_cpu_breakdown(page, b);
}

// The command line that makes this report again.
std::string report_command(const ReportOptions& o) {
    std::string how = "blksim report " + o.scenario;
    for (const std::string& v : o.sets)
        how += " --set " + v;
    if (o.seed)
        how += fmt::format(" --seed {}", *o.seed);
    return how;
}

// fio's logs every `avg_msec` for every job: NAME_iops.N.log, NAME_clat.N.log, ... (the
// scenario's own log options are replaced).
void log_every_job(scenario::Scenario& s, uint32_t avg_msec) {
    for (auto& j : s.machine.jobs) {
        j.logs = {};
        j.logs.lat = j.logs.iops = "report";
        j.logs.avg_msec = avg_msec;
    }
}

int report_run(const ReportOptions& o, const PlotTool& tool, OutputFile& out) {
    scenario::Scenario s;
    if (!load_or_say_why(o.scenario, o.sets, o.seed, s))
        return 2;
    sim::Duration interval = auto_interval(s.machine);
    if (!o.interval.empty()) {
        const auto ns = timeseries_interval_ns(o.interval, "--interval");
        if (!ns)
            return 2;
        interval = sim::Duration::ns(*ns);
    }
    WorkDir wd;
    if (!wd.open(o.workdir))
        return 2;
    // fio's logs every interval, in the work directory.
    const auto avg_msec = static_cast<uint32_t>(std::max<int64_t>(1, (interval.count() + 500'000) / 1'000'000));
    log_every_job(s, avg_msec);
    const fs::path series_path = wd.path / "timeseries.csv";
    OutputFile series(series_path.string(), "");
    result::RunResult result;
    FioLogFiles logs;
    report::CpuBreakdown cpu_time(s.machine.host.nr_cpus);
    s.machine.stop = &interrupted();
    const int rc = run_machine(
        s.machine, o.scenario,
        [&](topology::Machine& m) {
            logs.open(m.log_files(), wd.path.string());
            report::attach_timeseries(m, series.stream(), interval);
            report::attach_cpu_breakdown(m, cpu_time);
        },
        [](topology::Machine&) {}, result);
    if (rc != 0)
        return rc;
    series.finish();
    const std::string text = report::format_report(result, report::only(report::kNormalFormat), s.output.group_reporting);
    const fs::path json_path = wd.path / "run.json";
    write_output(json_path.string(), "", report::format_json(result, s.output.group_reporting, true));
    write_output((wd.path / "report.txt").string(), "", text);
    logs.write(result.logs);

    std::vector<std::string> args = {"all", "--json", json_path.string(), "--timeseries", series_path.string(),
                                     "-o", wd.path.string(), "--logs"};
    for (const result::FioLog& l : result.logs)
        if (l.path.find("_iops.") != std::string::npos || l.path.find("_clat.") != std::string::npos)
            args.push_back((wd.path / l.path).string());
    std::vector<Figure> figs;
    int plot_rc = run_plot_tool(tool, args, figs);
    if (stop_if_interrupted(plot_rc) || plot_rc != 0)
        return plot_rc;

    HtmlPage page("blksim report: " + fs::path(o.scenario).filename().string());
    if (!s.description.empty())
        page.paragraph(s.description);
    const std::string how = report_command(o);
    const int64_t us = interval.count() / 1000;
    page.paragraph(fmt::format("{}: seed {}, {:.3f} s simulated; the plots over time sample every {} "
                               "(fio's log_avg_msec={}).", how, s.machine.seed, result.sim_time.seconds(),
                               us % 1000 ? fmt::format("{} us", us) : fmt::format("{} ms", us / 1000), avg_msec));
    page.heading("Summary");
    add_summary(page, result);
    page.heading("Plots");
    if (!add_figures(page, figs, RUN_NOTES))
        return 1;
    add_cpu_section(page, cpu_time);
    page.heading("fio's report and blksim's section");
    page.pre(text);
    page.heading("Scenario");
    page.paragraph(o.scenario + (o.sets.empty() ? "" : " (the --set overrides above apply on top of it)"));
    std::string why;
    page.pre(input::read_file(o.scenario, input::kMaxTextFile, why).value_or("(the file could not be read back: " + why + ")"));
    write_page(page, out, figs.size(), tool, o.out);
    if (wd.keep)
        fmt::print(stderr, "blksim: report: run files and plots kept in {}\n", wd.path.string());
    return 0;
}

// --- the request timeline ----------------------------------------------------------------

int report_timeline(const ReportOptions& o, OutputFile& out) {
    scenario::Scenario s;
    if (!load_or_say_why(o.scenario, o.sets, o.seed, s))
        return 2;
    const auto bounds = perfetto_bounds(o.perfetto);
    if (!bounds)
        return 2;
    std::unique_ptr<report::PerfettoWriter> trace;
    result::RunResult result;
    s.machine.stop = &interrupted();
    const int rc = run_machine(
        s.machine, o.scenario,
        [&](topology::Machine& m) {
            trace = std::make_unique<report::PerfettoWriter>(*bounds, m.queues(), static_cast<uint32_t>(m.cpus().size()));
            m.set_trace(trace.get());
            report::attach_perfetto(m, *trace);
        },
        [](topology::Machine&) {}, result);
    if (rc != 0)
        return rc;
    std::ostringstream json;
    trace->write(json, perfetto_meta(o.scenario));

    HtmlPage page("blksim timeline: " + fs::path(o.scenario).filename().string());
    if (!s.description.empty())
        page.paragraph(s.description);
    std::string how = report_command(o) + " --timeline";
    if (!o.perfetto.window.empty())
        how += " --perfetto-window " + o.perfetto.window;
    if (!o.perfetto.sample.empty())
        how += " --perfetto-sample " + o.perfetto.sample;
    page.paragraph(fmt::format("{}: seed {}, {:.3f} s simulated; {} requests drawn{}.", how, s.machine.seed,
                               result.sim_time.seconds(), trace->requests(),
                               trace->truncated_at() >= 0
                                   ? fmt::format(" (the trace stops at {:.6f} s, its size limit: narrow it with "
                                                 "--perfetto-window or --perfetto-sample)",
                                                 static_cast<double>(trace->truncated_at()) / 1e9)
                                   : ""));
    page.heading("Summary");
    add_summary(page, result);
    add_cpu_section(page, trace->breakdown());
    page.heading("Timeline");
    add_timeline(page, json.str());
    const std::string html = page.str();
    out.write(html);
    out.finish();
    fmt::print(stderr, "blksim: report: wrote {} ({} KiB, {} requests on the timeline)\n", o.out,
               (html.size() + 1023) / 1024, trace->requests());
    print_perfetto_summary(*trace, o.out, true);
    return 0;
}

// --- a sweep ------------------------------------------------------------------------------

int report_sweep(const ReportOptions& o, const PlotTool& tool, OutputFile& out) {
    experiment::SweepOutput sw;
    try {
        std::string why;
        const auto text = input::read_file(o.sweep, input::kMaxDataFile, why);
        if (!text)
            throw experiment::SweepError(fmt::format("{}: cannot open the file: {}", o.sweep, why));
        sw = experiment::from_json(*text, o.sweep);
    } catch (const experiment::SweepError& e) {
        fmt::print(stderr, "blksim: report: --sweep {}\n", e.what());
        return 2;
    }
    WorkDir wd;
    if (!wd.open(o.workdir))
        return 2;
    std::vector<Figure> figs;
    int plot_rc = run_plot_tool(tool, {"sweep", o.sweep, "-o", wd.path.string()}, figs);
    if (stop_if_interrupted(plot_rc) || plot_rc != 0)
        return plot_rc;

    HtmlPage page("blksim sweep report: " + fs::path(sw.scenario).filename().string());
    std::string what = fmt::format("{} points of {}", sw.results.size(), sw.scenario);
    for (const std::string& v : sw.sets)
        what += " --set " + v;
    for (const auto& p : sw.params) {
        what += " --param " + p.path + "=";
        for (std::size_t i = 0; i < p.values.size(); ++i)
            what += (i ? "," : "") + p.values[i];
    }
    if (sw.shard.active())
        what += fmt::format(" (shard {}/{} only: merge the shards with sweep-merge for the whole sweep)",
                            sw.shard.index, sw.shard.count);
    page.paragraph(what + " (" + o.sweep + ").");
    page.heading("Plots");
    if (!add_figures(page, figs, {}))
        return 1;
    page.heading("Points");
    std::vector<std::string> header = {"point"};
    for (const auto& p : sw.params)
        header.push_back(p.path);
    std::vector<std::string> keys;
    for (const auto& r : sw.results)
        for (const auto& m : r.metrics)
            if (std::find(keys.begin(), keys.end(), m.key) == keys.end())
                keys.push_back(m.key);
    header.insert(header.end(), keys.begin(), keys.end());
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : sw.results) {
        std::vector<std::string> row = {fmt::format("{}", r.index)};
        const std::vector<std::size_t> at = experiment::point_coords(sw.params, r.index);
        for (std::size_t i = 0; i < sw.params.size(); ++i)
            row.push_back(sw.params[i].values[at[i]]);
        for (const std::string& k : keys) {
            std::string cell;
            for (const auto& m : r.metrics)
                if (m.key == k)
                    cell = fmt::format("{:.6g}", m.value);
            row.push_back(cell);
        }
        rows.push_back(std::move(row));
    }
    page.table(header, rows);
    write_page(page, out, figs.size(), tool, o.out);
    return 0;
}

}  // namespace

void add_report_command(CLI::App& app, ReportCommand& r) {
    ReportOptions& o = r.o;
    r.cmd = app.add_subcommand(
        "report", "run a scenario once and write one self-contained HTML page: plots (latency CDF per priority, "
                  "IOPS and latency over time, queue depth and tags, btt stages), fio's report and blksim's "
                  "section; or, with --sweep, a sweep's charts (docs/plots.md)");
    r.cmd->add_option("scenario", o.scenario, "scenario JSON file");
    r.cmd->add_option("--set", o.sets, "override a scenario value: path=value");
    r.cmd->add_option("--seed", o.seed, "scenario seed (overrides the file's)")->check(seed_check());
    r.cmd->add_option("--output,-o", o.out, "the HTML file to write (default report.html)");
    r.cmd->add_option("--sweep", o.sweep, "report a finished sweep (blksim sweep --json FILE) instead of a run");
    r.cmd->add_option("--interval", o.interval,
                         "sampling interval of the plots over time, e.g. 10ms (default: about 200 points over the "
                         "longest job, at least 1ms)");
    r.cmd->add_flag("--timeline", o.timeline,
                    "write the run's request timeline instead of the plots: cores, hardware queues, the drive, each "
                    "request's stages, counters; zoom and hover, offline (docs/timeline.md)");
    add_perfetto_options(r.cmd, o.perfetto, false);
    r.cmd->add_option("--workdir", o.workdir,
                         "keep the run's files (json+, fio logs, time series, PNGs) in DIR (default: a temporary "
                         "directory, removed)");
}

int run_report_command(const ReportCommand& r) {
    if (!r.cmd || !*r.cmd)
        return -1;
    const ReportOptions& o = r.o;
    if (o.sweep.empty() == o.scenario.empty()) {
        fmt::print(stderr, "blksim: report: {}\n", o.sweep.empty() ? "give a scenario file (or --sweep SWEEP.json)"
                                                                   : "give a scenario or --sweep SWEEP.json, not both");
        return 2;
    }
    if (!o.sweep.empty() && (!o.sets.empty() || o.seed || !o.interval.empty())) {
        fmt::print(stderr, "blksim: report: --sweep reports a finished sweep: --set, --seed and --interval do not apply\n");
        return 2;
    }
    if (o.timeline && (!o.sweep.empty() || !o.interval.empty() || !o.workdir.empty())) {
        fmt::print(stderr, "blksim: report: --timeline draws one run: --sweep, --interval and --workdir do not apply\n");
        return 2;
    }
    if (!o.timeline && (!o.perfetto.window.empty() || !o.perfetto.sample.empty())) {
        fmt::print(stderr, "blksim: report: --perfetto-window and --perfetto-sample bound the --timeline page: "
                           "add --timeline\n");
        return 2;
    }
    // Before a run that may take a while: can the page be written where asked?
    std::error_code ec;
    const fs::path dir = fs::path(o.out).parent_path();
    if (o.out.empty() || fs::is_directory(o.out, ec) || (!dir.empty() && !fs::is_directory(dir, ec))) {
        fmt::print(stderr, "blksim: report: -o {}: {}\n", o.out,
                   o.out.empty() || fs::is_directory(o.out, ec) ? "not a file name" : "its directory does not exist");
        return 2;
    }
    // The timeline is drawn by the page itself: no plot tool.
    std::optional<PlotTool> tool;
    if (!o.timeline && !(tool = find_plot_tool()))
        return 2;
    // A signal stops the run; the work directory and the page's temporary file go with the
    // stack as on any other error.
    catch_interrupts();
    try {
        OutputFile out(o.out, "-o");
        if (o.timeline)
            return report_timeline(o, out);
        return o.sweep.empty() ? report_run(o, *tool, out) : report_sweep(o, *tool, out);
    } catch (const OutputError& e) {
        fmt::print(stderr, "blksim: report: {}\n", e.what());
        return 2;
    }
}

}  // namespace blksim::cli
