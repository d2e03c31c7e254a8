// fio's random_distribution: the shapes of zipf, pareto, normal, zoned and zoned_abs as fio's
// formulas give them (lib/zipf.c, lib/gauss.c, io_u.c's zoned draws), the same offsets for
// the same seed, and blocks always inside the region.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "models/workload/random_dist.h"

using namespace blksim;
using workload::RandomDist;
using workload::RandomDistConfig;

namespace {

constexpr uint64_t kBlocks = 10'000;
constexpr int kDraws = 200'000;

// How often each block was drawn.
std::vector<uint64_t> histogram(const RandomDistConfig& cfg, uint64_t seed = 1, unsigned ddir = 0) {
    sim::Rng rng(seed, "test/random_dist");
    const RandomDist dist(cfg, kBlocks, 4096, rng);
    std::vector<uint64_t> h(kBlocks, 0);
    for (int i = 0; i < kDraws; ++i) {
        const uint64_t b = dist.next(ddir, rng);
        REQUIRE(b < kBlocks);
        ++h[b];
    }
    return h;
}

// The share of the draws that went to the busiest `fraction` of the blocks.
double top_share(std::vector<uint64_t> h, double fraction) {
    std::sort(h.begin(), h.end(), std::greater<>());
    const auto n = static_cast<std::size_t>(fraction * static_cast<double>(h.size()));
    return static_cast<double>(std::accumulate(h.begin(), h.begin() + static_cast<long>(n), uint64_t{0})) / kDraws;
}

double share_in(const std::vector<uint64_t>& h, uint64_t first, uint64_t last) {
    return static_cast<double>(std::accumulate(h.begin() + static_cast<long>(first), h.begin() + static_cast<long>(last),
                                               uint64_t{0})) /
           kDraws;
}

}  // namespace

TEST_CASE("random_distribution: random is uniform", "[workload][random_dist]") {
    const auto h = histogram({});
    // 20 draws a block on average: the busiest 20 % get about 26 % from the noise alone.
    CHECK(top_share(h, 0.2) < 0.3);
}

TEST_CASE("random_distribution: pareto:h draws rank r with fio's pareto_next() law, scattered by its hash",
          "[workload][random_dist]") {
    // pareto_next(): rank = floor((n - 1) u^p), p = log(h) / log(1 - h), so P(rank <= x) =
    // ((x + 1) / (n - 1))^(1/p): 80 % of the draws in the first 20 % of the ranks for h 0.2.
    // center 0 fixes the offset, so each rank's block is (rank * golden ratio) mod n.
    for (const double h : {0.2, 0.1}) {
        INFO("h " << h);
        RandomDistConfig c;
        c.kind = RandomDistConfig::Kind::PARETO;
        c.value = h;
        c.center = 0.0;
        const double p = std::log(h) / std::log(1.0 - h);
        std::vector<double> expected(kBlocks, 0.0);
        const double n1 = static_cast<double>(kBlocks - 1);
        for (uint64_t r = 0; r + 1 < kBlocks; ++r)
            expected[(r * 0x61C8864680B583EBull) % kBlocks] +=
                std::pow(static_cast<double>(r + 1) / n1, 1.0 / p) - std::pow(static_cast<double>(r) / n1, 1.0 / p);
        const auto got = histogram(c);
        double tv = 0.0;  // total variation distance between the draws and the law
        for (uint64_t b = 0; b < kBlocks; ++b)
            tv += std::abs(static_cast<double>(got[b]) / kDraws - expected[b]);
        CHECK(tv / 2 < 0.15);  // noise alone gives about 0.06 here; another law gives far more
        // The busiest fifth (tenth) of the blocks gets at least the law's 80 % (90 %).
        CHECK(top_share(got, h) > 1.0 - h);
    }
}

TEST_CASE("random_distribution: zipf gives the busiest blocks the zipf law's share", "[workload][random_dist]") {
    for (const double theta : {0.8, 1.2}) {
        INFO("theta " << theta);
        RandomDistConfig c;
        c.kind = RandomDistConfig::Kind::ZIPF;
        c.value = theta;
        double top = 0, all = 0;
        for (uint64_t k = 1; k <= kBlocks; ++k) {
            all += std::pow(static_cast<double>(k), -theta);
            if (k <= 100)
                top += std::pow(static_cast<double>(k), -theta);
        }
        // The 100 busiest of 10 000 blocks (1 %): their share under the law, within a few %
        // (fio's generator approximates the law past the first two ranks).
        CHECK(top_share(histogram(c), 0.01) == Approx(top / all).epsilon(0.06));
    }
}

TEST_CASE("random_distribution: normal is the mean of 12 uniform draws, scattered; with center and no hash "
          "spread that is a bell",
          "[workload][random_dist]") {
    RandomDistConfig c;
    c.kind = RandomDistConfig::Kind::NORMAL;
    const auto h = histogram(c);
    // Before the scatter the ranks have a standard deviation of kBlocks / 12: about 68 % fall
    // within one of the mean, on about 2 * 833 of the blocks (16.7 %).
    CHECK(top_share(h, 0.167) == Approx(0.68).margin(0.05));
    c.value = 10.0;  // a further spread of up to +-5 % of the region widens the bell
    CHECK(top_share(histogram(c), 0.167) < top_share(h, 0.167));
}

// fio's gauss_next() never returns when the mean of its 12 draws rounds up to the region's
// size and the deviation is not negative: a region of 2 blocks with normal:10 (a deviation
// of 0 blocks) gets there within a few draws. The draws run in a child process, so that
// the loop coming back is a failed check, not a test binary that never ends.
TEST_CASE("random_distribution: normal on a region of a few blocks draws where fio would spin for ever",
          "[workload][random_dist]") {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        RandomDistConfig c;
        c.kind = RandomDistConfig::Kind::NORMAL;
        c.value = 10.0;
        sim::Rng rng(1, "test/random_dist");
        const RandomDist dist(c, 2, 4 << 20, rng);
        bool seen[2] = {false, false};
        for (int i = 0; i < 10'000; ++i) {
            const uint64_t b = dist.next(0, rng);
            if (b >= 2)
                _exit(1);
            seen[b] = true;
        }
        _exit(seen[0] && seen[1] ? 0 : 2);
    }
    int status = 0;
    pid_t done = 0;
    for (int ms = 0; ms < 30'000 && done == 0; ms += 10) {
        done = waitpid(pid, &status, WNOHANG);
        if (done == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    INFO("0: the draws ended, inside the region, on both blocks; 1: a block outside; 2: one block never drawn");
    CHECK(done == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("random_distribution: zoned and zoned_abs give each zone its share of the accesses", "[workload][random_dist]") {
    RandomDistConfig c;
    c.kind = RandomDistConfig::Kind::ZONED;
    c.zones[0] = {{60, 10}, {30, 20}, {10, 70}};
    c.zones[1] = {{100, 50}};
    const auto h = histogram(c);
    CHECK(share_in(h, 0, 1000) == Approx(0.60).margin(0.01));
    CHECK(share_in(h, 1000, 3000) == Approx(0.30).margin(0.01));
    CHECK(share_in(h, 3000, kBlocks) == Approx(0.10).margin(0.01));
    // Writes have their own zones: everything in the first half.
    CHECK(share_in(histogram(c, 1, 1), 0, 5000) == 1.0);

    RandomDistConfig a;
    a.kind = RandomDistConfig::Kind::ZONED_ABS;
    a.zones[0] = a.zones[1] = {{75, 4096 * 100}, {25, 4096 * 900}};
    const auto ha = histogram(a);
    CHECK(share_in(ha, 0, 100) == Approx(0.75).margin(0.01));
    CHECK(share_in(ha, 100, 1000) == Approx(0.25).margin(0.01));
    CHECK(share_in(ha, 1000, kBlocks) == 0.0);
}

TEST_CASE("random_distribution: the same seed gives the same blocks, another seed others", "[workload][random_dist]") {
    RandomDistConfig c;
    c.kind = RandomDistConfig::Kind::ZIPF;
    c.value = 1.1;
    CHECK(histogram(c, 7) == histogram(c, 7));
    CHECK(histogram(c, 7) != histogram(c, 8));
    c.center = 0.5;  // a fixed offset instead of a random one: the busiest block is rank 0's
    const auto h = histogram(c, 7);
    CHECK(std::max_element(h.begin(), h.end()) - h.begin() == static_cast<long>(kBlocks / 2));
}
