// --mem-limit's estimate (models/topology/memory_estimate.cc) against what blksim takes: for
// machines of a few sizes, the estimate must not be below the run's peak RSS (a limit it
// passes must hold) nor more than twice it (a limit must not refuse what would fit).
// Memory, not time: a run's peak RSS is the same on a loaded machine.
#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>

#include "cli_fixture.h"

namespace {

// A machine of `devices` devices of `model` (null_blk or hdd), each with its own queue and
// one fio job at QD32, as scripts/many-devices.py writes them.
std::string machine(const std::string& model, int devices, const std::string& runtime) {
    std::string devs, queues, jobs;
    for (int i = 0; i < devices; ++i) {
        const std::string name = (model == "hdd" ? "sd" : "nullb") + std::to_string(i);
        const std::string sep = i ? "," : "";
        devs += sep + (model == "hdd" ? R"({"name":")" + name + R"(","model":"hdd","profile":"hdd-7200-sata"})"
                                      : R"({"name":")" + name + R"(","model":"null_blk","params":{"irqmode":0,"completion_nsec":0}})");
        queues += sep + R"({"device":")" + name + R"(","scheduler":"none"})";
        jobs += sep + R"({"name":"j)" + std::to_string(i) + R"(","device":")" + name + R"("})";
    }
    return R"({"seed":1,"host":{"cpus":8,"cost_profile":"desktop-8t"},"devices":[)" + devs + R"(],"queues":[)" +
           queues + R"(],"global":{"ioengine":"libaio","direct":1,"rw":"randread","bs":"4k","iodepth":32,"runtime":")" +
           runtime + R"(","time_based":1},"jobs":[)" + jobs + "]}";
}

// The peak RSS (MiB) of `blksim run FILE`, as /usr/bin/time reports it. Not from wait4 here:
// a child's peak counts the memory of the process it was forked from (the whole test
// binary), where /usr/bin/time is small when it forks.
double peak_rss_mib(const std::string& file) {
    const clitest::CliResult r = clitest::shell("/usr/bin/time -f 'peak %M' " + std::string(BLKSIM_BINARY) + " run " +
                                                file + " -q --mem-limit 64G --output-format json 2>&1 >/dev/null");
    REQUIRE(r.status == 0);
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(peak ([0-9]+))")));
    return std::stod(m[1]) / 1024;  // KB
}

// The estimate, from the refusal under a 1 MiB limit: "needs about 27.1 MiB, ...".
double estimate_mib(const std::string& file) {
    const clitest::CliResult r = clitest::run_blksim("run -q " + file + " --mem-limit 1M");
    REQUIRE(r.status == 2);
    std::smatch m;
    REQUIRE(std::regex_search(r.out, m, std::regex(R"(needs about ([0-9.]+) MiB)")));
    return std::stod(m[1]);
}

}  // namespace

TEST_CASE("the memory estimate bounds a machine's peak RSS from above, within 2x", "[cli][mem]") {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    WARN("skipped: a sanitizer's shadow memory is not the program's");
    return;
#endif
    if (access("/usr/bin/time", X_OK) != 0) {
        WARN("skipped: no /usr/bin/time to measure a run's peak RSS");
        return;
    }
    clitest::TempDir t("mem-estimate");
    struct Case {
        std::string model;
        int devices;
        std::string runtime;
    };
    for (const Case& c : {Case{"null_blk", 1, "5ms"}, Case{"null_blk", 256, "2ms"}, Case{"hdd", 1, "1s"},
                          Case{"hdd", 64, "200ms"}}) {
        const std::string file = t / (c.model + std::to_string(c.devices) + ".json");
        std::ofstream(file) << machine(c.model, c.devices, c.runtime);
        const double est = estimate_mib(file);
        const double rss = peak_rss_mib(file);
        INFO(c.model << " x " << c.devices << ": estimate " << est << " MiB, peak RSS " << rss << " MiB");
        CHECK(est >= rss);
        CHECK(est <= 2 * rss);
    }
}
