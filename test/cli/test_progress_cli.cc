// The progress line of run and fio: on a terminal (a pseudo-terminal from script(1)) it is
// drawn on stderr and erased, and the report is the same as without it; it stays off without
// a terminal, with -q, and when a trace streams to a terminal's stdout.
#include <string>

#include "test/cli/cli_fixture.h"
#include "tools/experiment/run_progress.h"

using namespace clitest;

namespace {

// Long enough in wall time (about 0.7 s on an idle machine) for the line to be drawn
// (first after 0.1 s) when it is on.
const std::string kScenario = source_path("scenarios/bench/nullblk-32x32.json") + " --set jobs.0.runtime=1s";

// `cmd` run by script(1) on a pseudo-terminal: what appeared on the terminal.
CliResult on_terminal(const std::string& cmd) { return shell("script -qec '" + cmd + "' /dev/null"); }

// A machine without devpts (a bare chroot) has no pseudo-terminal to give: there the cases
// that need one say so and stop, the others still run.
bool have_terminal() {
    static const bool ok = on_terminal("true").status == 0;
    if (!ok)
        WARN("no pseudo-terminal here (script(1) cannot create one): the progress line on a terminal is not tested");
    return ok;
}

}  // namespace

TEST_CASE("progress: the line's fields in fio's shape", "[cli][progress]") {
    blksim::experiment::ProgressSnapshot s;
    s.states = "rrrP_";
    s.done = 0.42;
    s.bytes_per_s[0] = 123.0 * 1024 * 1024;
    s.ios_per_s[0] = 31'500;
    s.eta_s = 5;
    CHECK(blksim::experiment::format_progress_line(s) == "[r(3),P(1),_(1)][42.0%][r=123MiB/s][r=31.5k IOPS][eta 00m:05s]");
    s.bytes_per_s[1] = 19.5 * 1024 * 1024 * 1024;
    s.ios_per_s[1] = 419'000;
    s.eta_s = -1;
    CHECK(blksim::experiment::format_progress_line(s) ==
          "[r(3),P(1),_(1)][42.0%][r=123MiB/s,w=19.5GiB/s][r=31.5k,w=419k IOPS][eta --m:--s]");
}

TEST_CASE("progress: drawn and erased on a terminal, the report unchanged; none without a terminal", "[cli][progress]") {
    TempDir tmp("progress");
    // Without a terminal (stderr to a file): no line.
    const CliResult plain = shell(std::string(BLKSIM_BINARY) + " run " + kScenario + " 2>" + (tmp / "err.txt"));
    REQUIRE(plain.status == 0);
    CHECK(slurp(tmp / "err.txt").find("blksim: simulated") == 0);
    if (!have_terminal())
        return;
    const CliResult term = on_terminal(std::string(BLKSIM_BINARY) + " run " + kScenario + " >" + (tmp / "out.txt"));
    REQUIRE(term.status == 0);
    INFO(term.out);
    CHECK(term.out.find("\rJobs: 32 (f=32): [w(32)][") != std::string::npos);
    CHECK(term.out.find(" IOPS][eta ") != std::string::npos);
    // Erased (spaces over it, back to the column 0) before the run summary.
    const auto last = term.out.rfind("\rJobs: ");
    REQUIRE(last != std::string::npos);
    const auto erase = term.out.find("\r", last + 1);
    REQUIRE(erase != std::string::npos);
    CHECK(term.out.find_first_not_of(' ', erase + 1) == term.out.find("\rblksim: simulated", erase));
    CHECK(slurp(tmp / "out.txt") == plain.out);
}

TEST_CASE("progress: fio's command line shows it too", "[cli][progress]") {
    if (!have_terminal())
        return;
    const CliResult fio = on_terminal(std::string(BLKSIM_BINARY) + " fio --device " +
                                      source_path("scenarios/bench/nullblk-32x32.json") +
                                      " -- --name=w --rw=randwrite --ioengine=io_uring --iodepth=32 --numjobs=32 "
                                      "--thread --runtime=1s --time_based >/dev/null");
    CHECK(fio.status == 0);
    CHECK(fio.out.find("\rJobs: 32 (f=32): [w(32)][") != std::string::npos);
}

TEST_CASE("progress: off with -q and with --timeseries - on a terminal", "[cli][progress]") {
    if (!have_terminal())
        return;
    const CliResult quiet = on_terminal(std::string(BLKSIM_BINARY) + " run -q " + kScenario + " >/dev/null");
    CHECK(quiet.status == 0);
    CHECK(quiet.out.find("Jobs: ") == std::string::npos);
    // The CSV rows go to the terminal as the run goes: the line would cut through them.
    const CliResult series = on_terminal(std::string(BLKSIM_BINARY) + " run --timeseries - " + kScenario);
    CHECK(series.status == 0);
    CHECK(series.out.find("Jobs: ") == std::string::npos);
    CHECK(series.out.find("time_ns,") != std::string::npos);
}
