// What a scenario can choose as a queue's I/O scheduler: one descriptor per policy, owned
// by the policy's own file (name, help, its sysfs tunables table, how to build it) and
// gathered by the one list in scheduler_kinds.cc. The block-layer core builds its elevator
// through a descriptor and never names a policy.
#pragma once

#include <any>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "models/sched/elevator.h"

namespace blksim::sim {
class EventQueue;
}

namespace blksim::sched {

// What a policy may need from the queue it is built for.
struct ElevatorContext {
    sim::EventQueue& eq;
    std::span<const uint32_t> cpu_to_hctx;  // blk_mq_map_queues: the hctx of each CPU
    uint32_t nr_hw_queues;
    bool rotational;                        // queue/rotational
    uint32_t nomerges = 0;                  // queue/nomerges: 0 all, 1 one-hit only, 2 none
    std::string_view kernel_plugin = {};    // kernel:<name>: the built plugin (kernel_plugin.h)
};

// One tunable as sysfs shows it, whatever the policy's config struct.
struct TunableInfo {
    std::string_view name;
    int64_t min, max;
    TunableUnit unit;
    std::string_view help;
};

class SchedulerKind {
public:
    constexpr SchedulerKind(std::string_view name, std::string_view help) : name_(name), help_(help) {}
    virtual ~SchedulerKind() = default;

    std::string_view name() const { return name_; }
    std::string_view help() const { return help_; }

    virtual std::size_t nr_tunables() const { return 0; }
    virtual TunableInfo tunable(std::size_t /*i*/) const { return {}; }
    // Tunable i as the policy's defaults hold it, in its sysfs unit.
    virtual int64_t default_value(std::size_t /*i*/) const { return 0; }
    // Sets tunable i (range checked by the caller) in `tunables`, which holds the policy's
    // config struct, or not yet (the defaults are put there first).
    virtual void set(std::any& /*tunables*/, std::size_t /*i*/, int64_t /*v*/) const {}
    // Pairs of tunables that are one setting in two units (a scenario may give one).
    virtual std::span<const std::array<std::string_view, 2>> same_setting() const { return {}; }

    // The policy for one queue, from its tunables (empty = the defaults); nullptr = no
    // elevator ("none").
    virtual std::unique_ptr<Elevator> make(const std::any& tunables, const ElevatorContext& ctx) const = 0;

private:
    std::string_view name_;
    std::string_view help_;
};

// A policy with a tunables struct T and a Tunable<T> table.
template <class T>
class SchedulerKindOf final : public SchedulerKind {
public:
    using MakeFn = std::unique_ptr<Elevator> (*)(const T&, const ElevatorContext&);
    constexpr SchedulerKindOf(std::string_view name, std::string_view help, std::span<const Tunable<T>> table,
                              MakeFn make, std::span<const std::array<std::string_view, 2>> same = {})
        : SchedulerKind(name, help), table_(table), make_(make), same_(same) {}

    std::size_t nr_tunables() const override { return table_.size(); }
    TunableInfo tunable(std::size_t i) const override {
        const Tunable<T>& t = table_[i];
        return {t.name, t.min, t.max, t.unit, t.help};
    }
    int64_t default_value(std::size_t i) const override {
        // A policy without tunables (noop) has an empty table: there is no i to ask for, and
        // g++ would otherwise warn about reading through a member pointer into an empty struct.
        if constexpr (std::is_empty_v<T>)
            return 0;
        else
            return table_[i].get(T{});
    }
    void set(std::any& tunables, std::size_t i, int64_t v) const override {
        if (std::any_cast<T>(&tunables) == nullptr)
            tunables = T{};
        table_[i].set(std::any_cast<T&>(tunables), v);
    }
    std::span<const std::array<std::string_view, 2>> same_setting() const override { return same_; }
    std::unique_ptr<Elevator> make(const std::any& tunables, const ElevatorContext& ctx) const override {
        // Tunables of another policy (the queue's scheduler was switched after they were
        // set) do not apply: the policy starts from its defaults, as after a sysfs switch.
        const T* t = std::any_cast<T>(&tunables);
        return make_(t ? *t : T{}, ctx);
    }

private:
    std::span<const Tunable<T>> table_;
    MakeFn make_;
    std::span<const std::array<std::string_view, 2>> same_;
};

}  // namespace blksim::sched
