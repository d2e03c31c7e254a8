#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdlib>

namespace {

// kernel:<name> schedulers build their plugins into a cache (models/sched/kernel_plugin.h):
// the tests' go to the build folder, not under $HOME, for the blksim processes they start too.
const bool plugin_cache_set = [] {
    const char* c = std::getenv("BLKSIM_CACHE_DIR");
    return c != nullptr && *c != '\0' ? false : setenv("BLKSIM_CACHE_DIR", BLKSIM_BINARY_DIR, 1) == 0;
}();

}  // namespace
