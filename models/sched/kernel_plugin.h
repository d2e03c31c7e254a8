// A kernel I/O scheduler's own source file, built with kcompat/ into a plugin and loaded:
// the code blksim's kernel:<name> schedulers run (docs/kernel-schedulers.md).
//
// Building: the .c file is copied alone into a build folder, beside copies of the kernel
// tree's include/linux/rbtree*.h, and compiled with the tree's lib/rbtree.c and kcompat's
// glue (kcompat/lib/*.c) into one shared object:
//     cc -std=gnu11 -O2 -fPIC -shared -fexceptions -fvisibility=hidden -Wl,--no-undefined
//        -DCONFIG_HZ=250 -I <build>/include -I kcompat/include -iquote kcompat/block ...
// The file's quoted includes ("elevator.h", "blk-mq-sched.h", ...) resolve to
// kcompat/block/, its <linux/...> includes to kcompat/include/linux/. The object is cached
// under a hash of everything that went into it, so a second run loads it without building.
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kcompat/include/kcompat/api.h"

namespace blksim::sched {

// A plugin that cannot be found, built or loaded; what() is the whole message.
class KernelPluginError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Where the source of elevator `name` (mq-deadline, kyber) is in `tree`: a .c file itself,
// or a folder holding block/<file> (a kernel tree) or <file> (its block/ folder).
std::filesystem::path kernel_scheduler_source(const std::filesystem::path& tree, std::string_view name);

// blksim's own files a plugin is built with (the CLI finds them beside its binary):
// kcompat/, and the kernel tree that supplies lib/rbtree.c when `tree` has none (may be
// empty). $BLKSIM_KCOMPAT_DIR and $BLKSIM_KERNEL_REF_TREE override them.
struct KernelPluginData {
    std::filesystem::path kcompat, ref_tree;
};

// The built plugin for elevator `name` from `tree` (built now unless cached), checked to
// load and to register an elevator called `name`. Throws KernelPluginError.
std::filesystem::path build_kernel_plugin(const std::filesystem::path& tree, std::string_view name,
                                          const KernelPluginData& data);

// A loaded plugin. Plugins stay loaded for the life of the process; loading one path again
// returns the same object.
class KernelPlugin {
public:
    static std::shared_ptr<const KernelPlugin> load(const std::filesystem::path& so);

    const kcompat_api& api() const { return *api_; }
    std::string_view elevator_name() const { return name_; }
    const std::filesystem::path& path() const { return path_; }

    KernelPlugin(std::filesystem::path path, const kcompat_api* api, std::string name)
        : path_(std::move(path)), api_(api), name_(std::move(name)) {}

private:
    std::filesystem::path path_;
    const kcompat_api* api_;
    std::string name_;
};

}  // namespace blksim::sched
