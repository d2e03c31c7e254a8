/* SPDX-License-Identifier: GPL-2.0 */
/* ktime: the simulated clock in nanoseconds, set by blksim before each call. */
#ifndef _KCOMPAT_LINUX_KTIME_H
#define _KCOMPAT_LINUX_KTIME_H

#include <linux/jiffies.h>

typedef s64 ktime_t;

static inline ktime_t ktime_get(void) { return (ktime_t)kcompat_now_ns; }
static inline u64 ktime_get_ns(void) { return kcompat_now_ns; }
static inline s64 ktime_to_ns(ktime_t kt) { return kt; }
static inline ktime_t ns_to_ktime(u64 ns) { return (ktime_t)ns; }
static inline s64 ktime_to_us(ktime_t kt) { return kt / 1000; }
#define ktime_sub(a, b) ((a) - (b))
#define ktime_add_ns(kt, ns) ((kt) + (ns))

#endif
