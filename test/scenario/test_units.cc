// fio value syntax (tools/scenario/units.h).
#include <catch2/catch.hpp>

#include <string>

#include "tools/scenario/units.h"

using blksim::units::KbBase;
using blksim::units::TimeUnit;
using blksim::units::ValueError;
namespace units = blksim::units;

TEST_CASE("parse_size: bare numbers are bytes", "[units]") {
    CHECK(units::parse_size("0") == 0);
    CHECK(units::parse_size("4096") == 4096);
    CHECK(units::parse_size(" 512 ") == 512);
    CHECK(units::parse_size("512B") == 512);
    CHECK(units::parse_size("512b") == 512);
    CHECK(units::parse_size("0x1000") == 4096);
}

TEST_CASE("parse_size: k/m/g/t/p are powers of 1024 under fio's default kb_base", "[units]") {
    CHECK(units::parse_size("4k") == 4096);
    CHECK(units::parse_size("4K") == 4096);
    CHECK(units::parse_size("4kb") == 4096);
    CHECK(units::parse_size("4KB") == 4096);
    CHECK(units::parse_size("4kB") == 4096);
    CHECK(units::parse_size("1m") == 1048576);
    CHECK(units::parse_size("1MB") == 1048576);
    CHECK(units::parse_size("2g") == 2ULL << 30);
    CHECK(units::parse_size("1t") == 1ULL << 40);
    CHECK(units::parse_size("1p") == 1ULL << 50);
    CHECK(units::parse_size("4 k") == 4096);
}

TEST_CASE("parse_size: IEC prefixes are powers of 1000 under kb_base=1024, as in fio", "[units]") {
    // fio HOWTO, "Examples with kb_base=1024 (default)": 1 MB = 1000000 = 1mi = 1000ki.
    CHECK(units::parse_size("4KiB") == 4000);
    CHECK(units::parse_size("4kib") == 4000);
    CHECK(units::parse_size("4Ki") == 4000);
    CHECK(units::parse_size("1MiB") == 1000000);
    CHECK(units::parse_size("1GiB") == 1000000000);
    CHECK(units::parse_size("1TiB") == 1000000000000ULL);
}

TEST_CASE("parse_size: kb_base=1000 uses the prefixes as the standards do", "[units]") {
    CHECK(units::parse_size("4k", KbBase::B1000) == 4000);
    CHECK(units::parse_size("4KB", KbBase::B1000) == 4000);
    CHECK(units::parse_size("4KiB", KbBase::B1000) == 4096);
    CHECK(units::parse_size("1MiB", KbBase::B1000) == 1048576);
    CHECK(units::parse_size("4096", KbBase::B1000) == 4096);
}

TEST_CASE("parse_size: bad input says what was expected", "[units]") {
    CHECK_THROWS_WITH(units::parse_size("abc"), Catch::Contains("expected a size like 4k"));
    CHECK_THROWS_WITH(units::parse_size(""), Catch::Contains("expected a size like 4k"));
    CHECK_THROWS_WITH(units::parse_size("4q"), Catch::Contains("unknown size unit 'q'"));
    CHECK_THROWS_WITH(units::parse_size("4kk"), Catch::Contains("unknown size unit 'kk'"));
    CHECK_THROWS_WITH(units::parse_size("-4k"), Catch::Contains("negative"));
    CHECK_THROWS_WITH(units::parse_size("1.5m"), Catch::Contains("fractional"));
    CHECK_THROWS_WITH(units::parse_size("50%"), Catch::Contains("percentage is not allowed"));
    CHECK_THROWS_AS(units::parse_size("4q"), ValueError);
}

TEST_CASE("parse_size: sizes above 2^63 are refused", "[units]") {
    CHECK(units::parse_size("8192p") == (1ULL << 63));
    CHECK_THROWS_WITH(units::parse_size("8193p"), Catch::Contains("larger than 2^63"));
    CHECK_THROWS_WITH(units::parse_size("9223372036854775809"), Catch::Contains("larger than 2^63"));
    CHECK_THROWS_WITH(units::parse_size("99999999999999999999999"), Catch::Contains("too large"));
}

TEST_CASE("parse_size_or_percent", "[units]") {
    const auto p = units::parse_size_or_percent("50%");
    CHECK(p.is_percent);
    CHECK(p.percent == 50);
    const auto s = units::parse_size_or_percent("1g");
    CHECK_FALSE(s.is_percent);
    CHECK(s.bytes == 1ULL << 30);
    CHECK(units::parse_size_or_percent("100%").percent == 100);
    CHECK_THROWS_WITH(units::parse_size_or_percent("0%"), Catch::Contains("out of range"));
    CHECK_THROWS_WITH(units::parse_size_or_percent("101%"), Catch::Contains("out of range"));
    CHECK_THROWS_WITH(units::parse_size_or_percent("x%"), Catch::Contains("expected a percentage"));
}

TEST_CASE("parse_ddir_sizes: fio's read,write[,trim] lists", "[units]") {
    SECTION("one value sets every direction") {
        const auto d = units::parse_ddir_sizes("4k");
        CHECK(d.read == 4096);
        CHECK(d.write == 4096);
        CHECK(d.trim == 4096);
    }
    SECTION("read,write") {
        const auto d = units::parse_ddir_sizes("4k,8k");
        CHECK(d.read == 4096);
        CHECK(d.write == 8192);
        CHECK(d.trim == 8192);
    }
    SECTION("an empty first value leaves reads at their default") {
        const auto d = units::parse_ddir_sizes(",8k");
        CHECK_FALSE(d.read);
        CHECK(d.write == 8192);
    }
    SECTION("a trailing comma sets reads only") {
        const auto d = units::parse_ddir_sizes("4k,");
        CHECK(d.read == 4096);
        CHECK_FALSE(d.write);
        CHECK_FALSE(d.trim);
    }
    SECTION("errors") {
        CHECK_THROWS_WITH(units::parse_ddir_sizes("4k,8k,16k,32k"), Catch::Contains("at most three"));
        CHECK_THROWS_WITH(units::parse_ddir_sizes(","), Catch::Contains("expected a size"));
        CHECK_THROWS_WITH(units::parse_ddir_sizes("4k,8x"), Catch::Contains("unknown size unit 'x'"));
    }
}

TEST_CASE("parse_time: suffixes and default units", "[units]") {
    CHECK(units::parse_time("10", TimeUnit::SEC).count() == 10'000'000'000);
    CHECK(units::parse_time("10", TimeUnit::NSEC).count() == 10);
    CHECK(units::parse_time("10", TimeUnit::USEC).count() == 10'000);
    CHECK(units::parse_time("10", TimeUnit::MSEC).count() == 10'000'000);
    CHECK(units::parse_time("100ns", TimeUnit::SEC).count() == 100);
    CHECK(units::parse_time("250us", TimeUnit::SEC).count() == 250'000);
    CHECK(units::parse_time("250usec", TimeUnit::SEC).count() == 250'000);
    CHECK(units::parse_time("500ms", TimeUnit::SEC).count() == 500'000'000);
    CHECK(units::parse_time("500msec", TimeUnit::SEC).count() == 500'000'000);
    CHECK(units::parse_time("1s", TimeUnit::NSEC).count() == 1'000'000'000);
    CHECK(units::parse_time("1sec", TimeUnit::NSEC).count() == 1'000'000'000);
    CHECK(units::parse_time("2m", TimeUnit::SEC).count() == 120'000'000'000);
    CHECK(units::parse_time("2min", TimeUnit::SEC).count() == 120'000'000'000);
    CHECK(units::parse_time("1h", TimeUnit::SEC).count() == 3'600'000'000'000);
    CHECK(units::parse_time("1d", TimeUnit::SEC).count() == 86'400'000'000'000);
    CHECK(units::parse_time("10MS", TimeUnit::SEC).count() == 10'000'000);
}

TEST_CASE("parse_time: errors", "[units]") {
    CHECK_THROWS_WITH(units::parse_time("10parsecs", TimeUnit::SEC),
                      Catch::Contains("unknown time unit 'parsecs'") && Catch::Contains("ns, us, ms, s, m, h or d"));
    CHECK_THROWS_WITH(units::parse_time("fast", TimeUnit::SEC), Catch::Contains("expected a time like 10s"));
    CHECK_THROWS_WITH(units::parse_time("1.5s", TimeUnit::SEC), Catch::Contains("fractional"));
    CHECK_THROWS_WITH(units::parse_time("-1s", TimeUnit::SEC), Catch::Contains("negative"));
}

TEST_CASE("parse_time: times that overflow int64 nanoseconds are refused", "[units]") {
    CHECK(units::parse_time("9223372036854775807ns", TimeUnit::SEC).count() == INT64_MAX);
    CHECK_THROWS_WITH(units::parse_time("9223372036854775808ns", TimeUnit::SEC), Catch::Contains("too long"));
    CHECK_THROWS_WITH(units::parse_time("9223372037", TimeUnit::SEC), Catch::Contains("too long"));
    CHECK_THROWS_WITH(units::parse_time("200000d", TimeUnit::SEC), Catch::Contains("too long"));
}

TEST_CASE("parse_uint and parse_bool", "[units]") {
    CHECK(units::parse_uint("42") == 42);
    CHECK(units::parse_uint("0x2a") == 42);
    CHECK(units::parse_uint("18446744073709551615") == UINT64_MAX);
    CHECK_THROWS_WITH(units::parse_uint("18446744073709551616"), Catch::Contains("too large"));
    CHECK_THROWS_WITH(units::parse_uint("4k"), Catch::Contains("expected a non-negative integer"));
    CHECK_THROWS_WITH(units::parse_uint("0xzz"), Catch::Contains("hexadecimal"));
    CHECK(units::parse_bool("1"));
    CHECK(units::parse_bool("true"));
    CHECK_FALSE(units::parse_bool("0"));
    CHECK_FALSE(units::parse_bool("false"));
    CHECK_THROWS_WITH(units::parse_bool("yes"), Catch::Contains("expected a boolean"));
}

TEST_CASE("parse_cpu_list: fio's cpus_allowed syntax", "[units]") {
    CHECK(units::parse_cpu_list("0-3,6") == std::vector<uint32_t>{0, 1, 2, 3, 6});
    CHECK(units::parse_cpu_list("5") == std::vector<uint32_t>{5});
    CHECK(units::parse_cpu_list("6,0-1,1") == std::vector<uint32_t>{0, 1, 6});
    CHECK(units::parse_cpu_list(" 2 - 3 , 7 ") == std::vector<uint32_t>{2, 3, 7});
    CHECK_THROWS_WITH(units::parse_cpu_list("3-1"), Catch::Contains("backwards"));
    CHECK_THROWS_WITH(units::parse_cpu_list("a-b"), Catch::Contains("expected a CPU list like 0-3,6"));
    CHECK_THROWS_WITH(units::parse_cpu_list(""), Catch::Contains("expected a CPU list"));
    CHECK_THROWS_WITH(units::parse_cpu_list("0-99999999"), Catch::Contains("too large"));
}
