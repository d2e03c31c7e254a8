// A model acts ahead of the clock only while no event can come in between (docs/model.md,
// "The same rule for the rest of a task's path"): submissions, the dispatch loop's rounds
// and a task's next step each go on inline only when nothing is due before their instant,
// else they happen at it. The test of that rule: an event that does nothing must change
// nothing. The time series' sampling event only reads the model; one every microsecond
// (--timeseries-interval 1us, far denser than any model event) must leave the report
// byte-identical. nvme-kyber-mixed differed before Cpu::step_end() followed the rule (a
// step granted at its predecessor's end read completions of its own start 3 us early), and
// nullb-prio-requeue under bfq exercises the dispatch loop that chained rounds of one
// injected request each. Without the core hold (a task whose plug flush ran a loop that
// yielded went on submitting while the loop's rounds were still to come) those two
// scenarios differ too: whether the task's next step came before or after the loop's next
// round depended on which events lay between.
#include <catch2/catch.hpp>

#include <string>

#include "test/cli/cli_fixture.h"

namespace {

std::string report(const std::string& args, const std::string& extra) {
    const clitest::CliResult r = clitest::run_blksim("run -q " + args + extra, false);
    INFO(args << extra << "\n" << r.out);
    REQUIRE(r.status == 0);
    return r.out;
}

}  // namespace

TEST_CASE("clock: a no-op event every microsecond changes nothing in a run's report", "[clock][cli]") {
    const clitest::TempDir dir("clock");
    const std::string series = " --timeseries " + dir / "ts.csv" + " --timeseries-interval 1us";
    const std::string cases[] = {
        clitest::source_path("scenarios/examples/nvme-kyber-mixed.json") + " --set jobs.0.runtime=20ms",
        clitest::source_path("scenarios/regress/cases/nullblk-prio.json") +
            " --set devices.0.params.requeue_every=7 --set queues.0.scheduler=bfq",
        clitest::source_path("scenarios/examples/nullblk-mq-deadline-10jobs.json") + " --set jobs.0.runtime=5ms",
        clitest::source_path("scenarios/examples/nullblk-mq-deadline-10jobs.json") +
            " --set jobs.0.runtime=5ms --set queues.0.scheduler=kyber",
        clitest::source_path("scenarios/examples/hdd-bfq-two-readers.json"),
    };
    for (const std::string& c : cases) {
        const std::string plain = report(c, "");
        CHECK(plain.find("IOPS=") != std::string::npos);
        CHECK(report(c, series) == plain);
    }
}
