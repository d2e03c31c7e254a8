// bsrange / bssplit / blocksize_unaligned / blockalign end to end: the sizes a job issues are
// drawn as fio 3.33's get_next_buflen() draws them (each share within a binomial bound), are
// min_bs multiples inside the range, start on aligned offsets inside the region, and come
// from their own random stream (the offsets stay those of the same job with one size).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <vector>

#include "models/blkmq/trace.h"
#include "test/models/machine_fixture.h"

using namespace blksim;
using namespace blksim::sim::literals;

namespace {

// Every bio the job queued (trace Q), in order.
struct QueueRecorder final : blkmq::TraceSink {
    struct Io {
        sim::Time time;
        uint64_t offset, len;
        bool write;
    };
    std::vector<Io> ios;
    void emit(uint32_t, const blkmq::TraceEvent& e) override {
        if (e.action == blkmq::TraceAction::QUEUE)
            ios.push_back({e.time, e.sector << 9, uint64_t{e.nr_sectors} << 9, e.write});
    }
};

std::vector<QueueRecorder::Io> run_job(workload::JobConfig j, sim::Duration runtime = 40_ms) {
    if (j.runtime.count() == 0) {
        j.runtime = runtime;
        j.time_based = true;
    }
    const auto m = testing::timer_nullb_with(j, 5_us, 5);
    topology::Machine machine(m);
    QueueRecorder rec;
    machine.set_trace(&rec);
    machine.run();
    return rec.ios;
}

workload::JobConfig aio_job(workload::RwPattern rw) {
    auto j = testing::nullb_job(workload::IoEngine::LIBAIO, rw);
    j.iodepth = 16;
    return j;
}

// count / n within 4.5 standard deviations of p (a false alarm about once in 150 000).
void check_share(uint64_t count, uint64_t n, double p) {
    const double sd = std::sqrt(p * (1 - p) / static_cast<double>(n));
    INFO("share " << static_cast<double>(count) / static_cast<double>(n) << " expected " << p << " n " << n);
    CHECK(std::abs(static_cast<double>(count) / static_cast<double>(n) - p) <= 4.5 * sd);
}

std::map<uint64_t, uint64_t> sizes_of(const std::vector<QueueRecorder::Io>& ios) {
    std::map<uint64_t, uint64_t> n;
    for (const auto& io : ios)
        ++n[io.len];
    return n;
}

}  // namespace

TEST_CASE("bssplit: each size's share of the I/Os is its percentage, within a binomial bound", "[models][bs]") {
    auto j = aio_job(workload::RwPattern::RANDREAD);
    j.bs_read = 4096;
    j.bs_range[0] = {65536, {{4096, 10}, {65536, 50}, {32768, 40}}};
    const auto ios = run_job(j);
    REQUIRE(ios.size() > 20000);
    const auto n = sizes_of(ios);
    CHECK(n.size() == 3);
    check_share(n.at(4096), ios.size(), 0.10);
    check_share(n.at(32768), ios.size(), 0.40);
    check_share(n.at(65536), ios.size(), 0.50);
}

TEST_CASE("bssplit: what the percentages leave goes to the entry with the largest share", "[models][bs]") {
    // fio 3.33 (measured with ioengine=null): 4k/10:64k/50 gives 4k 10 %, 64k 90 %.
    auto j = aio_job(workload::RwPattern::RANDREAD);
    j.bs_range[0] = {65536, {{4096, 10}, {65536, 50}}};
    const auto ios = run_job(j);
    REQUIRE(ios.size() > 20000);
    const auto n = sizes_of(ios);
    check_share(n.at(4096), ios.size(), 0.10);
    check_share(n.at(65536), ios.size(), 0.90);
}

TEST_CASE("bsrange: min_bs multiples from min to max, as fio draws them", "[models][bs]") {
    SECTION("4k-16k: each multiple of 4k a quarter") {
        auto j = aio_job(workload::RwPattern::RANDREAD);
        j.bs_range[0].max = 16384;
        const auto ios = run_job(j);
        REQUIRE(ios.size() > 20000);
        const auto n = sizes_of(ios);
        CHECK(n.size() == 4);
        CHECK(n.begin()->first == 4096);
        CHECK(n.rbegin()->first == 16384);
        for (uint64_t bs : {4096, 8192, 12288, 16384})
            check_share(n.at(bs), ios.size(), 0.25);
    }
    SECTION("3k-8k: 3k + uniform [0, 8k) rounded down to 3k multiples, 9k capped to 8k") {
        // fio 3.33 measured: 3072 0.377, 6144 0.373, 8192 0.250.
        auto j = aio_job(workload::RwPattern::RANDREAD);
        j.bs_read = 3072;
        j.bs_range[0].max = 8192;
        const auto ios = run_job(j);
        REQUIRE(ios.size() > 20000);
        const auto n = sizes_of(ios);
        CHECK(n.size() == 3);
        check_share(n.at(3072), ios.size(), 3.0 / 8);
        check_share(n.at(6144), ios.size(), 3.0 / 8);
        check_share(n.at(8192), ios.size(), 2.0 / 8);
    }
}

TEST_CASE("bssplit sizes round down to min_bs multiples unless bs_unaligned", "[models][bs]") {
    // fio 3.33 measured: bssplit=4k/10:6k/90 issues only 4k I/Os.
    auto j = aio_job(workload::RwPattern::RANDREAD);
    j.bs_range[0] = {6144, {{4096, 10}, {6144, 90}}};
    const auto rounded = sizes_of(run_job(j, 5_ms));
    CHECK(rounded.size() == 1);
    CHECK(rounded.count(4096) == 1);
    j.bs_unaligned = true;  // rounded to the device's 512-byte blocks instead: 6k stays 6k
    const auto ios = run_job(j);
    const auto n = sizes_of(ios);
    CHECK(n.size() == 2);
    check_share(n.at(6144), ios.size(), 0.9);
}

TEST_CASE("random offsets: aligned to blockalign (default min_bs), every I/O inside the region", "[models][bs]") {
    auto j = aio_job(workload::RwPattern::RANDREAD);
    j.offset = 1 << 20;
    j.size = 1 << 20;  // 1 MiB: 64k I/Os often meet its end
    j.bs_range[0].max = 65536;
    SECTION("default alignment") {
        const auto ios = run_job(j, 10_ms);
        REQUIRE(ios.size() > 1000);
        bool near_end = false;
        for (const auto& io : ios) {
            CHECK(io.offset % 4096 == 0);
            CHECK(io.offset >= j.offset);
            CHECK(io.offset + io.len <= j.offset + j.size);
            near_end = near_end || io.offset + io.len == j.offset + j.size;
        }
        CHECK(near_end);
    }
    SECTION("blockalign=16k") {
        j.blockalign[0] = 16384;
        const auto ios = run_job(j, 10_ms);
        REQUIRE(ios.size() > 1000);
        for (const auto& io : ios) {
            CHECK(io.offset % 16384 == 0);
            CHECK(io.offset + io.len <= j.offset + j.size);
        }
    }
}

TEST_CASE("sequential with bsrange: each I/O starts where the previous ended, wrapping at the end", "[models][bs]") {
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::READ);
    j.size = 256 << 10;
    j.bs_range[0].max = 65536;
    const auto ios = run_job(j, 5_ms);
    REQUIRE(ios.size() > 100);
    int wraps = 0;
    for (size_t i = 1; i < ios.size(); ++i) {
        CHECK(ios[i].offset + ios[i].len <= j.size);
        if (ios[i].offset == 0 && ios[i - 1].offset + ios[i - 1].len + 4096 > j.size) {
            ++wraps;  // the next I/O would not fit even at 4k: back to the start
            continue;
        }
        CHECK(ios[i].offset == ios[i - 1].offset + ios[i - 1].len);
    }
    CHECK(wraps > 0);
}

TEST_CASE("size limit: a job without time_based ends once its bytes are issued", "[models][bs]") {
    auto j = aio_job(workload::RwPattern::READ);
    j.size = 4 << 20;
    j.runtime = 1_s;  // not reached
    j.bs_range[0].max = 131072;
    const auto ios = run_job(j);
    uint64_t bytes = 0;
    for (const auto& io : ios)
        bytes += io.len;
    CHECK(bytes == j.size);  // sequential, every size fits: the region exactly once
}

TEST_CASE("block size draws have their own stream: the offsets are those of the one-size job", "[models][bs]") {
    // Common random numbers: a job that gets a bsrange draws the same random offsets, in the
    // same order, as the same job with bs alone (same alignment, same region).
    auto j = testing::nullb_job(workload::IoEngine::PSYNC, workload::RwPattern::RANDREAD);
    j.number_ios = 2000;
    j.runtime = 1_s;
    const auto plain = run_job(j);
    j.bs_range[0].max = 65536;
    const auto ranged = run_job(j);
    REQUIRE(plain.size() == 2000);
    REQUIRE(ranged.size() == 2000);
    size_t same = 0, longer = 0;
    for (size_t i = 0; i < plain.size(); ++i) {
        same += plain[i].offset == ranged[i].offset;
        longer += ranged[i].len > 4096;
    }
    CHECK(same == plain.size());
    CHECK(longer > 1800);  // and the sizes did change: 15 of 16 draws are above 4k
}
