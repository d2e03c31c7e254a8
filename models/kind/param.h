// A model's parameter table: one row per parameter a scenario may set, typed and bound to
// the model's own config struct. The model owns its table (beside its code); the scenario
// loader walks it to fill the config, `blksim list` prints it, and the scenario schema's
// part for the model is generated from it. Models never see JSON: a row says what the
// value is (an integer in some unit, a flag, a time, a choice) and how it is stored.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "sim/time.h"

namespace blksim::kind {

enum class ParamType : uint8_t {
    INT,     // an integer; stored as value * scale
    FLAG,    // 0/1 or false/true
    TIME,    // integer nanoseconds or a time with a unit ("10us")
    NUMBER,  // a real number
    CHOICE,  // one of `names` (stored as its index) or of `values`
    OBJECT,  // a nested description the loader interprets (hdd's `measured`); not stored here
};

inline constexpr int64_t kNoMin = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

// What a parameter is, without the config it is stored in.
struct ParamInfo {
    std::string_view name;
    ParamType type = ParamType::INT;
    std::string_view help;                    // the schema's description of the key
    int64_t min = kNoMin, max = kNoMax;       // INT: range; TIME: minimum in ns
    std::span<const int64_t> values{};        // INT: the only values allowed (when not empty)
    std::span<const std::string_view> names{};  // CHOICE: the values allowed, by name
    uint64_t scale = 1;                       // INT: the config holds value * scale
};

// A decoded value: INT and CHOICE (the index into names, or the value) as int64_t.
using Value = std::variant<int64_t, bool, sim::Duration, double>;

// A finding of a model's cross-field check: the key it concerns ("" = the whole params
// object) and what is wrong. Empty message = the config is valid.
struct Problem {
    std::string key;
    std::string message;
    std::string key_if_absent{};  // named instead of `key` when the scenario did not give `key`
    explicit operator bool() const { return !message.empty(); }
};

template <class C>
struct Param {
    using Member = std::variant<std::monostate, uint32_t C::*, uint64_t C::*, int32_t C::*, bool C::*,
                                sim::Duration C::*, double C::*>;
    ParamInfo info;
    Member member;
    // An enum member: stored and read through these instead (value = CHOICE index / value).
    void (*store)(C&, int64_t) = nullptr;
    int64_t (*load)(const C&) = nullptr;

    void set(C& c, const Value& v) const {
        if (store) return store(c, std::get<int64_t>(v));
        std::visit([&](auto m) {
            using M = decltype(m);
            if constexpr (std::is_same_v<M, uint32_t C::*>) c.*m = static_cast<uint32_t>(std::get<int64_t>(v) * info.scale);
            else if constexpr (std::is_same_v<M, uint64_t C::*>) c.*m = static_cast<uint64_t>(std::get<int64_t>(v)) * info.scale;
            else if constexpr (std::is_same_v<M, int32_t C::*>) c.*m = static_cast<int32_t>(std::get<int64_t>(v));
            else if constexpr (std::is_same_v<M, bool C::*>) c.*m = std::get<bool>(v);
            else if constexpr (std::is_same_v<M, sim::Duration C::*>) c.*m = std::get<sim::Duration>(v);
            else if constexpr (std::is_same_v<M, double C::*>) c.*m = std::get<double>(v);
        }, member);
    }

    // The value `c` holds, as a scenario would write it ("64", "80us", "rpo"); "-" for none.
    std::string text(const C& c) const;
};

std::string duration_text(sim::Duration d);  // "80us", "4s", "0"
std::string number_text(double v);

inline constexpr uint64_t kGB = 1000ULL * 1000 * 1000;  // "gb" parameters count 10^9 bytes
inline constexpr uint64_t kMB = 1000ULL * 1000;         // "*_mbps" parameters count 10^6 bytes/s

// A parameter's help with "{default}" replaced by its default value (so that the default is
// written once, in the config struct), and its first sentence for one-line listings.
std::string help_text(const ParamInfo& p, const std::string& default_text);
std::string first_sentence(std::string_view text);

// The check every device with an interrupt CPU parameter makes: that CPU exists.
Problem check_irq_cpu(uint32_t cpu, uint32_t nr_cpus);

template <class C>
std::string Param<C>::text(const C& c) const {
    if (load) {
        const int64_t v = load(c);
        if (!info.names.empty() && v >= 0 && static_cast<size_t>(v) < info.names.size())
            return std::string(info.names[static_cast<size_t>(v)]);
        return std::to_string(v);
    }
    return std::visit([&](auto m) -> std::string {
        using M = decltype(m);
        if constexpr (std::is_same_v<M, std::monostate>) return "-";
        else if constexpr (std::is_same_v<M, bool C::*>) return c.*m ? "1" : "0";
        else if constexpr (std::is_same_v<M, sim::Duration C::*>) return duration_text(c.*m);
        else if constexpr (std::is_same_v<M, double C::*>) return number_text(c.*m);
        else return std::to_string(static_cast<uint64_t>(c.*m) / info.scale);
    }, member);
}

// Table builders, so that a model's table reads as one line per parameter.
template <class C, class M>
constexpr Param<C> integer(std::string_view name, M C::*m, int64_t min, int64_t max, std::string_view help,
                           uint64_t scale = 1) {
    return {{.name = name, .type = ParamType::INT, .help = help, .min = min, .max = max, .scale = scale}, m};
}
template <class C, class M>
constexpr Param<C> one_of(std::string_view name, M C::*m, std::span<const int64_t> values, std::string_view help) {
    return {{.name = name, .type = ParamType::INT, .help = help, .values = values}, m};
}
template <class C>
constexpr Param<C> flag(std::string_view name, bool C::*m, std::string_view help) {
    return {{.name = name, .type = ParamType::FLAG, .help = help}, m};
}
template <class C>
constexpr Param<C> time(std::string_view name, sim::Duration C::*m, std::string_view help, int64_t min_ns = kNoMin) {
    return {{.name = name, .type = ParamType::TIME, .help = help, .min = min_ns}, m};
}
template <class C>
constexpr Param<C> number(std::string_view name, double C::*m, double min, double max, std::string_view help) {
    return {{.name = name, .type = ParamType::NUMBER, .help = help, .min = static_cast<int64_t>(min),
             .max = static_cast<int64_t>(max)}, m};
}
// An enum member chosen by name (stored as the name's index) or by number (`values`).
template <class C>
constexpr Param<C> choice(std::string_view name, std::span<const std::string_view> names,
                          std::span<const int64_t> values, void (*store)(C&, int64_t), int64_t (*load)(const C&),
                          std::string_view help) {
    return {{.name = name, .type = ParamType::CHOICE, .help = help, .values = values, .names = names},
            std::monostate{}, store, load};
}
template <class C>
constexpr Param<C> object(std::string_view name, std::string_view help) {
    return {{.name = name, .type = ParamType::OBJECT, .help = help}, std::monostate{}};
}

// A table put together from parts, in order: a model's own rows and rows several models
// share (ssd_free_pool_params.h). Rows of a base config's fields name the model's C
// explicitly (kind::flag<C>(...)): the member pointers are the base's.
template <class C, std::size_t... N>
constexpr std::array<Param<C>, (N + ...)> concat(const std::array<Param<C>, N>&... parts) {
    std::array<Param<C>, (N + ...)> table{};
    std::size_t i = 0;
    ((std::copy(parts.begin(), parts.end(), table.begin() + static_cast<std::ptrdiff_t>(i)), i += N), ...);
    return table;
}

}  // namespace blksim::kind
