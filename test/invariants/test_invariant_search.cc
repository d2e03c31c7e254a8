// The randomized invariant search: many small random scenarios (random_scenario.h), each run
// in a child process so that a crash or a hang is one failed case, not a dead test binary,
// and checked by run_checks.h. The normal suite runs a fixed list of seeds; the environment
// runs more, or one alone (docs/invariant-search.md):
//   BLKSIM_INVSEARCH_COUNT=N       cases to run (default 150)
//   BLKSIM_INVSEARCH_SECONDS=S     stop after S seconds of wall time (without COUNT: no count limit)
//   BLKSIM_INVSEARCH_FIRST_SEED=K  the first seed (default 1); seeds K, K+1, ...
//   BLKSIM_INVSEARCH_SEED=K        run seed K alone and print its scenario
//   BLKSIM_INVSEARCH_FILE=a.json   check scenario files instead (comma-separated)
//   BLKSIM_INVSEARCH_SAVE=dir      write each failing scenario to dir/seed-K.json
//   BLKSIM_INVSEARCH_CASE_TIMEOUT=S  a case still running after S seconds is a hang (default 120)
// A failing case prints its violations and its scenario JSON, to save as a regression file.
#include <catch2/catch.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "test/invariants/random_scenario.h"
#include "test/invariants/run_checks.h"

using namespace blksim;
using invsearch::Violation;

namespace {

uint64_t env_u64(const char* name, uint64_t dflt) {
    const char* v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

// One case in a child process: its violations come back over a pipe, one per line as
// "kind<TAB>detail". A signal, a non-zero exit or the timeout is a violation of its own.
std::vector<Violation> run_isolated(const std::string& text, const std::string& name, bool twice, int timeout_s) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::fflush(nullptr);
    std::cout.flush();
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        // Each violation goes out as soon as it is found, so that a crash after it keeps it.
        invsearch::check_scenario(text, name, twice, [&](const Violation& v) {
            std::string line = v.kind + "\t" + v.detail;
            std::replace(line.begin(), line.end(), '\n', ' ');
            line += "\n";
            for (std::size_t done = 0; done < line.size();) {
                const ssize_t n = write(fds[1], line.data() + done, line.size() - done);
                if (n <= 0)
                    _exit(3);
                done += static_cast<std::size_t>(n);
            }
        });
        _exit(0);  // not exit(): the child must not run the test framework's teardown
    }
    close(fds[1]);
    std::string got;
    bool timed_out = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            kill(pid, SIGKILL);
            break;
        }
        pollfd p{fds[0], POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
            continue;
        char buf[4096];
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0)
            break;
        got.append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    std::vector<Violation> v;
    std::istringstream lines(got);
    for (std::string line; std::getline(lines, line);) {
        const auto tab = line.find('\t');
        v.push_back({line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1)});
    }
    if (timed_out)
        v.push_back({"hang", fmt::format("still running after {} s of wall time", timeout_s)});
    else if (WIFSIGNALED(status))
        v.push_back({fmt::format("crash: signal {}", WTERMSIG(status)), strsignal(WTERMSIG(status))});
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        v.push_back({fmt::format("crash: exit {}", WEXITSTATUS(status)), "the checking process failed"});
    return v;
}

// test/invariants/known_failures.txt: seeds whose failure is understood but not fixed yet,
// one per line as "SEED CLASS  reason" ('#' starts a comment). Such a seed failing with its
// class is reported and not counted; any other failure is. A listed seed that passes, or
// fails otherwise, is reported too, so the list cannot go stale unnoticed.
std::map<uint64_t, std::string> known_failures() {
    std::map<uint64_t, std::string> out;
    std::ifstream in(std::string(BLKSIM_SOURCE_DIR) + "/test/invariants/known_failures.txt");
    for (std::string line; std::getline(in, line);) {
        if (const auto hash = line.find('#'); hash != std::string::npos)
            line.erase(hash);
        std::istringstream fields(line);
        uint64_t seed = 0;
        std::string kind;
        if (fields >> seed >> kind)
            out[seed] = kind;
    }
    return out;
}

struct Summary {
    uint64_t cases = 0, failed = 0, known = 0;
    std::vector<std::string> stale;  // listed as known, but passed or failed otherwise
    std::map<std::string, std::vector<std::string>> by_kind;  // kind -> the cases that broke it

    // A failing case is printed in full (violations and scenario) while it is among the
    // first few of one of its classes; after that as one line, so that a long run's log
    // stays readable (BLKSIM_INVSEARCH_SAVE keeps every scenario).
    void add(const std::string& label, const std::string& scenario, const std::vector<Violation>& v) {
        constexpr std::size_t kPrintedPerKind = 3;
        ++cases;
        if (v.empty())
            return;
        ++failed;
        std::set<std::string> kinds;
        bool full = false;
        std::string msg = fmt::format("invariant search: {} failed:\n", label);
        for (const auto& x : v) {
            msg += fmt::format("  {}: {}\n", x.kind, x.detail);
            if (kinds.insert(x.kind).second) {
                auto& labels = by_kind[x.kind];
                labels.push_back(label);
                full |= labels.size() <= kPrintedPerKind;
            }
        }
        if (full)
            std::cout << msg << "  scenario: " << scenario << "\n";
        else
            std::cout << fmt::format("invariant search: {} failed: {}\n", label, fmt::join(kinds, ", "));
    }
    // A seed listed in known_failures.txt: its failure of that class is expected.
    void add_known(uint64_t seed, const std::string& kind, const std::string& scenario,
                   const std::vector<Violation>& v) {
        const bool as_listed = !v.empty() && std::all_of(v.begin(), v.end(), [&](const Violation& x) {
            return x.kind.rfind(kind, 0) == 0;
        });
        if (as_listed) {
            ++cases;
            ++known;
            std::cout << fmt::format("invariant search: seed {} failed as known ({})\n", seed, kind);
            return;
        }
        stale.push_back(fmt::format("seed {} is listed as failing with {} but {}", seed, kind,
                                    v.empty() ? "passes" : "fails otherwise"));
        add(fmt::format("seed {}", seed), scenario, v);
    }
    std::string table() const {
        std::string s = fmt::format("{} of {} cases failed ({} more as known)\n", failed, cases, known);
        for (const auto& x : stale)
            s += "  stale known_failures.txt entry: " + x + "\n";
        for (const auto& [kind, labels] : by_kind) {
            s += fmt::format("  {:5} {}  (first: {}", labels.size(), kind, labels.front());
            for (std::size_t i = 1; i < std::min<std::size_t>(labels.size(), 4); ++i)
                s += ", " + labels[i];
            s += ")\n";
        }
        return s;
    }
};

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, ',');)
        if (!part.empty())
            out.push_back(part);
    return out;
}

}  // namespace

TEST_CASE("invariant search: random scenarios keep every invariant", "[invariants][search]") {
    const int timeout_s = static_cast<int>(env_u64("BLKSIM_INVSEARCH_CASE_TIMEOUT", 120));
    Summary sum;
    if (const char* files = std::getenv("BLKSIM_INVSEARCH_FILE"); files && *files) {
        for (const auto& f : split_commas(files)) {
            std::ifstream in(f);
            REQUIRE(in.good());
            std::stringstream text;
            text << in.rdbuf();
            sum.add(f, "(the file)", run_isolated(text.str(), f, true, timeout_s));
        }
    } else {
        const char* one = std::getenv("BLKSIM_INVSEARCH_SEED");
        const bool single = one && *one;
        const uint64_t first = single ? env_u64("BLKSIM_INVSEARCH_SEED", 1) : env_u64("BLKSIM_INVSEARCH_FIRST_SEED", 1);
        const uint64_t seconds = env_u64("BLKSIM_INVSEARCH_SECONDS", 0);
        const uint64_t count = single ? 1 : env_u64("BLKSIM_INVSEARCH_COUNT", seconds ? UINT64_MAX : 150);
        const char* save = std::getenv("BLKSIM_INVSEARCH_SAVE");
        const auto start = std::chrono::steady_clock::now();
        const std::map<uint64_t, std::string> known = known_failures();
        for (uint64_t i = 0; i < count; ++i) {
            if (seconds && std::chrono::steady_clock::now() - start >= std::chrono::seconds(seconds))
                break;
            const uint64_t seed = first + i;
            const nlohmann::json scenario = invsearch::random_scenario(seed);
            const std::string text = scenario.dump(1);
            if (single)
                std::cout << "invariant search: seed " << seed << ": " << text << "\n";
            // Every eighth case runs twice: the same scenario must print the same report.
            const auto v = run_isolated(text, fmt::format("seed-{}.json", seed), seed % 8 == 0, timeout_s);
            if (const auto k = known.find(seed); k != known.end())
                sum.add_known(seed, k->second, scenario.dump(), v);
            else
                sum.add(fmt::format("seed {}", seed), scenario.dump(), v);
            if (!v.empty() && save && *save)
                std::ofstream(fmt::format("{}/seed-{}.json", save, seed)) << text << "\n";
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cout << fmt::format("invariant search: seeds {}..{}: {} cases in {:.1f} s ({:.1f} cases/s)\n", first,
                                 first + sum.cases - 1, sum.cases, secs, secs > 0 ? sum.cases / secs : 0.0);
    }
    std::cout << "invariant search: " << sum.table();
    INFO(sum.table());
    CHECK(sum.cases > 0);
    CHECK(sum.failed == 0);
    CHECK(sum.stale.empty());
}

// The generator itself: a seed names one scenario, and a modest run of seeds reaches every
// device model, scheduler, engine and I/O kind (a dimension the draws never reach would be
// searched by no test).
TEST_CASE("invariant search: the generator is deterministic and covers every dimension", "[invariants]") {
    CHECK(invsearch::random_scenario(7) == invsearch::random_scenario(7));
    CHECK(invsearch::random_scenario(7) != invsearch::random_scenario(8));
    std::set<std::string> seen;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        const auto s = invsearch::random_scenario(seed);
        for (const auto& d : s["devices"])
            seen.insert("model " + d["model"].get<std::string>());
        for (const auto& q : s["queues"])
            seen.insert("scheduler " + q["scheduler"].get<std::string>());
        for (const auto& j : s["jobs"]) {
            seen.insert("engine " + j["ioengine"].get<std::string>());
            seen.insert("rw " + j["rw"].get<std::string>());
            for (const char* opt : {"fsync", "fdatasync", "sync", "rate_iops", "thinktime", "prioclass", "sqthread_poll",
                                    "hipri", "random_distribution", "bssplit", "verify", "size",
                                    "io_size", "number_ios", "offset_increment", "rate_process",
                                    "cpus_allowed_policy"})
                if (j.contains(opt))
                    seen.insert(opt);
        }
        if (s.contains("controllers"))
            seen.insert("hba");
    }
    for (const char* want : {"model null_blk", "model nvme", "model hdd", "model sata_ssd", "model raid",
                             "scheduler none", "scheduler mq-deadline", "scheduler kyber", "scheduler bfq",
                             "engine psync", "engine libaio", "engine io_uring", "rw read", "rw write",
                             "rw randread", "rw randwrite", "rw rw", "rw randrw", "rw trim", "rw randtrim",
                             "rw trimwrite", "rw randtrimwrite", "fsync", "fdatasync", "sync",
                             "rate_iops", "thinktime", "prioclass", "sqthread_poll", "hipri", "random_distribution", "bssplit", "verify",
                             "size", "io_size", "number_ios", "offset_increment", "rate_process",
                             "cpus_allowed_policy", "hba"}) {
        INFO(want);
        CHECK(seen.count(want) == 1);
    }
}
