// compare and sweep on a fio command line (--device D -- <fio args>), converted as blksim fio
// converts it, and the what-if questions of docs/what-if.md run as written there (with short
// runtimes and few replications).
#include <catch2/catch.hpp>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/cli/cli_fixture.h"
#include "test/compare/compare_metric.h"

using clitest::compare_metric;
using clitest::run_blksim;
using clitest::slurp;
using clitest::source_path;
using json = nlohmann::json;

namespace {

const std::string FIO_READS = "--name=r --rw=randread --bs=4k --ioengine=libaio --iodepth=8 --numjobs=4 "
                              "--group_reporting --runtime=30ms --time_based";

// The commands of docs/what-if.md: each "blksim compare ..." of a sh block, its continuation
// lines joined.
std::vector<std::string> whatif_commands() {
    std::istringstream in(slurp(source_path("docs/what-if.md")));
    std::vector<std::string> cmds;
    std::string line, cmd;
    bool in_block = false;
    while (std::getline(in, line)) {
        if (line.starts_with("```")) {
            in_block = line == "```sh";
            continue;
        }
        if (!in_block)
            continue;
        if (cmd.empty() && !line.starts_with("blksim compare "))
            continue;
        const bool more = line.ends_with("\\");
        cmd += line.substr(0, line.size() - (more ? 1 : 0));
        if (!more) {
            cmds.push_back(cmd);
            cmd.clear();
        }
    }
    return cmds;
}

}  // namespace

TEST_CASE("compare: a fio command line on a device, one scheduler per variant", "[cli][compare][whatif]") {
    const auto r = run_blksim("compare --device nvme --a-scheduler none --b-scheduler bfq --runs 2 --jobs 2 "
                              "--output-format json -- " + FIO_READS, false);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    CHECK(j.at("a").at("scenario") == "--device nvme --scheduler none -- " + FIO_READS);
    CHECK(j.at("b").at("scenario") == "--device nvme --scheduler bfq -- " + FIO_READS);
    // bfq's CPU cost on 4 jobs at QD8 is visible: B is not A.
    CHECK(compare_metric(j, "r/read.iops").at("diff").get<double>() != 0.0);

    // The same scheduler on both sides: common random numbers make every difference 0.
    const auto same = run_blksim("compare --device nvme --a-scheduler mq-deadline --b-scheduler mq-deadline --runs 2 "
                                 "--jobs 2 --output-format json -- " + FIO_READS, false);
    REQUIRE(same.status == 0);
    const json same_report = json::parse(same.out);  // a range-for would not keep parse()'s temporary alive
    for (const json& m : same_report.at("metrics"))
        CHECK(m.at("diff").get<double>() == 0.0);

    // A variant's overrides are shown as the options they are, before fio's arguments.
    const auto text = run_blksim("compare --device nvme --b jobs.0.iodepth=2 --runs 2 --jobs 2 -- " + FIO_READS, false);
    REQUIRE(text.status == 0);
    CHECK(text.out.find("  B: --device nvme --set jobs.0.iodepth=2 -- " + FIO_READS + "\n") != std::string::npos);

    // A job file is taken as blksim fio takes it, and --fail-on works on its metrics.
    const clitest::TempDir t("whatif");
    {
        std::ofstream f(t / "reads.fio");
        f << "[global]\nrw=randread\nbs=4k\nioengine=libaio\niodepth=8\nnumjobs=4\ngroup_reporting\n"
             "runtime=30ms\ntime_based\n[r]\n";
    }
    // 4 runs: bfq's cost (about 2.5 %) stands out of the drive's own spread of 30 ms runs.
    const auto file = run_blksim("compare --device nvme --a-scheduler none --b-scheduler bfq --runs 4 --jobs 2 "
                                 "--fail-on read.iops:0.001 -- " + (t / "reads.fio"));
    INFO(file.out);
    CHECK(file.status == 3);
    CHECK(file.out.find("r/read.iops") != std::string::npos);
}

TEST_CASE("sweep: a fio command line on a device, its queue and job values swept", "[cli][compare][whatif]") {
    const auto r = run_blksim("sweep --device nvme --param queues.0.scheduler=none,kyber --param jobs.0.iodepth=1,16 "
                              "--jobs 2 --order index --json - -- " + FIO_READS, false);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    CHECK(j.at("scenario") == "--device nvme -- " + FIO_READS);
    REQUIRE(j.at("points") == 4);
    const auto iops = [&](std::size_t p) {
        for (const json& r : j.at("results"))
            if (r.at("point") == p)
                return r.at("metrics").at("r/read.iops").get<double>();
        FAIL("no point " << p);
        return 0.0;
    };
    CHECK(iops(1) > iops(0));  // iodepth 16 over 1
    CHECK(iops(3) > iops(2));

    // --scheduler applies at every point, as blksim fio --scheduler.
    const auto s = run_blksim("sweep --device nvme --scheduler bfq --param jobs.0.iodepth=1 --json - -- " + FIO_READS,
                              false);
    REQUIRE(s.status == 0);
    CHECK(json::parse(s.out).at("scenario") == "--device nvme --scheduler bfq -- " + FIO_READS);
}

TEST_CASE("compare and sweep: a scenario or a device with fio's arguments, one message when not", "[cli][compare]") {
    const std::string hdd = source_path("scenarios/bench/hdd-randread-qd32.json");
    const auto bad = [](const std::string& args, const std::string& needle) {
        const auto r = run_blksim(args);
        INFO(args << "\n" << r.out);
        CHECK(r.status == 2);
        CHECK(r.out.find(needle) != std::string::npos);
    };
    bad("compare --device nvme --runs 2", "--device needs fio's arguments");
    bad("compare " + hdd + " --runs 2 -- --name=r", "give --device");
    bad("compare " + hdd + " --device nvme -- --name=r", "not both");
    bad("compare --runs 2", "nothing to run");
    bad("sweep --device nvme --param jobs.0.iodepth=1", "--device needs fio's arguments");
    bad("compare --device nvme --b-scenario " + hdd + " -- --name=r", "--b-device");
    bad("compare " + hdd + " --b-device nvme", "--b-device nvme");
    bad("compare --device nvme --runs 2 -- --name=r --output=x.txt", "--output=");
    bad("compare --device nvme --runs 2 -- --name=r --iodeph=4", "did you mean iodepth?");
}

TEST_CASE("docs/what-if.md: each question's command runs and reports its metrics", "[cli][whatif][docs]") {
    const std::vector<std::string> cmds = whatif_commands();
    REQUIRE(cmds.size() == 3);
    for (std::string cmd : cmds) {
        // 2 replications instead of the page's 10 (the runs are short already: a second of
        // simulated time at most, except on the slow HDD); the rest as written.
        cmd = std::regex_replace(cmd, std::regex("--runs [0-9]+"), "--runs 2");
        cmd = cmd.substr(std::string("blksim ").size());
        cmd.insert(cmd.find(" -- "), " --jobs 2 --output-format json");
        const auto r = run_blksim(cmd, false);
        INFO(cmd);
        REQUIRE(r.status == 0);
        const json j = json::parse(r.out);
        CHECK(j.at("metrics").size() >= 6);
        // fio's figures (lock wait, tag sleeps, a stage no request passed may be 0).
        for (const json& m : j.at("metrics")) {
            const std::string k = m.at("metric");
            if (k.find("/read.") != std::string::npos || k.find("/write.") != std::string::npos)
                CHECK(m.at("mean_a").get<double>() > 0.0);
        }
    }
}
