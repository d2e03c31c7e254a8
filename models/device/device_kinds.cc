#include "models/device/device_kinds.h"

#include <stdexcept>
#include <string>

namespace blksim::dev {

// Each model's descriptor, defined in the model's own file. A new model adds its
// declaration here and its line to the list below.
const DeviceKind& null_blk_kind();
const DeviceKind& nvme_kind();
const DeviceKind& hdd_kind();
const DeviceKind& sata_ssd_kind();
const DeviceKind& raid_kind();
const DeviceKind& ramdisk_kind();
const DeviceKind& loop_kind();

std::span<const DeviceKind* const> device_kinds() {
    static const DeviceKind* const kinds[] = {
        &null_blk_kind(),
        &nvme_kind(),
        &hdd_kind(),
        &sata_ssd_kind(),
        &raid_kind(),
        &ramdisk_kind(),
        &loop_kind(),
    };
    return kinds;
}

const DeviceKind* find_device_kind(std::string_view name) {
    for (const DeviceKind* k : device_kinds())
        if (k->name() == name)
            return k;
    return nullptr;
}

const DeviceKind& device_kind_of(const std::type_info& config) {
    for (const DeviceKind* k : device_kinds())
        if (k->config_type() == config)
            return *k;
    throw std::logic_error(std::string("no device model has the config ") + config.name());
}

}  // namespace blksim::dev
