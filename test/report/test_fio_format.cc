// fio's number formatting rules (models/report/fio_format.h), checked against strings from
// a real fio 3.33 run (fixtures/real-linux-6.18/fio/cmdprio_normal_output.txt) and against
// hand-worked cases of each rule.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "models/report/fio_format.h"

using namespace blksim;
using namespace blksim::report;
using fio::N2S;

namespace {

// The fixture's first job: 172210 reads of 4 KiB in 2001 ms; the second: 174932 reads.
constexpr uint64_t JOB1_BYTES = 172210ULL * 4096, JOB2_BYTES = 174932ULL * 4096;
constexpr uint64_t RUNT = 2001;

}  // namespace

TEST_CASE("num2str reproduces the real fio read line", "[report]") {
    // "read: IOPS=86.1k, BW=336MiB/s (353MB/s)(673MiB/2001msec)"
    const uint64_t iops = 1000 * 172210ULL / RUNT;  // 86061
    const uint64_t bw = 1000 * JOB1_BYTES / RUNT;     // 352509825 B/s
    CHECK(fio::num2str(iops, 4, 1, false, N2S::NONE) == "86.1k");
    CHECK(fio::num2str(bw, 4, 1, true, N2S::BYTEPERSEC) == "336MiB/s");
    CHECK(fio::num2str(bw, 4, 1, false, N2S::BYTEPERSEC) == "353MB/s");  // carried up from 352.5
    CHECK(fio::num2str(JOB1_BYTES, 4, 1, true, N2S::BYTE) == "673MiB");   // carried up from 672.7

    // second job: "IOPS=87.4k, BW=341MiB/s (358MB/s)(683MiB/2001msec)"
    CHECK(fio::num2str(1000 * 174932ULL / RUNT, 4, 1, false, N2S::NONE) == "87.4k");
    CHECK(fio::num2str(1000 * JOB2_BYTES / RUNT, 4, 1, true, N2S::BYTEPERSEC) == "341MiB/s");
    CHECK(fio::num2str(1000 * JOB2_BYTES / RUNT, 4, 1, false, N2S::BYTEPERSEC) == "358MB/s");
    CHECK(fio::num2str(JOB2_BYTES, 4, 1, true, N2S::BYTE) == "683MiB");
}

TEST_CASE("num2str reproduces the real fio group line", "[report]") {
    // "READ: bw=678MiB/s (711MB/s), ..., io=1356MiB (1422MB), run=2001-2001msec"
    const uint64_t io = JOB1_BYTES + JOB2_BYTES;
    const uint64_t agg = io * 1000 / RUNT;
    CHECK(fio::num2str(agg, 4, 1, true, N2S::BYTEPERSEC) == "678MiB/s");
    CHECK(fio::num2str(agg, 4, 1, false, N2S::BYTEPERSEC) == "711MB/s");
    CHECK(fio::num2str(io, 4, 1, true, N2S::BYTE) == "1356MiB");  // 4 digits: no decimals
    CHECK(fio::num2str(io, 4, 1, false, N2S::BYTE) == "1422MB");
}

TEST_CASE("num2str edge rules", "[report]") {
    CHECK(fio::num2str(0, 4, 1, false, N2S::NONE) == "0");
    CHECK(fio::num2str(9999, 4, 1, false, N2S::NONE) == "9999");  // fits, no prefix
    CHECK(fio::num2str(4096, 4, 1, true, N2S::BYTE) == "4096B");  // job description bs
    CHECK(fio::num2str(131072, 4, 1, true, N2S::BYTE) == "128KiB");
    // display_lat's 6-digit form, from the fixture's "max=4052.2k", "max=15486k", "max=8190.0k"
    CHECK(fio::num2str(4052200, 6, 1, false, N2S::NONE) == "4052.2k");
    CHECK(fio::num2str(15486123, 6, 1, false, N2S::NONE) == "15486k");
    CHECK(fio::num2str(8190000, 6, 1, false, N2S::NONE) == "8190.0k");
    // no room for decimals: carry rounds the integer part
    CHECK(fio::num2str(1999999, 4, 1, false, N2S::NONE) == "2000k");
    CHECK(fio::num2str(1999499, 4, 1, false, N2S::NONE) == "1999k");
    // fio's "carry rounding error": .999 printed with one decimal keeps the digit after "1."
    CHECK(fio::num2str(12999, 4, 1, false, N2S::NONE) == "12.0k");
    // base: the number already counts KiB
    CHECK(fio::num2str(2048, 4, 1024, true, N2S::BYTE) == "2048KiB");
    CHECK(fio::num2str(20480, 4, 1024, true, N2S::BYTE) == "20.0MiB");
    // bit units multiply by 8
    CHECK(fio::num2str(1000, 4, 1, false, N2S::BITPERSEC) == "8000bit/s");
}

TEST_CASE("display_lat picks fio's unit and formats the fixture's lines", "[report]") {
    // Stats taken from the fixture's first job.
    CHECK(fio::display_lat("slat", {1752, 4052200, 7191.66, 39101.97, 1}) ==
          "    slat (nsec): min=1752, max=4052.2k, avg=7191.66, stdev=39101.97\n");
    // min <= 2000 ns keeps the whole line in nsec even with a 15 ms max
    CHECK(fio::display_lat("clat", {571, 15486123, 1478922.44, 821242.65, 1}) ==
          "    clat (nsec): min=571, max=15486k, avg=1478922.44, stdev=821242.65\n");
    CHECK(fio::display_lat(" lat", {20123, 15489456, 1486110.0, 820030.0, 1}) ==
          "     lat (usec): min=20, max=15489, avg=1486.11, stdev=820.03\n");
    // msec needs min > 2 ms, max > 100 ms and stdev > 1 ms; "%5.02f" pads short numbers
    CHECK(fio::display_lat("clat", {3000000, 150000000, 50e6, 2e6, 1}) ==
          "    clat (msec): min=3, max=150, avg=50.00, stdev= 2.00\n");
    // a small stddev keeps nsec although min and max are large
    CHECK(fio::display_lat("clat", {100000, 100900, 100450.0, 500.0, 1}) ==
          "    clat (nsec): min=100000, max=100900, avg=100450.00, stdev=500.00\n");
}

TEST_CASE("clat percentiles in nsec, four per line", "[report]") {
    sim::LatencyHistogram h;
    for (uint64_t v = 1; v <= 100; ++v)  // below 128 ns every value has its own bin
        h.add(v);
    // p/100*N in long double, as fio computes it, is a hair above 30 and 60 for p=30, 60,
    // so those percentiles need one more sample: 31 and 61.
    CHECK(fio::show_clat_percentiles(h, "clat") ==
          "    clat percentiles (nsec):\n"
          "     |  1.00th=[    1],  5.00th=[    5], 10.00th=[   10], 20.00th=[   20],\n"
          "     | 30.00th=[   31], 40.00th=[   40], 50.00th=[   50], 60.00th=[   61],\n"
          "     | 70.00th=[   70], 80.00th=[   80], 90.00th=[   90], 95.00th=[   95],\n"
          "     | 99.00th=[   99], 99.50th=[  100], 99.90th=[  100], 99.95th=[  100],\n"
          "     | 99.99th=[  100]\n");
}

TEST_CASE("clat percentiles scaled to usec round up and widen the column", "[report]") {
    sim::LatencyHistogram h;
    // bin midpoints (as in fio's json+ "bins"): 66048, 2146304 and 149946368 ns
    for (int i = 0; i < 50; ++i)
        h.add(66048);
    for (int i = 0; i < 49; ++i)
        h.add(2146304);
    h.add(149946368);
    // (66048+999)/1000 = 67; the widest, 149946 usec, has 6 digits
    CHECK(fio::show_clat_percentiles(h, "clat") ==
          "    clat percentiles (usec):\n"
          "     |  1.00th=[    67],  5.00th=[    67], 10.00th=[    67], 20.00th=[    67],\n"
          "     | 30.00th=[    67], 40.00th=[    67], 50.00th=[    67], 60.00th=[  2147],\n"
          "     | 70.00th=[  2147], 80.00th=[  2147], 90.00th=[  2147], 95.00th=[  2147],\n"
          "     | 99.00th=[  2147], 99.50th=[149947], 99.90th=[149947], 99.95th=[149947],\n"
          "     | 99.99th=[149947]\n");
}

TEST_CASE("clat percentiles in msec when the smallest is above 2 ms", "[report]") {
    sim::LatencyHistogram h;
    for (int i = 0; i < 100; ++i)
        h.add(i < 90 ? 5013504 : 235929600);  // bin midpoints: 5.01 ms, 235.9 ms
    const std::string out = fio::show_clat_percentiles(h, "clat");
    CHECK(out.starts_with("    clat percentiles (msec):\n     |  1.00th=[    6],"));
    // rounded up once per unit step: 235929600 -> 235930 usec -> 236 msec
    CHECK(out.find("95.00th=[  236]") != std::string::npos);
    CHECK(fio::show_clat_percentiles(sim::LatencyHistogram{}, "clat").empty());
}

TEST_CASE("latency distribution buckets follow io_u_mark_latency", "[report]") {
    LatDist d;
    d.add(0);
    d.add(1);            // nsec "2"
    d.add(2);            // nsec "4"
    d.add(999);          // nsec "1000"
    d.add(1000);         // usec "2" (1 usec)
    d.add(1999);         // usec "2"
    d.add(2000);         // usec "4"
    d.add(99999);        // usec "100" (99 usec)
    d.add(100000);       // usec "250"
    d.add(999999);       // usec "1000"
    d.add(1000000);      // msec "2"
    d.add(1999999999);   // msec "2000"
    d.add(2000000000);   // msec ">=2000"
    CHECK(d.n == std::array<uint64_t, 10>{2, 1, 0, 0, 0, 0, 0, 0, 0, 1});
    CHECK(d.u == std::array<uint64_t, 10>{2, 1, 0, 0, 0, 1, 1, 0, 0, 1});
    CHECK(d.m == std::array<uint64_t, 12>{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1});
    CHECK(d.total() == 13);
}

TEST_CASE("latency distribution from a histogram counts bins at their midpoints", "[report]") {
    sim::LatencyHistogram h;
    h.add(100);       // exact below 128 ns: nsec "250"
    h.add(150000);    // bin 149504-151551 ns: usec "250"
    h.add(5000000);   // msec "10"
    h.add(100000);    // bin 99328-100351 straddles 100 us; midpoint 99840 counts it below
    const LatDist d = fio::lat_dist_from_hist(h);
    CHECK(d.n[6] == 1);
    CHECK(d.u[5] == 1);
    CHECK(d.u[6] == 1);
    CHECK(d.m[2] == 1);
    CHECK(d.total() == 4);

    // With exact counts present, the job's distribution uses them instead.
    JobResult j;
    j.dir[DDIR_READ].add_clat(100000);
    const LatDist exact = fio::lat_dist(j);
    CHECK(exact.u[6] == 1);
    CHECK(exact.u[5] == 0);
}

TEST_CASE("percent helpers floor nonzero counts like fio", "[report]") {
    const auto dist = fio::stat_calc_dist({1, 0, 0, 0, 0, 0, 9999}, 10000);
    CHECK(dist[0] == 0.1);      // 0.01% shown as 0.1%
    CHECK(dist[1] == 0.0);
    CHECK(dist[6] == Approx(99.99));
    CHECK(fio::stat_calc_dist({5, 0, 0, 0, 0, 0, 0}, 0)[0] == 0.0);

    const auto lat = fio::stat_calc_lat(std::array<uint64_t, 3>{1, 0, 50000}, 100000);
    CHECK(lat[0] == 0.01);      // 0.001% shown as 0.01%
    CHECK(lat[1] == 0.0);
    CHECK(lat[2] == Approx(50.0));
}

TEST_CASE("runtime is usec rounded up to msec", "[report]") {
    using namespace sim::literals;
    CHECK(fio::runtime_msec(2_s) == 2000);
    CHECK(fio::runtime_msec(2_s + 1_us) == 2001);
    CHECK(fio::runtime_msec(2_s + 999_ns) == 2000);  // sub-usec is dropped first
    CHECK(fio::runtime_msec(1500_ns) == 1);
    CHECK(fio::runtime_msec(sim::Duration{}) == 0);

    JobResult j;
    j.runtime = 2_s;
    j.dir[DDIR_READ].io_bytes = 4096;
    CHECK(fio::ddir_runtime_msec(j, DDIR_READ) == 2000);
    CHECK(fio::ddir_runtime_msec(j, DDIR_WRITE) == 0);  // no data, no runtime
}

TEST_CASE("per= is the job's share of the group bandwidth", "[report]") {
    fio::GroupRunStats rs;
    rs.agg[DDIR_READ] = (JOB1_BYTES + JOB2_BYTES) * 1000 / RUNT;
    // the fixture's per=50.81% and per=48.38%
    CHECK(fmt::format("{:3.2f}", fio::convert_agg_kbytes_percent(rs, DDIR_READ, 352582.67)) == "50.81");
    CHECK(fmt::format("{:3.2f}", fio::convert_agg_kbytes_percent(rs, DDIR_READ, 335716.67)) == "48.38");
    CHECK(fio::convert_agg_kbytes_percent(rs, DDIR_READ, 1e9) == 100.0);  // capped
    rs.agg[DDIR_READ] = 1000;                                             // <= 1 KiB/s: 100
    CHECK(fio::convert_agg_kbytes_percent(rs, DDIR_READ, 1.0) == 100.0);
}
