// The free-block pool's parameters (ssd_free_pool_config.h) as the SATA SSD's and the NVMe's
// descriptors list them: their rows, written once, and the checks of them that only make
// sense together.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "models/device/ssd_free_pool_config.h"
#include "models/kind/param.h"

namespace blksim::dev {

// The help texts that name a drive's own flash (units or dies) and its default's source.
struct SsdFreePoolHelp {
    std::string_view free_pool_gc;
    std::string_view over_provisioning;
    std::string_view erase_latency;
};

// The rows, in the order both drives list them, for a drive's table (kind::concat).
template <class C>
constexpr std::array<kind::Param<C>, 5> ssd_free_pool_params(const SsdFreePoolHelp& help) {
    using B = SsdFreePoolConfig;
    static_assert(kMinPagesPerBlock == 2 && kMaxPagesPerBlock == 65536 && kMaxGcLowBlocks == 1'000'000 &&
                      kMaxOverProvisioning == 4.0,
                  "the help texts below and check_free_pool()'s messages write these limits");
    return {
        kind::flag<C>("free_pool_gc", &B::free_pool_gc, help.free_pool_gc),
        kind::number<C>("over_provisioning", &B::over_provisioning, 0, kMaxOverProvisioning, help.over_provisioning),
        kind::integer<C, uint32_t>("pages_per_block", &B::pages_per_block, kMinPagesPerBlock, kMaxPagesPerBlock,
                                   "Flash pages per erase block, 2..65536. Default {default}."),
        kind::time<C>("erase_latency", &B::erase_latency, help.erase_latency, 0),
        kind::integer<C, uint32_t>("gc_low_blocks", &B::gc_low_blocks, 1, kMaxGcLowBlocks,
                                   "Free blocks below which garbage collection runs (below the spare area's "
                                   "blocks), 1..1000000. Default {default}."),
    };
}

// Some spare, blocks of at least two pages, and the GC watermark below the spare (for configs
// built in code too: the descriptors' ranges check what a scenario sets).
inline kind::Problem check_free_pool(const SsdFreePoolConfig& c) {
    if (!(c.over_provisioning > 0.0) || c.over_provisioning > kMaxOverProvisioning)
        return {"over_provisioning", "over_provisioning must be above 0 and at most 4 (spare flash over user "
                                     "capacity; a drive without spare has no free block to collect into)"};
    if (c.pages_per_block < kMinPagesPerBlock || c.pages_per_block > kMaxPagesPerBlock)
        return {"pages_per_block", "pages_per_block must be 2..65536"};
    if (c.free_pool_gc && c.spare_blocks() <= c.gc_low_blocks)
        return {"gc_low_blocks", "gc_low_blocks (" + std::to_string(c.gc_low_blocks) +
                                     ") must be below the spare area's " + std::to_string(c.spare_blocks()) +
                                     " blocks (over_provisioning x capacity / (page_kb x pages_per_block))"};
    return {};
}

}  // namespace blksim::dev
