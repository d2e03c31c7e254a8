// tools/experiment for `blksim reproduce` and the sweep's ordering: the verdict of a row for
// each kind of tolerance, metric look-up by suffix, the extra metrics (per-priority clat), the
// published-figures file as shipped, the pilot cost estimate and the dearest-first order.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/topology/machine.h"
#include "tools/experiment/reproduce.h"
#include "tools/experiment/simulate.h"
#include "tools/experiment/thread_pool.h"
#include "tools/scenario/scenario.h"

using namespace blksim;
using namespace blksim::experiment;

namespace {

PublishedRow row(double published, Tolerance::Kind kind, double tol, bool known_miss = false) {
    PublishedRow r;
    r.published = published;
    r.tolerance = {kind, tol};
    r.known_miss = known_miss;
    return r;
}

std::string seeds_file(const std::string& f) { return std::string(BLKSIM_SOURCE_DIR) + "/scenarios/seeds/" + f; }

}  // namespace

TEST_CASE("reproduce: a row's mean, interval and verdict", "[reproduce]") {
    const PublishedRow rel = row(100, Tolerance::Kind::RELATIVE, 15);
    const RowResult a = evaluate_row(rel, {110, 114});
    CHECK(a.mean == Approx(112));
    // t(0.975, 1) = 12.706; sd = 2.828; half width = 12.706 * 2.828 / sqrt(2).
    CHECK(a.half_width == Approx(12.7062 * 2.0).epsilon(1e-3));
    CHECK(a.error_pct == Approx(12.0));
    CHECK(a.within);
    CHECK(a.status == RowStatus::OK);
    const RowResult b = evaluate_row(rel, {84, 85});
    CHECK_FALSE(b.within);   // -15.5 %
    CHECK(b.status == RowStatus::FAIL);
    CHECK(evaluate_row(row(100, Tolerance::Kind::RELATIVE, 15, true), {84, 85}).status == RowStatus::KNOWN_MISS);
    CHECK(evaluate_row(row(100, Tolerance::Kind::RELATIVE, 15, true), {100, 100}).status ==
          RowStatus::KNOWN_MISS_NOW_WITHIN);
    // Absolute: in the row's unit (E2's patch effect: the ratio within 0.02).
    CHECK(evaluate_row(row(1.0044, Tolerance::Kind::ABSOLUTE, 0.02), {1.0, 1.0}).within);
    CHECK_FALSE(evaluate_row(row(1.0044, Tolerance::Kind::ABSOLUTE, 0.02), {1.03, 1.03}).within);
}

TEST_CASE("reproduce: a direction row needs the published sign and a significant change", "[reproduce]") {
    const PublishedRow up = row(166449.0 / 152421.0, Tolerance::Kind::DIRECTION, 0);
    CHECK(evaluate_row(up, {1.02, 1.03, 1.025}).within);
    CHECK_FALSE(evaluate_row(up, {0.97, 0.98, 0.975}).within);    // the other way
    CHECK_FALSE(evaluate_row(up, {1.0, 1.0, 1.0}).within);         // no change at all (E1 today)
    CHECK_FALSE(evaluate_row(up, {0.99, 1.03, 1.01}).within);      // the interval spans no change
    const PublishedRow down = row(0.9, Tolerance::Kind::DIRECTION, 0);
    CHECK(evaluate_row(down, {0.95, 0.955, 0.96}).within);
}

TEST_CASE("reproduce: metrics by suffix, per-priority clat from a run", "[reproduce]") {
    const std::vector<Metric> ms = {{"a/read.iops", 1}, {"b/read.iops", 2}, {"b/write.iops", 3}};
    CHECK(find_metric(ms, "write.iops") == 3.0);
    CHECK(find_metric(ms, "b/read.iops") == 2.0);
    CHECK_FALSE(find_metric(ms, "read.iops"));     // two groups have it
    CHECK_FALSE(find_metric(ms, "read.bw_bytes"));

    const auto s = scenario::load_scenario(seeds_file("e4-ncq-prio.json"), {"jobs.0.runtime=5s"});
    topology::Machine m(s.machine);
    const std::vector<Metric> got = reproduce_metrics(m.run());
    const auto rt = find_metric(got, "read.prio1_0.clat_mean_ns");
    const auto be = find_metric(got, "read.prio0_0.clat_mean_ns");
    const auto all = find_metric(got, "read.clat_mean_ns");
    REQUIRE(rt);
    REQUIRE(be);
    REQUIRE(all);
    CHECK(*rt < *all);   // NCQ priority: the RT tenth is served first
    CHECK(*be > *all);
    CHECK(*find_metric(got, "read.clat_max_ns") > *be);
    CHECK(find_metric(got, "e4/read.iops"));
}

TEST_CASE("reproduce: the shipped published.json loads, with E1's misses marked", "[reproduce]") {
    const PublishedData d = load_published(seeds_file("published.json"));
    CHECK(d.source == "docs/references.md §8");
    int e[4] = {0, 0, 0, 0}, e1_miss = 0, hyp = 0, held_back = 0;
    for (const PublishedRow& r : d.rows) {
        INFO(r.where);
        if (r.experiment == "E3h") {
            // E3's hypotheses: the NVMe rows have the published figures, the other devices' are
            // held back; none is a pass or a known miss.
            CHECK(r.hypothesis);
            CHECK_FALSE(r.why.empty());
            CHECK(r.held_back == (r.cell.rfind("NVMe", 0) != 0));
            ++hyp;
            held_back += r.held_back;
            continue;
        }
        CHECK_FALSE(r.hypothesis);
        REQUIRE(r.experiment.size() == 2);
        ++e[r.experiment[1] - '1'];
        if (r.experiment == "E1")
            e1_miss += r.known_miss;
        else
            CHECK_FALSE(r.known_miss);
        CHECK_FALSE(r.section.empty());
    }
    CHECK(e[0] == 20);   // 12 cells and 8 directions of the raid0-hdd table
    CHECK(e[1] == 4);
    CHECK(e[2] == 6);    // two ratios to none per workload
    CHECK(e[3] == 4);
    // the read cells but batch1-head's, batch1-head write, batch1's and the rw directions; since
    // each bio is submitted at its instant: batch1 write, batch1-head read, and the batch1-head
    // write direction (not significant in the reduced run); since each hctx's batch goes
    // through its own hctx: baseline write (-20.1 % over 3 seeds x 10 s)
    CHECK(e1_miss == 13);
    // 4 hypotheses x 3 workloads: NVMe none and 2 ratios (the random QD64 ratios are E3's),
    // SATA SSD and SAS HDD none and mq-deadline / none.
    CHECK(hyp == 12 + 18 + 2 * 24);
    CHECK(held_back == 2 * 24);
    CHECK(d.reduced_seeds == 2);
}

TEST_CASE("reproduce: a hypothesis row is shown, never a failure; a held-back one only predicted", "[reproduce]") {
    PublishedRow h = row(100, Tolerance::Kind::RELATIVE, 15);
    h.hypothesis = true;
    CHECK(evaluate_row(h, {110, 112}).status == RowStatus::HYPOTHESIS_WITHIN);
    CHECK(evaluate_row(h, {50, 52}).status == RowStatus::HYPOTHESIS_OUTSIDE);
    h.held_back = true;
    const RowResult p = evaluate_row(h, {50, 52});
    CHECK(p.status == RowStatus::PREDICTED);
    CHECK(p.mean == Approx(51));
    CHECK_FALSE(p.within);
    ReproduceInfo info;
    info.data_file = "d.json";
    info.seeds = {1, 2};
    const std::string text = format_reproduce_normal(info, {evaluate_row(h, {50, 52})});
    CHECK(text.find("held back") != std::string::npos);
    CHECK(text.find("predicted") != std::string::npos);
    CHECK(text.find("0 outside tolerance that should pass (FAIL)") != std::string::npos);
    CHECK(text.find("hypotheses (never a failure): 0 within tolerance, 0 outside, 1 predictions") != std::string::npos);
}

TEST_CASE("dearest_first orders by cost, ties and unknowns in index order", "[reproduce][compare]") {
    CHECK(dearest_first({1, 5, 0, 5, 3}) == std::vector<std::size_t>{1, 3, 4, 0, 2});
    CHECK(dearest_first({}).empty());
    CHECK(dearest_first({0, 0, 0}) == std::vector<std::size_t>{0, 1, 2});
}

TEST_CASE("estimate_cost grows with the work of a run, 0 when a job has no bound", "[reproduce][compare]") {
    const auto path = std::string(BLKSIM_SOURCE_DIR) + "/scenarios/examples/nullblk-mq-deadline-10jobs.json";
    auto cost = [&](std::vector<std::string> sets) {
        sets.push_back("queues.0.scheduler=none");  // no lock to collapse 10 jobs to one's rate
        return estimate_cost(scenario::load_scenario(path, sets).machine);
    };
    const double one = cost({"jobs.0.runtime=64ms", "jobs.0.numjobs=1"});
    const double ten = cost({"jobs.0.runtime=64ms", "jobs.0.numjobs=10"});
    const double twice = cost({"jobs.0.runtime=128ms", "jobs.0.numjobs=1"});
    CHECK(one > 0);
    CHECK(ten > 3 * one);
    CHECK(twice == Approx(2 * one).epsilon(0.1));
    CHECK(cost({"jobs.0.runtime=64ms", "jobs.0.numjobs=1"}) == one);   // deterministic
    // A job bounded by size alone: the pilot would be the whole run.
    CHECK(cost({"jobs.0.runtime=0", "jobs.0.time_based=0", "jobs.0.size=1m"}) == 0);
}
