// Greedy garbage collection of a flash translation layer under uniform random writes, as
// the cost of freeing one block: the figures a device model needs to run GC as work on its
// flash timelines (models/device/sata_ssd.h). Pure functions, evaluated once per drive.
//
// Under uniform random overwrites, with greedy (fewest valid pages) or FIFO victim selection
// and many pages per block, the fraction v of a victim's pages still valid solves
//     v = exp(-alpha (1 - v)),   alpha = physical / logical capacity (1 + over-provisioning),
// i.e. v = -W(-alpha e^-alpha) / alpha, write amplification 1 / (1 - v) = alpha / (alpha +
// W(-alpha e^-alpha)): Desnoyers, "Analytic models of SSD write performance", ACM TOS 10(2),
// 2014 (SYSTOR '12); the same closed form as Xiang & Kurkoski, "An improved analytic
// expression for write amplification in NAND flash" (2012), whose simulation gives 2.35 at
// over-provisioning 0.3 (this gives 2.35 too: test/device/test_ssd_gc.cc).
#pragma once

#include <cstdint>

namespace blksim::dev {

// The nontrivial root v in [0, 1) of v = exp(-alpha (1 - v)), alpha > 1 (v = 1 is the other
// root): Boost.Math's lambert_w0, as the closed form above.
double greedy_valid_fraction(double alpha);

// What freeing one block costs, in the units of the flash.
struct GcCost {
    uint32_t copies = 0;     // valid pages a victim block holds, read and programmed elsewhere
    uint32_t freed = 0;      // pages the victim gives back to host writes: pages_per_block - copies
    int64_t copy_ns = 0;     // die time of one copy: tR + tPROG
    int64_t erase_ns = 0;    // die time of the block erase: tBERS
    // Die time per host page while GC runs, over tPROG: 1 + (copies x copy_ns + erase_ns) /
    // (freed x tPROG). The host write rate once GC runs is the program rate divided by it.
    double slowdown = 1.0;
    double waf() const { return freed ? static_cast<double>(copies + freed) / freed : 0.0; }
};

// The cost at alpha for blocks of pages_per_block pages (copies rounded to whole pages).
GcCost greedy_gc_cost(double alpha, uint32_t pages_per_block, int64_t read_ns, int64_t program_ns,
                      int64_t erase_ns);

}  // namespace blksim::dev
