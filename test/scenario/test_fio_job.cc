// fio input: the job-file and command-line parser (tools/scenario/fio_job.h), the mapping of
// its options onto the job config through the scenario decoder (load_fio_command, a
// scenario's "fio" key), and Debian's fio-examples run through both.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tools/scenario/fio_job.h"
#include "tools/scenario/scenario.h"
#include "tools/scenario/units.h"

namespace {

using namespace blksim;
using namespace sim::literals;
namespace fs = std::filesystem;

// A fresh directory for the job files a test writes, removed at the end of the test.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name)
        : path(fs::temp_directory_path() / ("blksim_test_fio_" + name + "_" + std::to_string(std::random_device{}()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
    std::string write(const std::string& file, const std::string& text) const {
        fs::create_directories((path / file).parent_path());
        std::ofstream(path / file, std::ios::binary) << text;
        return (path / file).string();
    }
};

fio::Environment env(std::map<std::string, std::string> vars = {}) {
    fio::Environment e;
    e.ncpus = 8;
    e.mb_memory = 16384;
    e.pagesize = 4096;
    e.getenv = [vars](const std::string& name) -> std::optional<std::string> {
        const auto it = vars.find(name);
        return it == vars.end() ? std::nullopt : std::optional(it->second);
    };
    return e;
}

fio::Input parse(const std::string& text, const fio::Environment& e = env()) {
    return fio::parse_job_text(text, "job.fio", e);
}

std::string parse_error(const std::string& text, const fio::Environment& e = env()) {
    try {
        parse(text, e);
    } catch (const fio::ParseError& ex) {
        return ex.what();
    }
    FAIL("expected a ParseError");
    return {};
}

std::string cmdline_error(const std::vector<std::string>& args) {
    try {
        fio::parse_command_line(args, env());
    } catch (const fio::ParseError& ex) {
        return ex.what();
    }
    FAIL("expected a ParseError");
    return {};
}

// "name=value" of each option of a job, in order; "name" for one written without a value.
std::vector<std::string> options_of(const fio::Job& j) {
    std::vector<std::string> out;
    for (const auto& o : j.options) out.push_back(o.value ? o.name + "=" + *o.value : o.name);
    return out;
}

// blksim fio on a built-in machine (or a scenario), without running it.
struct FioLoad {
    scenario::FioRun run;
    std::vector<std::string> warnings;
};

FioLoad load_fio(const std::vector<std::string>& args, const std::string& device = "nullb", bool strict = false,
                 const std::vector<std::string>& sets = {}, const std::string& scheduler = "") {
    FioLoad out;
    scenario::FioCommand cmd;
    cmd.device = device;
    cmd.fio_args = args;
    cmd.sets = sets;
    cmd.scheduler = scheduler;
    cmd.policy.strict = strict;
    cmd.policy.warnings = &out.warnings;
    cmd.policy.getenv = [](const std::string&) { return std::optional<std::string>(); };
    out.run = scenario::load_fio_command(cmd);
    return out;
}

std::string fio_error(const std::vector<std::string>& args, const std::string& device = "nullb", bool strict = false,
                      const std::vector<std::string>& sets = {}) {
    try {
        load_fio(args, device, strict, sets);
    } catch (const scenario::ScenarioError& e) {
        return e.what();
    }
    FAIL("expected a ScenarioError");
    return {};
}

std::string src(const std::string& rel) { return std::string(BLKSIM_SOURCE_DIR) + "/" + rel; }

}  // namespace

// --- the parser: job files ---------------------------------------------------------------

TEST_CASE("fio job file: sections, global inheritance, comments, bare options", "[fio]") {
    const fio::Input in = parse(
        "; a comment\n"
        "# another\n"
        "[global]\n"
        "  rw = randread   ; inline comment\n"
        "bs=4k # inline too\n"
        "thread\n"
        "\n"
        "[a]\n"
        "iodepth=8\n"
        "[b]\r\n"
        "bs=8k\r\n"
        "[global]\n"
        "direct=1\n"
        "[c]\n");
    REQUIRE(in.jobs.size() == 3);
    CHECK(in.source == "job.fio");
    CHECK(in.jobs[0].name == "a");
    CHECK(options_of(in.jobs[0]) == std::vector<std::string>{"rw=randread", "bs=4k", "thread", "iodepth=8"});
    // A job's own options come after the inherited ones (a later value wins, as in fio).
    CHECK(options_of(in.jobs[1]) == std::vector<std::string>{"rw=randread", "bs=4k", "thread", "bs=8k"});
    // A [global] section affects only the jobs below it.
    CHECK(options_of(in.jobs[2]) == std::vector<std::string>{"rw=randread", "bs=4k", "thread", "direct=1"});
    // Where each option was written.
    CHECK(in.jobs[0].where.str() == "job.fio:8");
    CHECK(in.jobs[0].options[0].where.str() == "job.fio:4");
    CHECK(in.jobs[0].options[0].raw == "rw = randread");
    CHECK(in.jobs[0].options[3].describe() == "job.fio:9: iodepth=8");
    CHECK_FALSE(in.jobs[0].options[2].value);  // "thread": no value
}

TEST_CASE("fio job file: a section named global* is global, as in fio", "[fio]") {
    const fio::Input in = parse("[global-defaults]\nbs=16k\n[j]\n");
    REQUIRE(in.jobs.size() == 1);
    CHECK(options_of(in.jobs[0]) == std::vector<std::string>{"bs=16k"});
}

TEST_CASE("fio job file: include files, relative to the including file, nested", "[fio]") {
    TempDir dir("include");
    dir.write("blksim-inc/common.fio", "ioengine=libaio\ninclude blksim-deeper.fio\n");
    dir.write("blksim-inc/blksim-deeper.fio", "iodepth=4\n");
    dir.write("blksim-inc/glob.fio", "thread=1\ngroup_reporting=1\n");
    const std::string main = dir.write("main.fio",
                                       "[global]\n"
                                       "include blksim-inc/glob.fio\n"
                                       "[test]\n"
                                       "rw=randread\n"
                                       "include blksim-inc/common.fio\n");
    const fio::Input in = fio::parse_job_file(main, env());
    REQUIRE(in.jobs.size() == 1);
    CHECK(options_of(in.jobs[0]) ==
          std::vector<std::string>{"thread=1", "group_reporting=1", "rw=randread", "ioengine=libaio", "iodepth=4"});
    // An included option names its own file and line.
    CHECK(in.jobs[0].options[4].where.str() == (dir.path / "blksim-inc" / "blksim-deeper.fio").string() + ":1");
}

TEST_CASE("fio job file: include errors name the file and line", "[fio]") {
    TempDir dir("include_errors");
    const std::string missing = dir.write("missing.fio", "[j]\nbs=4k\ninclude nothere.fio\n");
    CHECK_THAT(parse_error(""), Catch::Contains("no jobs defined"));
    try {
        fio::parse_job_file(missing, env());
        FAIL("expected an error");
    } catch (const fio::ParseError& e) {
        CHECK_THAT(e.what(), Catch::StartsWith(missing + ":3: include 'nothere.fio': no such file"));
    }
    // (Names no working directory is likely to hold: fio looks there first.)
    const std::string cyc = dir.write("cycle.fio", "[j]\ninclude blksim-cycle-a.fio\n");
    dir.write("blksim-cycle-a.fio", "bs=4k\ninclude blksim-cycle-b.fio\n");
    dir.write("blksim-cycle-b.fio", "include blksim-cycle-a.fio\n");
    try {
        fio::parse_job_file(cyc, env());
        FAIL("expected an error");
    } catch (const fio::ParseError& e) {
        CHECK_THAT(e.what(), Catch::Contains("blksim-cycle-b.fio:1: include 'blksim-cycle-a.fio': include cycle"));
    }
    const std::string sect = dir.write("sect.fio", "[j]\ninclude blksim-sect-inc.fio\n");
    dir.write("blksim-sect-inc.fio", "[other]\n");
    try {
        fio::parse_job_file(sect, env());
        FAIL("expected an error");
    } catch (const fio::ParseError& e) {
        CHECK_THAT(e.what(), Catch::Contains("blksim-sect-inc.fio:1: '[other]': an included file may not start sections"));
    }
    CHECK_THAT(parse_error("[j]\ninclude\n"), Catch::StartsWith("job.fio:2: include needs a file name"));
}

TEST_CASE("fio job file: $keywords, arithmetic and ${ENV} as fio substitutes them", "[fio]") {
    const fio::Input in = parse(
        "[j]\n"
        "numjobs=$ncpus\n"
        "size=8*$mb_memory\n"
        "bs=$pagesize\n"
        "iodepth=($ncpus+2)*4\n"
        "offset=${OFF}\n"
        "filename=/dev/${DEV}\n"
        "description=${UNSET}x\n"
        "runtime=${mb_memory}\n",  // ${...} is the environment, not a keyword
        env({{"OFF", "1m"}, {"DEV", "nvme0n1"}, {"mb_memory", "7"}}));
    CHECK(options_of(in.jobs[0]) ==
          std::vector<std::string>{"numjobs=8", "size=131072", "bs=4096", "iodepth=40", "offset=1m",
                                   "filename=/dev/nvme0n1", "description=x", "runtime=7"});
    // The raw text is kept for messages.
    CHECK(in.jobs[0].options[4].raw == "offset=${OFF}");

    CHECK(fio::substitute("$ncpus-1", env()) == "7");
    CHECK(fio::substitute("2^10/$ncpus", env()) == "128");
    CHECK(fio::substitute("10-20", env()) == "10-20");  // no keyword: no arithmetic (a range stays a range)
    CHECK(fio::substitute("${mb_memory}k", env({{"mb_memory", "3"}})) == "3k");
    CHECK_THAT(parse_error("[j]\nsize=${SIZE\n"), Catch::StartsWith("job.fio:2: unterminated ${"));
    CHECK_THAT(parse_error("[j]\nsize=$ncpus/0\n"), Catch::StartsWith("job.fio:2: cannot compute '8/0': division by zero"));
    CHECK_THAT(parse_error("[j]\nsize=$ncpus*4k\n"), Catch::StartsWith("job.fio:2: cannot compute '8*4k'"));
}

TEST_CASE("fio job file: malformed input gives one message naming file:line", "[fio]") {
    CHECK_THAT(parse_error("bs=4k\n[j]\n"),
               Catch::StartsWith("job.fio:1: 'bs=4k': option outside of a [section]"));
    CHECK_THAT(parse_error("[j\nbs=4k\n"), Catch::StartsWith("job.fio:1: '[j': a section header is [name]"));
    CHECK_THAT(parse_error("[j]\n[]\n"), Catch::StartsWith("job.fio:2: empty section name"));
    CHECK_THAT(parse_error("[j]\nbs 4k\n"), Catch::StartsWith("job.fio:2: 'bs 4k': expected option=value"));
    CHECK_THAT(parse_error("[j]\n=4k\n"), Catch::StartsWith("job.fio:2: '=4k': option name missing"));
    CHECK_THAT(parse_error(std::string("[j]\nbs=4\0k\n", 11)), Catch::StartsWith("job.fio:2: binary data"));
    CHECK_THAT(parse_error("[global]\nbs=4k\n"), Catch::Contains("no jobs defined"));

    // A 10 MB line: refused by its line number, without trying to make sense of it.
    const std::string big = "[j]\nbs=4k\nfilename=" + std::string(10u << 20, 'x') + "\n";
    CHECK_THAT(parse_error(big), Catch::StartsWith("job.fio:3: line is 10485769 bytes long; at most 8192"));
}

// --- the parser: command lines ------------------------------------------------------------

TEST_CASE("fio command line: --name starts a job, options before it are global", "[fio]") {
    const fio::Input in = fio::parse_command_line(
        {"--rw=randread", "--bs", "8k", "--name=a", "--iodepth=4", "--name=global", "--direct=1", "--name=b", "-thread"},
        env());
    REQUIRE(in.jobs.size() == 2);
    CHECK(in.source == "fio command line");
    CHECK(in.jobs[0].name == "a");
    CHECK(options_of(in.jobs[0]) == std::vector<std::string>{"rw=randread", "bs=8k", "iodepth=4"});
    CHECK(options_of(in.jobs[1]) == std::vector<std::string>{"rw=randread", "bs=8k", "direct=1", "thread"});
    CHECK(in.jobs[0].where.str() == "fio argument 4");
    CHECK(in.jobs[0].options[1].raw == "--bs 8k");  // the value from the next argument
    CHECK_FALSE(in.implicit_job);
}

TEST_CASE("fio command line: the single-dash form of the mailing lists, without --name", "[fio]") {
    // E1 (docs/references.md §8a), verbatim: no job name at all.
    const fio::Input in = fio::parse_command_line(
        {"-ioengine=psync", "-direct=1", "-iodepth=1", "-thread", "-bs=512B", "-size=110g", "-runtime=300",
         "-time_based", "-group_reporting", "-ioscheduler=mq-deadline", "-rw=read"},
        env());
    REQUIRE(in.jobs.size() == 1);
    CHECK(in.implicit_job);
    CHECK(in.jobs[0].name == "job");
    CHECK(options_of(in.jobs[0]) ==
          std::vector<std::string>{"ioengine=psync", "direct=1", "iodepth=1", "thread", "bs=512B", "size=110g",
                                   "runtime=300", "time_based", "group_reporting", "ioscheduler=mq-deadline",
                                   "rw=read"});
}

TEST_CASE("fio command line: job files, fio's own options, --section", "[fio]") {
    TempDir dir("cmdline");
    const std::string a = dir.write("a.fio", "[global]\nbs=8k\n[x]\nrw=read\n[y]\nrw=write\n");
    const std::string b = dir.write("b.fio", "[z]\nrw=randread\n");
    const fio::Input in = fio::parse_command_line(
        {"--output-format=json", "--iodepth=2", a, "--eta=never", b, "--parse-only", "--output", "out.txt"}, env());
    REQUIRE(in.jobs.size() == 3);
    // Command-line options before any --name are defaults for the job files' jobs too.
    CHECK(options_of(in.jobs[0]) == std::vector<std::string>{"iodepth=2", "bs=8k", "rw=read"});
    // Every job file after the first starts with a stonewall; [global] carries over, as in fio.
    CHECK(options_of(in.jobs[2]) == std::vector<std::string>{"iodepth=2", "bs=8k", "stonewall=1", "rw=randread"});
    REQUIRE(in.settings.output_format);
    CHECK(*in.settings.output_format->value == "json");
    REQUIRE(in.settings.output);
    CHECK(*in.settings.output->value == "out.txt");
    CHECK(in.settings.parse_only);
    REQUIRE(in.settings.ignored.size() == 1);
    CHECK(in.settings.ignored[0].name == "eta");

    const fio::Input one = fio::parse_command_line({"--section=y", a}, env());
    REQUIRE(one.jobs.size() == 1);
    CHECK(one.jobs[0].name == "y");
    CHECK(one.source == a);  // a command line of just a job file is named after it
    CHECK(fio::parse_command_line({"--minimal", "--name=x"}, env()).settings.output_format->value == "terse");
}

TEST_CASE("fio command line: malformed arguments", "[fio]") {
    CHECK_THAT(cmdline_error({"--name=x", "--bs"}), Catch::StartsWith("fio argument 2: '--bs': option 'bs' needs a value"));
    CHECK_THAT(cmdline_error({"--name=x", "--b s=4k"}), Catch::StartsWith("fio argument 2: '--b s=4k': expected --option=value"));
    CHECK_THAT(cmdline_error({"--name=x", "nothere.fio"}), Catch::StartsWith("fio argument 2: 'nothere.fio': no such job file"));
    CHECK_THAT(cmdline_error({"--section=q", "--name=x"}), Catch::Contains("no job matches --section q"));
    CHECK_THAT(cmdline_error({"--eta=never"}), Catch::Contains("no jobs defined"));
}

TEST_CASE("fio vocabulary: names, aliases, engine options, closest match", "[fio]") {
    const fio::OptionInfo* rw = fio::find_option("readwrite");
    REQUIRE(rw);
    CHECK(rw->canonical == "rw");
    CHECK(rw->needs_value);
    REQUIRE(fio::find_option("time_based"));
    CHECK_FALSE(fio::find_option("time_based")->needs_value);
    const fio::OptionInfo* hipri = fio::find_option("hipri");
    REQUIRE(hipri);
    CHECK(hipri->of_engine("io_uring"));
    CHECK_FALSE(hipri->of_engine("libaio"));
    CHECK(fio::find_option("threads"));  // accepted by fio (its tiobench profile's), though not listed
    CHECK_FALSE(fio::find_option("iodpeth"));
    CHECK(fio::closest_option("iodpeth") == "iodepth");
    CHECK(fio::closest_option("zzzzzzzzzzzz").empty());
}

// --- fio's unit and range syntax ----------------------------------------------------------

TEST_CASE("units: per-direction rates and integers, cmdprio_bssplit", "[units][fio]") {
    const auto r = units::parse_ddir_rates("1m,500k");
    CHECK(*r.read == 1 << 20);
    CHECK(*r.write == 500 << 10);
    const auto w = units::parse_ddir_rates(",500k");  // writes only
    CHECK_FALSE(w.read);
    CHECK(*w.write == 500 << 10);
    const auto rd = units::parse_ddir_rates("500k,");  // reads only
    CHECK(*rd.read == 500 << 10);
    CHECK_FALSE(rd.write);
    CHECK(*units::parse_ddir_uints("10").write == 10);  // one value: every direction
    CHECK_THROWS_WITH(units::parse_ddir_uints("10,x"), Catch::Contains("expected a non-negative integer, got 'x'"));
    using E = units::CmdprioSplitEntry;
    const auto c = units::parse_cmdprio_bssplit("64k/50/1/2:4k/30:8k/:16k:4k/10/3/0,1m/150");
    // 0 % and percent-less entries dropped, sorted by size (stably), over 100 % counts as 100.
    CHECK(c.read == std::vector<E>{{4096, 30, false, 0, 0}, {4096, 10, true, 3, 0}, {65536, 50, true, 1, 2}});
    CHECK(c.write == std::vector<E>{{1 << 20, 100, false, 0, 0}});
    CHECK(units::parse_cmdprio_bssplit("8k/5").write == units::parse_cmdprio_bssplit("8k/5").read);
    CHECK_THROWS_WITH(units::parse_cmdprio_bssplit("8k/5/x/0"), Catch::Contains("got '8k/5/x/0'"));
    CHECK_THROWS_WITH(units::parse_cmdprio_bssplit("8k/5/1/8"),
                      "priority level 8 in '8k/5/1/8' is out of range (0..7)");
}

TEST_CASE("units: bs ranges, bsrange lists and bssplit", "[units][fio]") {
    using units::SizeRange;
    CHECK(units::parse_size_range("4k-64k") == SizeRange{4096, 65536});
    // fio swaps bounds given backwards; blksim refuses them with both readings.
    CHECK_THROWS_WITH(units::parse_size_range("64k:4k"),
                      "size range '64k:4k' runs backwards (65536 > 4096): write the smaller size first, 4k-64k "
                      "(fio would swap them silently)");
    CHECK(units::parse_size_range("8k") == SizeRange{8192, 8192});
    CHECK(units::parse_size_range("1KiB-2KiB", units::KbBase::B1000) == SizeRange{1024, 2048});
    const auto r = units::parse_ddir_ranges("1k-4k,8k-32k");
    CHECK(*r.read == SizeRange{1024, 4096});
    CHECK(*r.write == SizeRange{8192, 32768});
    CHECK(*r.trim == SizeRange{8192, 32768});
    CHECK(*units::parse_ddir_ranges("1k-4k/8k").write == SizeRange{8192, 8192});

    const auto s = units::parse_bssplit("4k/10:64k/50:32k");
    REQUIRE(s.read);
    CHECK(*s.read == units::BsSplit{{4096, 10}, {65536, 50}, {32768, 40}});
    CHECK(*s.write == *s.read);
    const auto rw = units::parse_bssplit("4k/50:8k/,64k/100");
    CHECK(*rw.read == units::BsSplit{{4096, 50}, {8192, 50}});
    CHECK(*rw.write == units::BsSplit{{65536, 100}});
    CHECK(*units::parse_bssplit("4k:8k:16k").read == units::BsSplit{{4096, 33}, {8192, 33}, {16384, 33}});
    CHECK_THROWS_WITH(units::parse_bssplit("4k/60:8k/50"), Catch::Contains("add up to 110%"));
    CHECK_THROWS_WITH(units::parse_bssplit("4k/x"), Catch::Contains("expected entries like 4k/10:64k/90"));
    CHECK_THROWS_WITH(units::parse_size_range("4k-"), Catch::Contains("expected a size range"));
    // bs takes one size per direction; fio would silently read "4k-64k" as "4k,64k".
    CHECK_THROWS_WITH(units::parse_ddir_sizes("4k-64k"), Catch::Contains("bsrange=4k-64k"));
    CHECK(units::parse_size_or_percent("25%").percent == 25);
}

// --- the mapping onto the job config ------------------------------------------------------

TEST_CASE("blksim fio: options map onto the job config through the scenario decoder", "[fio]") {
    const FioLoad l = load_fio({"--blocksize=8k,16k", "--readwrite=randrw", "--rwmixwrite=30", "--name=a",
                               "--ioengine=libaio", "--iodepth=32", "--iodepth_batch=8", "--numjobs=$ncpus",
                               "--runtime=2s", "--time_based", "--size=10%", "--offset=1g", "--group_reporting",
                               "--cpus_allowed=0-3", "--randseed=7", "--cmdprio_percentage=10", "--timeout=3s",
                               "--filename=/dev/nullb0", "--thread", "--lockmem=1m", "--norandommap"});
    CHECK(l.warnings.empty());
    const auto& m = l.run.scenario.machine;
    REQUIRE(m.jobs.size() == 1);
    const auto& j = m.jobs[0];
    CHECK(j.name == "a");
    CHECK(j.device == "nullb0");
    CHECK(j.ioengine == workload::IoEngine::LIBAIO);
    CHECK(j.rw == workload::RwPattern::RANDRW);
    CHECK(j.rwmixread == 70);
    CHECK(j.bs_read == 8192);
    CHECK(j.bs_write == 16384);
    CHECK(j.iodepth == 32);
    CHECK(j.iodepth_batch_submit == 8);
    CHECK(j.numjobs == 8);        // $ncpus: the simulated host's (desktop-8t)
    CHECK(j.runtime == 3_s);      // timeout= is fio's alias of runtime; the later value wins
    CHECK(j.time_based);
    CHECK(j.size == 25'000'000'000ULL);  // 10 % of null_blk's 250 GB
    CHECK(j.offset == 1ULL << 30);
    CHECK(j.cpus_allowed == std::vector<uint32_t>{0, 1, 2, 3});
    REQUIRE(j.randseed);
    CHECK(*j.randseed == 7);
    CHECK(j.cmdprio[0].percentage == 10);
    CHECK(j.cmdprio[1].percentage == 10);
    CHECK(l.run.scenario.output.group_reporting);
    CHECK(m.queues.at(0).scheduler == "none");
}

TEST_CASE("blksim fio: ioscheduler= switches the machine's scheduler; --scheduler overrides it", "[fio]") {
    CHECK(load_fio({"--name=a", "--ioscheduler=mq-deadline"}).run.scenario.machine.queues[0].scheduler == "mq-deadline");
    // The E3 scenarios' machine has mq-deadline or none set; the job's choice wins, as in fio.
    const FioLoad e3 = load_fio({"--name=a", "--ioscheduler=none"}, src("scenarios/seeds/e3-nvme-jobs1-4k-mq-deadline.json"));
    CHECK(e3.run.scenario.machine.queues[0].scheduler == "none");
    CHECK(e3.run.scenario.machine.jobs.size() == 1);  // the scenario's own jobs are replaced
    CHECK(e3.run.scenario.machine.host.nr_cpus == 32);
    const FioLoad over = load_fio({"--name=a", "--ioscheduler=none"}, "nullb", false, {}, "mq-deadline");
    CHECK(over.run.scenario.machine.queues[0].scheduler == "mq-deadline");
    REQUIRE(over.warnings.size() == 1);
    CHECK_THAT(over.warnings[0], Catch::Contains("fio argument 2: --ioscheduler=none: replaced by --scheduler mq-deadline"));
    // Two jobs that want different schedulers on one device conflict.
    CHECK_THAT(fio_error({"--name=a", "--ioscheduler=none", "--name=b", "--ioscheduler=mq-deadline"}),
               Catch::StartsWith("fio argument 4: --ioscheduler=mq-deadline: ioscheduler 'mq-deadline' conflicts "
                                 "with scheduler 'none' of nullb0 set at fio argument 2: --ioscheduler=none"));
}

TEST_CASE("blksim fio: bsrange and bssplit become the job's block size ranges", "[fio]") {
    // One size per direction is plain bs.
    const auto j = load_fio({"--name=a", "--bsrange=8k-8k,16k:16k"}).run.scenario.machine.jobs[0];
    CHECK(j.bs_read == 8192);
    CHECK(j.bs_write == 16384);
    CHECK(j.bs_range[0].max == 0);
    const auto k = load_fio({"--name=a", "--bssplit=32k/100"}).run.scenario.machine.jobs[0];
    CHECK(k.bs_read == 32768);
    CHECK(k.bs_write == 32768);
    CHECK(k.bs_range[1].split.empty());
    // A range per direction: the smallest size is bs, the largest the range's max; bsrange
    // wins over bs.
    const FioLoad r = load_fio({"--name=a", "--bs=16k", "--bsrange=4k-16k,8k-32k"});
    CHECK(r.warnings.empty());
    const auto& rj = r.run.scenario.machine.jobs[0];
    CHECK(rj.bs_read == 4096);
    CHECK(rj.bs_range[0].max == 16384);
    CHECK(rj.bs_write == 8192);
    CHECK(rj.bs_range[1].max == 32768);
    // bssplit per direction, entries without a percentage sharing what is left.
    const FioLoad s = load_fio({"--name=a", "--bssplit=4k/50:1k/:32k/,8k/90:16k"});
    CHECK(s.warnings.empty());
    const auto& sj = s.run.scenario.machine.jobs[0];
    CHECK(sj.bs_read == 1024);
    CHECK(sj.bs_range[0].max == 32768);
    CHECK(sj.bs_range[0].split ==
          std::vector<workload::BsSplitEntry>{{4096, 50}, {1024, 25}, {32768, 25}});
    CHECK(sj.bs_range[1].split == std::vector<workload::BsSplitEntry>{{8192, 90}, {16384, 10}});
    CHECK(load_fio({"--name=a", "--bs_unaligned", "--bsrange=4k-6k"}).run.scenario.machine.jobs[0].bs_unaligned);
    const auto ba = load_fio({"--name=a", "--rw=randread", "--ba=8k,16k"}).run.scenario.machine.jobs[0];
    CHECK(ba.blockalign[0] == 8192);
    CHECK(ba.blockalign[1] == 16384);
    // Bad values name the argument and what is allowed.
    CHECK_THAT(fio_error({"--name=a", "--bssplit=4k/70:64k/50"}), Catch::StartsWith("fio argument 2: --bssplit=4k/70:64k/50: bssplit percentages add up to 120%"));
    CHECK_THAT(fio_error({"--name=a", "--bsrange=4k-64q"}), Catch::StartsWith("fio argument 2: --bsrange=4k-64q: unknown size unit 'q'"));
    CHECK_THAT(fio_error({"--name=a", "--bsrange=1000-4k"}),
               Catch::StartsWith("fio argument 2: --bsrange=1000-4k: block size 1000 (read) is not a multiple of 512"));
    CHECK_THAT(fio_error({"--name=a", "--bsrange=4k-16k,64k-8k"}),
               Catch::StartsWith("fio argument 2: --bsrange=4k-16k,64k-8k: size range '64k-8k' runs backwards"));
    CHECK_THAT(fio_error({"--name=a", "--bssplit=4k/50:256m/50"}),
               Catch::StartsWith("fio argument 2: --bssplit=4k/50:256m/50: block size 268435456 (read) is out of range"));
    CHECK_THAT(fio_error({"--name=a", "--bsrange=4k-8k", "--bssplit=4k/50:8k/50"}),
               Catch::StartsWith("fio argument 3: --bssplit=4k/50:8k/50: give either bsrange or bssplit, not both"));
    CHECK_THAT(fio_error({"--name=a", "--size=16k", "--bsrange=4k-64k"}),
               Catch::Contains("size 16384 is smaller than the block size 65536"));
}

TEST_CASE("blksim fio: rate, rate_iops, rate_min, rate_process, rate_cycle per direction", "[fio]") {
    const FioLoad l = load_fio({"--name=a", "--rw=randrw", "--bs=4k,64k", "--rate=1m,", "--rate_iops=,100",
                                "--rate_min=512k", "--rate_process=poisson", "--ratecycle=500",
                                "--rate_ignore_thinktime=1"});
    CHECK(l.warnings.empty());
    const auto& r = l.run.scenario.machine.jobs[0].rate;
    CHECK(r.bps[0] == 1 << 20);
    CHECK(r.bps[1] == 100 * 65536);  // rate_iops in bytes with the direction's smallest size
    CHECK(r.iops[1] == 100);
    CHECK(r.min_bps[0] == 512 << 10);
    CHECK(r.min_bps[1] == 512 << 10);
    CHECK(r.by_bytes[0]);
    CHECK(r.poisson);
    CHECK(r.cycle == 500_ms);
    CHECK(r.ignore_thinktime);
    // fio's suffixes: rate_iops=1k is 1024, rate=1MiB is 10^6 bytes in fio's default kb_base.
    CHECK(load_fio({"--name=a", "--rate_iops=1k"}).run.scenario.machine.jobs[0].rate.bps[0] == 1024 * 4096);
    CHECK(load_fio({"--name=a", "--rate=1MiB"}).run.scenario.machine.jobs[0].rate.bps[0] == 1000000);
    // Bad values: one message naming the argument.
    CHECK_THAT(fio_error({"--name=a", "--rate=1m", "--rate_min=2m"}),
               Catch::StartsWith("fio argument 3: --rate_min=2m: rate_min 2097152 (reads) exceeds rate 1048576 "
                                 "(fio refuses it: \"minimum rate exceeds rate\")"));
    CHECK_THAT(fio_error({"--name=a", "--rate=1q"}), Catch::StartsWith("fio argument 2: --rate=1q: unknown size unit 'q'"));
    CHECK_THAT(fio_error({"--name=a", "--rate_process=bursty"}), Catch::StartsWith("fio argument 2: --rate_process=bursty:"));
    CHECK_THAT(fio_error({"--name=a", "--rate=1k", "--rate_process=poisson"}),
               Catch::Contains("rate_process=poisson needs at least one block per second (reads)"));
    CHECK_THAT(fio_error({"--name=a", "--rate_cycle=0"}), Catch::StartsWith("fio argument 2: --rate_cycle=0:"));
}

TEST_CASE("blksim fio: thinktime and its settings", "[fio]") {
    const auto j = load_fio({"--name=a", "--thinktime=250", "--thinktime_spin=100us", "--thinktime_blocks=8",
                             "--thinktime_blocks_type=issue", "--thinktime_iotime=2"})
                       .run.scenario.machine.jobs[0];
    CHECK(j.thinktime.time == 250_us);  // microseconds without a unit
    CHECK(j.thinktime.spin == 100_us);
    CHECK(j.thinktime.blocks == 8);
    CHECK(j.thinktime.blocks_set);
    CHECK(j.thinktime.blocks_issue);
    CHECK(j.thinktime.iotime == 2_s);  // seconds without a unit
    CHECK_FALSE(load_fio({"--name=a", "--thinktime=1ms"}).run.scenario.machine.jobs[0].thinktime.blocks_set);
    CHECK_THAT(fio_error({"--name=a", "--thinktime=5parsecs"}), Catch::StartsWith("fio argument 2: --thinktime=5parsecs: unknown time unit"));
    CHECK_THAT(fio_error({"--name=a", "--thinktime_blocks=0"}), Catch::StartsWith("fio argument 2: --thinktime_blocks=0:"));
    CHECK_THAT(fio_error({"--name=a", "--thinktime_blocks_type=sometimes"}),
               Catch::StartsWith("fio argument 2: --thinktime_blocks_type=sometimes:"));
}

TEST_CASE("blksim fio: cmdprio_bssplit in its two forms, per direction", "[fio]") {
    using workload::CmdprioSplit;
    const auto j = load_fio({"--name=a", "--ioengine=libaio", "--rw=randrw", "--bssplit=4k/50:64k/50",
                             "--cmdprio_class=2,3", "--cmdprio=4", "--cmdprio_bssplit=64k/50/1/0:4k/20:64k/30/1/2,4k/"})
                       .run.scenario.machine.jobs[0];
    // Sorted by size, the 2-field entry with its direction's cmdprio_class/cmdprio; 0 % dropped.
    CHECK(j.cmdprio[0].bssplit == std::vector<CmdprioSplit>{{4096, 20, 2, 4}, {65536, 50, 1, 0}, {65536, 30, 1, 2}});
    CHECK(j.cmdprio[1].bssplit.empty());
    CHECK(j.uses_prio());
    const auto k = load_fio({"--name=a", "--ioengine=io_uring", "--cmdprio_bssplit=8k/10"}).run.scenario.machine.jobs[0];
    CHECK(k.cmdprio[0].bssplit == std::vector<CmdprioSplit>{{8192, 10, 1, 0}});  // RT by default
    CHECK(k.cmdprio[1].bssplit == k.cmdprio[0].bssplit);  // one list: both directions
    const auto p = load_fio({"--name=a", "--ioengine=libaio", "--cmdprio_percentage=10,30", "--cmdprio_class=3"})
                       .run.scenario.machine.jobs[0];
    CHECK(p.cmdprio[0].percentage == 10);
    CHECK(p.cmdprio[1].percentage == 30);
    CHECK(p.cmdprio[1].ioprio_class == 3);
    CHECK_THAT(fio_error({"--name=a", "--ioengine=libaio", "--cmdprio_bssplit=64k/60/1/0:64k/50"}),
               Catch::StartsWith("fio argument 3: --cmdprio_bssplit=64k/60/1/0:64k/50: the percentages for block size "
                                 "65536 (reads) add up to 110%"));
    CHECK_THAT(fio_error({"--name=a", "--ioengine=libaio", "--cmdprio_percentage=10", "--cmdprio_bssplit=64k/50"}),
               Catch::StartsWith("fio argument 4: --cmdprio_bssplit=64k/50: cmdprio_percentage and cmdprio_bssplit are "
                                 "mutually exclusive"));
    CHECK_THAT(fio_error({"--name=a", "--ioengine=libaio", "--cmdprio_bssplit=64k/50/1"}),
               Catch::Contains("(fio 3.33 takes 2 or 4 fields)"));
    CHECK_THAT(fio_error({"--name=a", "--ioengine=libaio", "--cmdprio_bssplit=64k/50/4/0"}),
               Catch::Contains("priority class 4 in '64k/50/4/0' is out of range (1 RT, 2 BE, 3 IDLE)"));
    CHECK_THAT(fio_error({"--name=a", "--ioengine=libaio", "--cmdprio_percentage=10,101"}),
               Catch::StartsWith("fio argument 3: --cmdprio_percentage=10,101: 101 is out of range (allowed: 0..100)"));
    CHECK_THAT(fio_error({"--name=a", "--cmdprio_bssplit=64k/50"}),
               Catch::Contains("'cmdprio_bssplit' is an option of the ioengines"));
}

TEST_CASE("blksim fio: unsupported options are listed in one warning, or refused with --strict", "[fio]") {
    TempDir dir("unsupported");
    const std::string f = dir.write("j.fio",
                                    "[global]\n"
                                    "verify_backlog=16\n"
                                    "filesize=10m\n"
                                    "[a]\n"
                                    "rw=randread:8\n"
                                    "[b]\n"
                                    "loops=3\n"
                                    "verify_backlog=0\n");  // b turns it off again: only a has it
    const FioLoad l = load_fio({f});
    REQUIRE(l.warnings.size() == 1);
    CHECK(l.warnings[0] == f + ": blksim does not support these fio options and runs without them: verify_backlog=16 at " +
                               f + ":2; filesize=10m at " + f + ":3; rw=randread:8 (the :8 offset modifier, runs as "
                               "rw=randread) at " + f + ":5; loops=3 at " + f + ":7 (--strict refuses them)");
    CHECK(l.run.scenario.machine.jobs.size() == 2);  // both run
    CHECK(l.run.scenario.machine.jobs[0].rw == workload::RwPattern::RANDREAD);

    CHECK(fio_error({f}, "nullb", /*strict=*/true) ==
          f + ": fio options blksim does not support: verify_backlog=16 at " + f + ":2; filesize=10m at " + f + ":3; rw=randread:8 "
              "(the :8 offset modifier, runs as rw=randread) at " + f + ":5; loops=3 at " + f + ":7 (refused "
              "by --strict, ignored without it)");
    // direct=0 asks for the page cache, which is not modelled.
    CHECK_THAT(load_fio({"--name=a", "--direct=0"}).warnings.at(0), Catch::Contains("direct=0 (buffered I/O"));
    // Options of no consequence are accepted silently.
    CHECK(load_fio({"--name=a", "--randrepeat=0", "--invalidate=1", "--gtod_reduce=1", "--verify=0", "--loops=1",
                    "--description=x y", "--directory=/mnt", "--exitall"})
              .warnings.empty());
}

TEST_CASE("blksim fio: an engine, pattern or scheduler blksim lacks is always refused, with the rest", "[fio]") {
    const std::string e = fio_error({"--name=n", "--ioengine=net", "--port=8888", "--verify_backlog=16", "--rw=trim"});
    CHECK_THAT(e, Catch::StartsWith("fio command line: fio options blksim does not support: --ioengine=net (blksim's "
                                    "engines: psync, pvsync, sync, libaio, io_uring, pvsync2, null) at fio argument 2"));
    CHECK_THAT(e, Catch::Contains("--port=8888 at fio argument 3; --verify_backlog=16 at fio argument 4"));
    CHECK_THAT(fio_error({"--name=n", "--ioscheduler=cfq"}), Catch::Contains("--ioscheduler=cfq (blksim's schedulers: none, mq-deadline, kyber, bfq"));
    // Options of an engine fio's vocabulary lacks (http is not built into Debian's fio).
    CHECK_THAT(fio_error({"--name=n", "--ioengine=http", "--http_host=x"}),
               Catch::Contains("--http_host=x (an option of ioengine=http?) at fio argument 3"));
    // fio's own options blksim cannot honour.
    CHECK_THAT(fio_error({"--client=host1", "--name=n"}),
               Catch::Contains("--client=host1 (an option of the fio program, not of a job) at fio argument 1"));
}

TEST_CASE("blksim fio: bad options and values name the file and line", "[fio]") {
    TempDir dir("errors");
    const std::string f = dir.write("bad.fio", "[global]\nioengine=libaio\n\n[a]\nbs=4q\n");
    CHECK_THAT(fio_error({f}), Catch::StartsWith(f + ":5: bs=4q: unknown size unit 'q' in '4q'"));
    const std::string g = dir.write("bad2.fio", "[a]\niodepth=0\n");
    CHECK_THAT(fio_error({g}), Catch::StartsWith(g + ":2: iodepth=0: 0 is out of range (allowed: 1..65536)"));
    const std::string h = dir.write("bad3.fio", "[a]\nruntime=10parsecs\n");
    CHECK_THAT(fio_error({h}), Catch::StartsWith(h + ":2: runtime=10parsecs: unknown time unit 'parsecs'"));
    CHECK(fio_error({"--name=a", "--iodpeth=4"}) == "fio argument 2: --iodpeth=4: unknown fio option 'iodpeth' (did you mean iodepth?)");
    CHECK(fio_error({"--name=a", "--hipri"}) ==
          "fio argument 2: --hipri: 'hipri' is an option of the ioengines io_uring io_uring_cmd pvsync2 sg, not of "
          "ioengine=psync (fio refuses it: \"Bad option\")");
    CHECK(fio_error({"--name=a", "--rw=${RW}"}) ==
          "fio argument 2: --rw=${RW}: empty value (an environment variable that is not set gives '', as in fio)");
    CHECK_THAT(fio_error({"--name=a", "--size=300g"}),
               Catch::StartsWith("fio argument 2: --size=300g: offset + size (0 + 322122547200 bytes) is beyond the end of nullb0"));
    CHECK_THAT(fio_error({"--name=a", "--output-format=xml"}),
               Catch::StartsWith("fio argument 2: --output-format=xml: \"xml\" is not a fio output format (allowed: "
                                 "normal, json, json+, terse, or a comma-separated list"));
    CHECK_THAT(fio_error({"--name=a"}, "nosuchdevice"), Catch::StartsWith("--device 'nosuchdevice': not a scenario file"));
}

TEST_CASE("blksim fio: fio's settings and --set on the jobs", "[fio]") {
    const FioLoad l = load_fio({"--output-format=json", "--parse-only", "--output=x.txt", "--name=a", "--runtime=10s"},
                               "nvme", false, {"jobs.0.runtime=5ms", "host.cpus=4"});
    CHECK(l.run.scenario.output.formats == "json");
    CHECK(l.run.parse_only);
    CHECK(l.run.output_file == "x.txt");
    CHECK(l.run.scenario.machine.jobs[0].runtime == 5_ms);
    CHECK(l.run.scenario.machine.host.nr_cpus == 4);
    CHECK(l.run.scenario.machine.devices[0].name == "nvme0n1");
    // $ncpus follows --set host.cpus.
    CHECK(load_fio({"--name=a", "--numjobs=$ncpus"}, "nvme", false, {"host.cpus=3"}).run.scenario.machine.jobs[0].numjobs == 3);
}

TEST_CASE("blksim fio: filename=/dev/NAME picks the device of a machine with several", "[fio]") {
    TempDir dir("devices");
    const std::string scen = dir.write("two.json", R"({
      "host": { "cost_profile": "desktop-8t" },
      "devices": [ { "name": "nullb0", "model": "null_blk" }, { "name": "nullb1", "model": "null_blk" } ],
      "jobs": [ { "name": "x", "device": "nullb0" } ] })");
    const auto& jobs = load_fio({"--name=a", "--filename=/dev/nullb1", "--name=b", "--filename=nullb0"}, scen)
                           .run.scenario.machine.jobs;
    REQUIRE(jobs.size() == 2);
    CHECK(jobs[0].device == "nullb1");
    CHECK(jobs[1].device == "nullb0");
    CHECK_THAT(fio_error({"--name=a", "--filename=/dev/sdz"}, scen),
               Catch::StartsWith("fio argument 1: job 'a': no device given and the scenario has 2 devices; add \"device\": "
                                 "one of nullb0, nullb1 (in a fio job: filename=/dev/NAME)"));
}

TEST_CASE("a scenario may take its jobs from a fio job file", "[fio][scenario]") {
    TempDir dir("scenario_fio");
    dir.write("jobs/e.fio", "[global]\nioengine=libaio\nnumjobs=$ncpus\n[r]\nrw=randread\niodepth=16\nverify_backlog=16\n");
    const std::string scen = dir.write("s.json", R"({
      "host": { "cpus": 4, "cost_profile": "desktop-8t" },
      "devices": [ { "name": "nullb0", "model": "null_blk" } ],
      "fio": "jobs/e.fio" })");
    std::vector<std::string> warnings;
    scenario::FioPolicy policy;
    policy.warnings = &warnings;
    const scenario::Scenario s = scenario::load_scenario(scen, {"jobs.0.iodepth=8"}, policy);
    REQUIRE(s.machine.jobs.size() == 1);
    CHECK(s.machine.jobs[0].name == "r");
    CHECK(s.machine.jobs[0].numjobs == 4);  // $ncpus is the scenario's host
    CHECK(s.machine.jobs[0].iodepth == 8);  // --set reaches the job file's jobs
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings[0], Catch::Contains("verify_backlog=16 at " + (dir.path / "jobs" / "e.fio").string() + ":7"));

    policy.strict = true;
    CHECK_THROWS_WITH(scenario::load_scenario(scen, {}, policy), Catch::Contains("fio options blksim does not support: verify_backlog=16"));

    const std::string both = dir.write("both.json", R"({
      "host": { "cost_profile": "desktop-8t" }, "devices": [ { "name": "n", "model": "null_blk" } ],
      "fio": "jobs/e.fio", "jobs": [ { "name": "x" } ] })");
    CHECK_THROWS_WITH(scenario::load_scenario(both), Catch::StartsWith(both + ": /fio: a scenario takes its jobs either from"));
    const std::string missing = dir.write("missing.json", R"({
      "host": { "cost_profile": "desktop-8t" }, "devices": [ { "name": "n", "model": "null_blk" } ], "fio": "nope.fio" })");
    CHECK_THROWS_WITH(scenario::load_scenario(missing), Catch::Contains("nope.fio': no such file"));
}

// --- Debian's fio-examples ----------------------------------------------------------------

namespace {

// The machine of the right kind for an example: block-device jobs go to the NVMe model,
// surface scans and disk profiles to a hard disk, zoned and persistent-memory ones nowhere
// (they are refused for their options anyway).
std::string device_for(const std::string& file) {
    static const std::set<std::string> hdd = {"disk-zone-profile.fio", "surface-scan.fio", "fio-seq-read.fio",
                                              "fio-seq-write.fio", "fio-seq-RW.fio", "backwards-read.fio",
                                              "butterfly.fio", "tiobench-example.fio"};
    const bool have_hdd = fs::exists(fs::path(scenario::default_scenario_dir()) / "devices" / "hdd-7200-sata.json");
    return hdd.count(file) && have_hdd ? "hdd-7200-sata" : "nvme";
}

}  // namespace

TEST_CASE("Debian's fio-examples: each runs or is refused naming its unsupported options", "[fio][fio-examples]") {
    const fs::path dir = "/usr/share/doc/fio/examples";
    if (!fs::is_directory(dir)) FAIL("Debian's fio-examples is not installed (scripts/setup.sh installs it)");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".fio") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    CHECK(files.size() == 86);

    // Values for the ${VAR}s some examples expect from the environment (their comments say so).
    const std::map<std::string, std::string> vars = {{"FIO_RW", "randread"}, {"FIO_BS", "4k"}, {"FIO_IODEPTH", "1"}};
    int strict_ok = 0, lenient_ok = 0, refused = 0;
    std::string strict_names;
    std::map<std::string, int> unsupported_count;
    for (const fs::path& f : files) {
        INFO(f.string());
        scenario::FioCommand cmd;
        cmd.device = device_for(f.filename().string());
        cmd.fio_args = {"--parse-only", f.string()};
        cmd.policy.getenv = [&](const std::string& n) {
            const auto it = vars.find(n);
            return it == vars.end() ? std::optional<std::string>("x") : std::optional(it->second);
        };
        std::vector<std::string> warnings;
        cmd.policy.warnings = &warnings;
        // Without --strict: runs unless it needs an engine, pattern or scheduler blksim lacks.
        try {
            const scenario::FioRun run = scenario::load_fio_command(cmd);
            CHECK(run.parse_only);
            CHECK_FALSE(run.scenario.machine.jobs.empty());
            ++lenient_ok;
        } catch (const scenario::ScenarioError& e) {
            const std::string msg = e.what();
            CHECK_THAT(msg, Catch::StartsWith(f.string() + ": fio options blksim does not support: ") ||
                                Catch::StartsWith(f.string() + ":"));
        }
        // With --strict: runs only when every option is modelled or of no consequence.
        cmd.policy.strict = true;
        warnings.clear();
        try {
            (void)scenario::load_fio_command(cmd);
            ++strict_ok;
            strict_names += f.filename().string() + " ";
        } catch (const scenario::ScenarioError& e) {
            ++refused;
            const std::string msg = e.what();
            const std::string head = f.string() + ": fio options blksim does not support: ";
            if (msg.starts_with(head)) {
                // Count each option once per file.
                std::set<std::string> names;
                std::string rest = msg.substr(head.size());
                for (size_t p = 0; p < rest.size();) {
                    const size_t end = rest.find_first_of("=( ", p);
                    names.insert(rest.substr(p, end - p));
                    const size_t next = rest.find("; ", p);
                    p = next == std::string::npos ? rest.size() : next + 2;
                }
                for (const auto& n : names) ++unsupported_count[n];
            } else {
                // Not a list of unsupported options: a value fio itself would refuse, named by file:line.
                CHECK_THAT(msg, Catch::StartsWith(f.string() + ":"));
            }
        }
    }
    std::vector<std::pair<int, std::string>> top;
    for (const auto& [n, c] : unsupported_count) top.emplace_back(-c, n);
    std::sort(top.begin(), top.end());
    std::string summary;
    for (size_t i = 0; i < std::min<size_t>(12, top.size()); ++i)
        summary += top[i].second + " " + std::to_string(-top[i].first) + ", ";
    WARN("fio-examples: " << files.size() << " files; " << lenient_ok << " run (" << strict_ok
                          << " with --strict: " << strict_names << "), " << files.size() - lenient_ok << " refused ("
                          << refused << " with --strict); most common unsupported (files): " << summary);
    // The counts docs/usage.md and docs/fio.md state; update them together.
    CHECK(lenient_ok == 34);  // null.fio and zipf.fio since the null engine, enospc-pressure.fio since trims
    CHECK(strict_ok == 15);
}
