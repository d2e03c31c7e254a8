// The checks of a drive's free-block pool parameters that only make sense together (the
// SATA SSD's and the NVMe's descriptors, which name the fields alike): ssd_write_buffer.h.
#pragma once

#include <string>

#include "models/kind/param.h"

namespace blksim::dev {

// Some spare, blocks of at least two pages, and the GC watermark below the spare (for configs
// built in code too: the descriptors' ranges check what a scenario sets).
template <class Cfg>
kind::Problem check_free_pool(const Cfg& c) {
    if (!(c.over_provisioning > 0.0) || c.over_provisioning > 4.0)
        return {"over_provisioning", "over_provisioning must be above 0 and at most 4 (spare flash over user "
                                     "capacity; a drive without spare has no free block to collect into)"};
    if (c.pages_per_block < 2 || c.pages_per_block > 65536)
        return {"pages_per_block", "pages_per_block must be 2..65536"};
    if (c.free_pool_gc && c.spare_blocks() <= c.gc_low_blocks)
        return {"gc_low_blocks", "gc_low_blocks (" + std::to_string(c.gc_low_blocks) +
                                     ") must be below the spare area's " + std::to_string(c.spare_blocks()) +
                                     " blocks (over_provisioning x capacity / (page_kb x pages_per_block))"};
    return {};
}

}  // namespace blksim::dev
