/* SPDX-License-Identifier: GPL-2.0 */
/* jiffies: the simulated clock in ticks of 1/HZ s, set by blksim before each call into the
 * plugin (jiffies(t) = floor(t * HZ), counted from the start of the run; per thread, as a
 * sweep runs machines on several threads). HZ is the build's CONFIG_HZ. */
#ifndef _KCOMPAT_LINUX_JIFFIES_H
#define _KCOMPAT_LINUX_JIFFIES_H

#include <limits.h>
#include <linux/types.h>

#ifndef CONFIG_HZ
#define CONFIG_HZ 250
#endif
#define HZ CONFIG_HZ
#define MSEC_PER_SEC 1000L
#define USEC_PER_SEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define NSEC_PER_MSEC 1000000L
#define NSEC_PER_USEC 1000L
#define USEC_PER_MSEC 1000L
#define MAX_JIFFY_OFFSET ((LONG_MAX >> 1) - 1)

extern __thread unsigned long kcompat_jiffies;
extern __thread u64 kcompat_now_ns;
#define jiffies kcompat_jiffies

#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_is_after_jiffies(a) time_before(jiffies, a)
#define time_is_before_jiffies(a) time_after(jiffies, a)
#define time_is_after_eq_jiffies(a) time_before_eq(jiffies, a)
#define time_is_before_eq_jiffies(a) time_after_eq(jiffies, a)

/* The kernel's rounding: up for msecs/usecs to jiffies, down for jiffies to msecs. */
static inline unsigned long msecs_to_jiffies(const unsigned int m)
{
	return ((u64)m * HZ + MSEC_PER_SEC - 1) / MSEC_PER_SEC;
}

static inline unsigned long usecs_to_jiffies(const unsigned int u)
{
	return ((u64)u * HZ + USEC_PER_SEC - 1) / USEC_PER_SEC;
}

static inline unsigned long nsecs_to_jiffies(u64 n)
{
	return n / (NSEC_PER_SEC / HZ);
}

static inline unsigned int jiffies_to_msecs(const unsigned long j)
{
	return (MSEC_PER_SEC / HZ) * j;
}

static inline unsigned int jiffies_to_usecs(const unsigned long j)
{
	return (USEC_PER_SEC / HZ) * j;
}

#endif
