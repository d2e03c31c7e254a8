// `blksim report` and scripts/blksim-plot.py end to end, on real runs: every PNG exists, is
// more than a few KB, opens with matplotlib at the size the tool says and is not blank; the
// HTML page carries each PNG as a data: URI that decodes to the same bytes, fio's report,
// blksim's section and the scenario, and loads nothing from outside; headless Chromium
// renders it (a screenshot that is not blank). A sweep gets its charts, the plot tool reads
// fio's own json+, the installed layout finds the installed script, and bad input exits 2
// with a message naming it.
#include <catch2/catch.hpp>

#include "test/cli/cli_fixture.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using clitest::run_blksim;
using clitest::shell;
using clitest::source_path;

struct TempDir : clitest::TempDir {
    explicit TempDir(const std::string& name) : clitest::TempDir("report-test-" + name) {}
};

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string python() { return BLKSIM_PYTHON; }
std::string plot_tool() { return python() + " " + source_path("scripts/blksim-plot.py"); }

struct Png {
    int height = 0, width = 0, channels = 0;
    double stddev = 0;  // of the RGB values: 0 for a blank image
    uintmax_t bytes = 0;
};

// Opens each PNG with matplotlib (the way a user's script would) and returns its shape.
std::map<std::string, Png> open_pngs(const TempDir& t, const std::vector<std::string>& paths) {
    const std::string script = t / "shape.py";
    std::ofstream(script) << "import sys\nimport matplotlib.image as mi\n"
                             "for p in sys.argv[1:]:\n"
                             "    a = mi.imread(p)\n"
                             "    print(p, a.shape[0], a.shape[1], a.shape[2], float(a[..., :3].std()))\n";
    std::string cmd = python() + " " + script;
    for (const std::string& p : paths)
        cmd += " " + p;
    const auto r = shell(cmd + " 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    std::map<std::string, Png> out;
    std::istringstream in(r.out);
    std::string p;
    Png png;
    while (in >> p >> png.height >> png.width >> png.channels >> png.stddev) {
        png.bytes = fs::file_size(p);
        out[p] = png;
    }
    REQUIRE(out.size() == paths.size());
    return out;
}

std::vector<std::string> data_uris(const std::string& html) {
    std::vector<std::string> out;
    const std::string tag = "src=\"data:image/png;base64,";
    for (std::size_t at = html.find(tag); at != std::string::npos; at = html.find(tag, at + 1)) {
        const std::size_t start = at + tag.size();
        out.push_back(html.substr(start, html.find('"', start) - start));
    }
    return out;
}

}  // namespace

TEST_CASE("report: a real run becomes PNGs that open and one self-contained page Chromium renders",
          "[report][cli][plots]") {
    TempDir t("run");
    const std::string html_path = t / "report.html";
    const std::string wd = t / "wd";
    const auto r = run_blksim("report " + source_path("scenarios/seeds/e4-ncq-prio.json") +
                              " --set jobs.0.runtime=2s -o " + html_path + " --workdir " + wd);
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("4 plots by ") != std::string::npos);

    // Every plot at the size the tool draws it (1000 px wide, as many panels as the data
    // needs: the HDD adds a panel of its own queue), more than a few KB, not blank.
    const std::map<std::string, std::pair<int, int>> expected = {
        {"cdf.png", {480, 1000}}, {"stages.png", {420, 1000}}, {"timeline.png", {640, 1000}}, {"depth.png", {680, 1000}}};
    std::vector<std::string> paths;
    for (const auto& [name, shape] : expected)
        paths.push_back(wd + "/" + name);
    const auto pngs = open_pngs(t, paths);
    for (const auto& [name, shape] : expected) {
        INFO(name);
        const Png& p = pngs.at(wd + "/" + name);
        CHECK(p.bytes > 10'000);
        CHECK(p.height == shape.first);
        CHECK(p.width == shape.second);
        CHECK(p.channels == 4);
        CHECK(p.stddev > 0.05);
    }
    // The run's files are kept with --workdir: the json+ has per-priority bins (the CDF's
    // dashed lines), the time series and fio's logs every interval.
    const std::string json = slurp(wd + "/run.json");
    CHECK(json.find("\"prios\"") != std::string::npos);
    CHECK(json.find("\"bins\"") != std::string::npos);
    CHECK(slurp(wd + "/timeseries.csv").rfind("time_ns,sda:in_flight,", 0) == 0);
    CHECK(fs::file_size(wd + "/report_iops.1.log") > 0);
    CHECK(fs::file_size(wd + "/report_clat.1.log") > 0);

    // The page: each PNG inlined, decoding to the file's bytes; fio's report, blksim's
    // section, the scenario; nothing fetched from anywhere.
    const std::string html = slurp(html_path);
    const std::vector<std::string> uris = data_uris(html);
    REQUIRE(uris.size() == 4);
    const std::string b64 = t / "uri.b64";
    std::ofstream(b64) << uris[0];
    const auto decoded = shell(python() + " -c 'import base64,sys; sys.stdout.buffer.write(base64.b64decode(open(\"" +
                               b64 + "\").read(), validate=True))' > " + t / "decoded.png" + " && cmp " +
                               t / "decoded.png" + " " + wd + "/cdf.png");
    CHECK(decoded.status == 0);
    CHECK(html.find("e4: (groupid=0, jobs=1)") != std::string::npos);
    CHECK(html.find("blksim (what fio cannot show):") != std::string::npos);
    CHECK(html.find("ncq_prio_enable") != std::string::npos);  // the scenario file
    CHECK(html.find("--set jobs.0.runtime=2s") != std::string::npos);
    for (const char* outside : {"http:", "https:", "src=\"//", "href=", "url(", "@import", "<script", "<link"})
        CHECK(html.find(outside) == std::string::npos);

    if (shell("command -v chromium >/dev/null").status != 0) {
        WARN("chromium is not installed (scripts/setup.sh installs it): the screenshot check is skipped");
        return;
    }
    const std::string shot = t / "screenshot.png";
    const auto c = shell("chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                         "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=" +
                         t / "chromium-profile" + " --screenshot=" + shot + " --window-size=1200,2000 file://" +
                         html_path + " 2>&1");
    INFO(c.out);
    REQUIRE(c.status == 0);
    REQUIRE(fs::exists(shot));
    const Png s = open_pngs(t, {shot}).at(shot);
    CHECK(s.width == 1200);
    CHECK(s.height == 2000);
    CHECK(s.bytes > 50'000);
    CHECK(s.stddev > 0.05);  // a blank (all white) page would be 0
}

TEST_CASE("report --sweep: one chart per metric, the points in a table", "[report][cli][plots][sweep]") {
    TempDir t("sweep");
    const std::string sweep = t / "sweep.json";
    const auto s = run_blksim("sweep " + source_path("scenarios/examples/nullblk-mq-deadline-10jobs.json") +
                              " --set jobs.0.runtime=2ms --param jobs.0.numjobs=1,2,4 --param "
                              "queues.0.scheduler=none,mq-deadline --jobs 2 --json " + sweep);
    REQUIRE(s.status == 0);
    const auto r = run_blksim("report --sweep " + sweep + " -o " + t / "sweep.html --workdir " + t / "wd");
    INFO(r.out);
    REQUIRE(r.status == 0);
    const std::vector<std::string> charts = {t / "wd/sweep-psync10_read.iops.png",
                                             t / "wd/sweep-psync10_read.clat_mean_ns.png",
                                             t / "wd/sweep-psync10_read.clat_p99_ns.png"};
    for (const auto& [path, png] : open_pngs(t, charts)) {
        INFO(path);
        CHECK(png.bytes > 10'000);
        CHECK(png.width == 1000);
        CHECK(png.height == 500);
        CHECK(png.stddev > 0.05);
    }
    const std::string html = slurp(t / "sweep.html");
    CHECK(data_uris(html).size() == 3);
    CHECK(html.find("<th>queues.0.scheduler</th>") != std::string::npos);
    CHECK(html.find("<td>mq-deadline</td>") != std::string::npos);
    CHECK(html.find("--param jobs.0.numjobs=1,2,4") != std::string::npos);
    // Other metrics and axes on request.
    const auto p = shell(plot_tool() + " sweep " + sweep + " --x queues.0.scheduler --metric clat_p50_ns -o " +
                         t / "other" + " 2>&1");
    INFO(p.out);
    CHECK(p.status == 0);
    CHECK(p.out.find("sweep-psync10_read.clat_p50_ns.png\t1000x500\tpsync10/read.clat_p50_ns against "
                     "queues.0.scheduler") != std::string::npos);
    // One value of a parameter instead of one line per value; a value the sweep never had.
    const auto fixed = shell(plot_tool() + " sweep " + sweep + " --fix queues.0.scheduler=none --metric read.iops -o " +
                             t / "fixed" + " 2>&1");
    INFO(fixed.out);
    CHECK(fixed.status == 0);
    CHECK(fixed.out.find("against jobs.0.numjobs (queues.0.scheduler=none)") != std::string::npos);
    const auto bad = shell(plot_tool() + " sweep " + sweep + " --fix queues.0.scheduler=bfq -o " + t / "bad 2>&1");
    CHECK(bad.status == 2);
    CHECK(bad.out.find("--fix queues.0.scheduler=bfq: queues.0.scheduler was swept over none, mq-deadline") !=
          std::string::npos);
}

TEST_CASE("plots: the tool reads fio's own json+ (per-priority bins of a real fio 3.33 run)", "[plots][cli]") {
    TempDir t("fio");
    const auto r = shell(plot_tool() + " cdf " +
                         source_path("test/fixtures/real-linux-6.18/fio/cmdprio10rt_mq-deadline.jsonplus.json") +
                         " -o " + t / "cdf.png 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    const Png p = open_pngs(t, {t / "cdf.png"}).at(t / "cdf.png");
    CHECK(p.bytes > 10'000);
    CHECK(p.width == 1000);
    CHECK(p.height == 480);
}

TEST_CASE("report: an installed blksim finds the plot tool installed beside it", "[report][cli]") {
    TempDir t("install");
    fs::create_directories(t.dir / "bin");
    fs::create_directories(t.dir / "share/blksim");
    fs::copy_file(BLKSIM_BINARY, t.dir / "bin/blksim");
    fs::copy_file(source_path("scripts/blksim-plot.py"), t.dir / "share/blksim/blksim-plot.py");
    fs::create_directory_symlink(source_path("scenarios"), t.dir / "share/blksim/scenarios");
    const auto r = shell(t / "bin/blksim" + " report " + source_path("scenarios/examples/nullblk-psync-qd1.json") +
                         " --set jobs.0.runtime=5ms -o " + t / "r.html 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("plots by " + t / "share/blksim/blksim-plot.py") != std::string::npos);
    // The build's binary, from the build tree's data folder (its link to the source tree's
    // script), without --workdir: the same page
    // (same scenario and seed), and nothing left behind in its temporary directory.
    fs::create_directories(t.dir / "tmp");
    const auto b = shell("TMPDIR=" + t / "tmp " + BLKSIM_BINARY + " report " +
                         source_path("scenarios/examples/nullblk-psync-qd1.json") + " --set jobs.0.runtime=5ms -o " +
                         t / "b.html 2>&1");
    INFO(b.out);
    REQUIRE(b.status == 0);
    CHECK(slurp(t / "b.html") == slurp(t / "r.html"));
    CHECK(fs::is_empty(t.dir / "tmp"));
    // BLKSIM_PLOT names another one.
    const auto e = shell("BLKSIM_PLOT=" + t / "nothing.py " + t / "bin/blksim" + " report " +
                         source_path("scenarios/examples/nullblk-psync-qd1.json") + " 2>&1");
    CHECK(e.status == 2);
    CHECK(e.out.find("the plot tool blksim-plot.py is not in " + t / "nothing.py") != std::string::npos);
}

TEST_CASE("report: bad input to report or --timeseries or the plot tool exits 2 with a message naming it",
          "[report][cli][plots]") {
    TempDir t("bad");
    const std::string qd1 = source_path("scenarios/examples/nullblk-psync-qd1.json");
    struct Case {
        std::string cmd, message;
    };
    const std::vector<Case> blksim_cases = {
        {"report", "report: give a scenario file (or --sweep SWEEP.json)"},
        {"report " + qd1 + " --sweep x.json", "give a scenario or --sweep SWEEP.json, not both"},
        {"report --sweep x.json --seed 2", "--set, --seed and --interval do not apply"},
        {"report " + t / "missing.json", "missing.json"},
        {"report " + qd1 + " --interval 0", "--interval 0: too short (at least 1us)"},
        {"report " + qd1 + " --interval 3q", "--interval 3q: unknown time unit 'q'"},
        {"report --sweep " + qd1, "not a blksim sweep JSON file"},
        {"report " + qd1 + " -o " + t / "no/such/dir/r.html", "/no/such/dir/r.html: its directory does not exist"},
        {"report " + qd1 + " -o " + t.dir.string(), "not a file name"},
        {"run " + qd1 + " --timeseries " + t / "ts.csv --timeseries-interval 500ns", "--timeseries-interval 500ns: too short"},
        {"run " + qd1 + " --timeseries " + t / "no/such/dir/ts.csv", "--timeseries " + t / "no/such/dir/ts.csv: cannot open"},
        {"fio --device nullb --timeseries-interval x --timeseries " + t / "ts.csv -- --name=a --runtime=1ms",
         "--timeseries-interval x:"},
    };
    for (const Case& c : blksim_cases) {
        const auto r = run_blksim(c.cmd);
        INFO(c.cmd << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(c.message) != std::string::npos);
    }

    // The plot tool's own checks, on real blksim output of the wrong kind.
    const std::string plain = t / "plain.json", series = t / "ts.csv";
    REQUIRE(run_blksim("run " + qd1 + " --set jobs.0.runtime=5ms --output-format json -q --timeseries " + series +
                       " --timeseries-interval 1ms > " + plain).status == 0);
    std::ofstream(t / "bad_iops.1.log") << "10, 5, 0, 0, 0\nten, 5, 0\n";
    std::ofstream(t / "short.csv") << "time_ns,nullb0:in_flight\n1000,3,4\n";
    const std::vector<Case> tool_cases = {
        {"cdf " + plain, "no completion-latency bins: run blksim (or fio) with --output-format json+"},
        {"cdf " + series, "not JSON"},
        {"stages " + series, "not JSON"},
        {"depth " + plain, ":1: expected the header of blksim --timeseries"},
        {"depth " + t / "short.csv", "short.csv:2: 3 fields, the header has 2"},
        {"timeline " + plain, "not a fio log name"},
        {"timeline " + t / "bad_iops.1.log", "bad_iops.1.log:2: expected fio's 'time, value, ddir, bs[, offset], prio'"},
        {"sweep " + plain, "not a blksim sweep --json file"},
        {"all -o " + t / "x", "all: give at least one of --json, --timeseries, --logs"},
        {"cdf " + t / "missing.json", "missing.json: cannot open"},
    };
    for (const Case& c : tool_cases) {
        const auto r = shell(plot_tool() + " " + c.cmd + " -o " + t / "out.png 2>&1");
        INFO(c.cmd << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find("blksim-plot: ") != std::string::npos);
        CHECK(r.out.find(c.message) != std::string::npos);
    }
    // Reading the right kind works: the series from `blksim run --timeseries` plots.
    const auto ok = shell(plot_tool() + " depth " + series + " -o " + t / "depth.png 2>&1");
    INFO(ok.out);
    CHECK(ok.status == 0);
}
