// `blksim compare --exact`: A and B run once each with the same seed and a request trace,
// and the first trace line where they differ is printed, or "identical".
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "test/cli/cli_fixture.h"

using clitest::run_blksim;
using clitest::source_path;

namespace {

const std::string HDD = source_path("scenarios/bench/hdd-randread-qd32.json");
// 128 reads in flight on a disk that queues 32: mq-deadline holds the rest and chooses.
const std::string SHORT =
    " --set jobs.0.runtime=300ms --set jobs.0.iodepth=128 --a-scheduler mq-deadline --b-scheduler mq-deadline ";

// The event the report names for `label` ("  B: time 0.012, cpu 1, D, sector 2048"):
// its time and action.
std::pair<double, std::string> event(const std::string& out, const std::string& label) {
    const auto at = out.find("\n  " + label + ": time ");
    REQUIRE(at != std::string::npos);
    std::istringstream in(out.substr(at + label.size() + 10));
    double time = -1;
    std::string cpu_word, cpu, action;
    char comma = 0;
    in >> time >> comma >> cpu_word >> cpu >> action;
    if (!action.empty() && action.back() == ',')
        action.pop_back();
    return {time, action};
}

}  // namespace

TEST_CASE("compare --exact: A against itself is identical, in this binary and in another", "[compare][cli]") {
    const auto same = run_blksim("compare --exact " + HDD + SHORT);
    INFO(same.out);
    CHECK(same.status == 0);
    CHECK_THAT(same.out, Catch::Contains("identical: ") && Catch::Contains(" lines"));
    CHECK_THAT(same.out, !Catch::Contains("differ"));

    const auto other = run_blksim("compare --exact " + HDD + SHORT + "--b-binary " + std::string(BLKSIM_BINARY));
    INFO(other.out);
    CHECK(other.status == 0);
    CHECK_THAT(other.out, Catch::Contains("identical: "));
}

TEST_CASE("compare --exact: a tunable change is found at the first dispatch it moves", "[compare][cli]") {
    // With read_expire=20 ms the first read older than 20 ms is dispatched ahead of the
    // sector sweep (500 ms: not yet in A): the runs are the same until that D.
    const auto diff = run_blksim("compare --exact " + HDD + SHORT + "--b 'queues.0.iosched.read_expire=20'");
    INFO(diff.out);
    CHECK(diff.status == 3);
    REQUIRE_THAT(diff.out, Catch::Contains("the traces differ first at line "));
    const auto [ta, aa] = event(diff.out, "A");
    const auto [tb, ab] = event(diff.out, "B");
    CHECK(ta > 0.0);
    CHECK(ta == tb);
    CHECK(aa == "D");
    CHECK(ab == "D");
    CHECK_THAT(diff.out, Catch::Contains("  A> ") && Catch::Contains("  B> "));
}

TEST_CASE("compare --exact: options of the statistical comparison and a missing binary are refused",
          "[compare][cli]") {
    const auto fail_on = run_blksim("compare --exact " + HDD + SHORT + "--fail-on read.iops:1");
    CHECK(fail_on.status == 2);
    CHECK_THAT(fail_on.out, Catch::Contains("--fail-on goes with the statistical comparison"));
    const auto binary = run_blksim("compare " + HDD + SHORT + "--b-binary /bin/true");
    CHECK(binary.status == 2);
    CHECK_THAT(binary.out, Catch::Contains("--b-binary /bin/true: goes with --exact"));
    const auto missing = run_blksim("compare --exact " + HDD + SHORT + "--b-binary /nonexistent/blksim");
    CHECK(missing.status == 2);
    CHECK_THAT(missing.out, Catch::Contains("/nonexistent/blksim: cannot run it"));
}
