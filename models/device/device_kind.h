// What a scenario can choose as a device: one descriptor per model, owned by the model's
// own file (name, help, its parameter table, its checks, how to build it) and gathered by
// the one list in device_kinds.cc. The machine builds devices through their descriptors and
// the scenario loader fills a model's config by walking its table; neither names a model.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <typeinfo>

#include "models/kind/param.h"

namespace blksim::sim {
class EventQueue;
}

namespace blksim::dev {

class BuildCache;
class Device;
class DeviceKind;

// One device's model and its typed parameters (the model's own config struct).
class ModelParams {
public:
    ModelParams() = default;
    ModelParams(const DeviceKind& kind, std::any config) : kind_(&kind), config_(std::move(config)) {}

    bool empty() const { return kind_ == nullptr; }
    const DeviceKind& kind() const {
        if (!kind_) throw std::logic_error("device without a model");
        return *kind_;
    }
    std::any& config() { return config_; }
    const std::any& config() const { return config_; }
    // The config as the model's struct C; nullptr when the model is another.
    template <class C> C* get() { return std::any_cast<C>(&config_); }
    template <class C> const C* get() const { return std::any_cast<C>(&config_); }

private:
    const DeviceKind* kind_ = nullptr;
    std::any config_;
};

// What the block layer and the jobs need to know of a device before it exists.
struct DeviceGeometry {
    uint64_t capacity_bytes;
    uint32_t logical_block_size;
    uint32_t nr_hw_queues;   // before the cap at the number of CPUs; 0 = one per CPU
    uint32_t queue_depth;    // tags per hctx
};

class DeviceKind {
public:
    // help: one line for `blksim list`; params_help: what the params object is, for the schema.
    constexpr DeviceKind(std::string_view name, std::string_view help, std::string_view params_help)
        : name_(name), help_(help), params_help_(params_help) {}
    virtual ~DeviceKind() = default;

    std::string_view name() const { return name_; }
    std::string_view help() const { return help_; }
    std::string_view params_help() const { return params_help_; }

    // The parameter table, in the order the loader applies keys (a later key wins).
    virtual std::size_t nr_params() const = 0;
    virtual const kind::ParamInfo& param(std::size_t i) const = 0;
    // Parameter i as the model's defaults hold it ("64", "80us"; "-" when not stored).
    virtual std::string default_text(std::size_t i) const = 0;

    virtual ModelParams defaults() const = 0;
    virtual const std::type_info& config_type() const = 0;
    virtual void set(ModelParams& p, std::size_t i, const kind::Value& v) const = 0;
    // The model's cross-field checks of its params alone (nr_cpus: the host's, for an
    // interrupt CPU), and of the whole device once a composite has its members.
    virtual kind::Problem validate(const ModelParams& p, uint32_t nr_cpus) const = 0;
    virtual std::string check_complete(const ModelParams& /*p*/) const { return {}; }

    // cache: what the machine's devices share while they are built (build_cache.h).
    virtual std::unique_ptr<Device> make(const ModelParams& p, sim::EventQueue& eq, uint32_t nr_cpus,
                                         BuildCache& cache) const = 0;
    virtual DeviceGeometry geometry(const ModelParams& p) const = 0;

    // A composite (a RAID controller) takes a `members` list of devices of the kinds that
    // may be members; the members' configs live in the composite's own config.
    virtual bool has_members() const { return false; }
    virtual bool may_be_member() const { return false; }
    virtual void add_member(ModelParams& /*p*/, std::string /*name*/, ModelParams /*member*/) const {}

private:
    std::string_view name_;
    std::string_view help_;
    std::string_view params_help_;
};

// The functions a model gives for its config struct C.
template <class C>
struct DeviceOps {
    std::span<const kind::Param<C>> params;
    std::unique_ptr<Device> (*make)(const C&, sim::EventQueue&, uint32_t nr_cpus, BuildCache& cache);
    DeviceGeometry (*geometry)(const C&);
    kind::Problem (*validate)(const C&, uint32_t nr_cpus) = nullptr;
    bool may_be_member = false;  // may sit behind a RAID controller
};

template <class C>
class DeviceKindOf : public DeviceKind {
public:
    constexpr DeviceKindOf(std::string_view name, std::string_view help, std::string_view params_help, DeviceOps<C> ops)
        : DeviceKind(name, help, params_help), ops_(ops) {}

    std::size_t nr_params() const override { return ops_.params.size(); }
    const kind::ParamInfo& param(std::size_t i) const override { return ops_.params[i].info; }
    std::string default_text(std::size_t i) const override { return ops_.params[i].text(C{}); }
    ModelParams defaults() const override { return ModelParams(*this, C{}); }
    const std::type_info& config_type() const override { return typeid(C); }
    void set(ModelParams& p, std::size_t i, const kind::Value& v) const override { ops_.params[i].set(of(p), v); }
    kind::Problem validate(const ModelParams& p, uint32_t nr_cpus) const override {
        return ops_.validate ? ops_.validate(of(p), nr_cpus) : kind::Problem{};
    }
    std::unique_ptr<Device> make(const ModelParams& p, sim::EventQueue& eq, uint32_t nr_cpus,
                                 BuildCache& cache) const override {
        return ops_.make(of(p), eq, nr_cpus, cache);
    }
    DeviceGeometry geometry(const ModelParams& p) const override { return ops_.geometry(of(p)); }
    bool may_be_member() const override { return ops_.may_be_member; }

protected:
    static C& of(ModelParams& p) { return std::any_cast<C&>(p.config()); }
    static const C& of(const ModelParams& p) { return std::any_cast<const C&>(p.config()); }

private:
    DeviceOps<C> ops_;
};

}  // namespace blksim::dev
