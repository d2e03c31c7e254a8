// Simulated time: integer nanoseconds, with distinct types for an instant (Time) and a
// span (Duration) so that "instant + instant" does not compile. int64 nanoseconds cover
// ±292 years, far beyond any run; the scenario loader refuses durations that would not fit.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace blksim::sim {

class Duration {
public:
    constexpr Duration() = default;
    static constexpr Duration ns(int64_t v) { return Duration(v); }
    static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }
    constexpr int64_t count() const { return ns_; }  // nanoseconds
    constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }

    constexpr auto operator<=>(const Duration&) const = default;
    constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
    constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
    constexpr Duration operator*(int64_t k) const { return Duration(ns_ * k); }
    constexpr Duration operator/(int64_t k) const { return Duration(ns_ / k); }
    constexpr Duration& operator+=(Duration o) { ns_ += o.ns_; return *this; }
    constexpr Duration& operator-=(Duration o) { ns_ -= o.ns_; return *this; }

private:
    constexpr explicit Duration(int64_t v) : ns_(v) {}
    int64_t ns_ = 0;
};

class Time {
public:
    constexpr Time() = default;
    static constexpr Time from_ns(int64_t v) { return Time(v); }
    static constexpr Time zero() { return Time(0); }
    static constexpr Time never() { return Time(std::numeric_limits<int64_t>::max()); }
    constexpr int64_t ns() const { return ns_; }
    constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }

    constexpr auto operator<=>(const Time&) const = default;
    constexpr Time operator+(Duration d) const { return Time(ns_ + d.count()); }
    constexpr Time operator-(Duration d) const { return Time(ns_ - d.count()); }
    constexpr Duration operator-(Time o) const { return Duration::ns(ns_ - o.ns_); }
    constexpr Time& operator+=(Duration d) { ns_ += d.count(); return *this; }

private:
    constexpr explicit Time(int64_t v) : ns_(v) {}
    int64_t ns_ = 0;
};

constexpr Time max(Time a, Time b) { return a < b ? b : a; }
constexpr Time min(Time a, Time b) { return a < b ? a : b; }

namespace literals {
constexpr Duration operator""_ns(unsigned long long v) { return Duration::ns(static_cast<int64_t>(v)); }
constexpr Duration operator""_us(unsigned long long v) { return Duration::ns(static_cast<int64_t>(v) * 1000); }
constexpr Duration operator""_ms(unsigned long long v) { return Duration::ns(static_cast<int64_t>(v) * 1000000); }
constexpr Duration operator""_s(unsigned long long v) { return Duration::ns(static_cast<int64_t>(v) * 1000000000); }
}  // namespace literals

}  // namespace blksim::sim
