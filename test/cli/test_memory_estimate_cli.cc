// --mem-limit's estimate (models/topology/memory_estimate.cc) against what blksim takes: for
// machines of a few sizes, the estimate must not be below the run's peak RSS (a limit it
// passes must hold) nor more than twice it (a limit must not refuse what would fit).
// Memory, not time: the child's peak RSS from wait4 is the same on a loaded machine.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli_fixture.h"

extern char** environ;

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

// The peak RSS (bytes) of `blksim run FILE`, from its own rusage.
uint64_t peak_rss(const std::string& file) {
    std::vector<std::string> args{BLKSIM_BINARY, "run", file, "-q", "--mem-limit", "64G", "--output-format", "json"};
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = -1;
    const int err = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    REQUIRE(err == 0);
    int st = 0;
    rusage ru{};
    REQUIRE(wait4(pid, &st, 0, &ru) == pid);
    REQUIRE(WIFEXITED(st));
    REQUIRE(WEXITSTATUS(st) == 0);
    return static_cast<uint64_t>(ru.ru_maxrss) << 10;  // KB on Linux
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
        const double rss = static_cast<double>(peak_rss(file)) / (1 << 20);
        INFO(c.model << " x " << c.devices << ": estimate " << est << " MiB, peak RSS " << rss << " MiB");
        CHECK(est >= rss);
        CHECK(est <= 2 * rss);
    }
}
