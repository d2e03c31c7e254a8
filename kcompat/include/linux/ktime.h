/* SPDX-License-Identifier: GPL-2.0 */
/* ktime: the simulated clock in nanoseconds, set by blksim before each call. */
#ifndef _KCOMPAT_LINUX_KTIME_H
#define _KCOMPAT_LINUX_KTIME_H

#include <linux/jiffies.h>

typedef s64 ktime_t;

/* The clock read as a real one reads: each read later than the one before, by 1 ns at least.
 * blksim sets the clock once per call, so code that reads it twice would see no time pass,
 * where a real CPU sees hundreds of ns: bfq_init_bfqq() sets last_end_request to its read
 * + 1, and bfq_update_io_intensity() in bfq_add_request() then takes
 * "now - last_end_request" as a u64, which at one instant is -1 and wraps (2^64 - 1 ns of
 * idle time: the queue counts as not I/O-bound for seconds, so bfq never idles for it).
 * The reads run ahead of simulated time by at most their number at one instant, in ns. */
extern __thread u64 kcompat_last_read_ns;
static inline u64 ktime_get_ns(void)
{
	u64 t = kcompat_now_ns > kcompat_last_read_ns ? kcompat_now_ns : kcompat_last_read_ns + 1;

	kcompat_last_read_ns = t;
	return t;
}
static inline ktime_t ktime_get(void) { return (ktime_t)ktime_get_ns(); }
static inline s64 ktime_to_ns(ktime_t kt) { return kt; }
static inline ktime_t ns_to_ktime(u64 ns) { return (ktime_t)ns; }
static inline s64 ktime_to_us(ktime_t kt) { return kt / 1000; }
#define ktime_sub(a, b) ((a) - (b))
#define ktime_add_ns(kt, ns) ((kt) + (ns))

#endif
