// Typed device configuration: a device's name, where it sits, and its model's parameters
// (the model's own config struct, models/device/<model>.h or <model>_config.h).
#pragma once

#include <string>

#include "models/device/device_kinds.h"

namespace blksim::dev {

struct DeviceConfig {
    std::string name;         // e.g. "nullb0"
    std::string controller;   // the HBA / expander it sits behind; "" = directly on the host
    ModelParams model;

    const DeviceKind& kind() const { return model.kind(); }
    template <class C> C* get() { return model.get<C>(); }
    template <class C> const C* get() const { return model.get<C>(); }
    // The config as model C's, made C's defaults first when the device has no model yet
    // (tests and benchmarks build configs this way).
    template <class C> C& as() {
        if (model.empty())
            model = device_kind_of(typeid(C)).defaults();
        C* c = model.get<C>();
        if (c == nullptr)
            throw std::logic_error("device " + name + " is a " + std::string(model.kind().name()) + " device");
        return *c;
    }
    template <class C> const C& as() const {
        const C* c = model.get<C>();
        if (c == nullptr)
            throw std::logic_error("device " + name + " is not of the model asked for");
        return *c;
    }
};

}  // namespace blksim::dev
