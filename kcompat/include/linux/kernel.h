/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's general helpers that scheduler code uses. */
#ifndef _KCOMPAT_LINUX_KERNEL_H
#define _KCOMPAT_LINUX_KERNEL_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/export.h>
#include <linux/math64.h>
#include <linux/bitops.h>

#define U32_MAX ((u32)~0U)
#define U64_MAX ((u64)~0ULL)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a < __b ? __a : __b; })
#define max(a, b) ({ __typeof__(a) __a = (a); __typeof__(b) __b = (b); __a > __b ? __a : __b; })
#define min_t(type, a, b) min((type)(a), (type)(b))
#define max_t(type, a, b) max((type)(a), (type)(b))
/* The kernel's abs() takes any signed type (bfq: sector distances, s64). */
#define abs(x) ({ __typeof__(x) __x = (x); __x < 0 ? -__x : __x; })
#define max3(x, y, z) max((__typeof__(x))max(x, y), z)
#define min3(x, y, z) min((__typeof__(x))min(x, y), z)
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)
#define clamp_val(v, lo, hi) clamp(v, (__typeof__(v))(lo), (__typeof__(v))(hi))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define BIT(nr) (1UL << (nr))
#define ENOMEM 12
#define EINVAL 22
#define ERANGE 34
#define PAGE_SIZE 4096UL
#define pr_warn(fmt...) ((void)0)
#define pr_info(fmt...) ((void)0)
#define pr_err(fmt...) ((void)0)
#define pr_crit(fmt...) ((void)0)
#define smp_rmb() barrier()
#define smp_wmb() barrier()
#define smp_mb() barrier()
#define might_sleep() ((void)0)

/* kstrtoint(): a whole-string integer in base 0 (0x.., 0.., decimal), a trailing newline
 * allowed; -EINVAL or -ERANGE otherwise. */
int kstrtoint(const char *s, unsigned int base, int *res);
int kstrtouint(const char *s, unsigned int base, unsigned int *res);
int kstrtoul(const char *s, unsigned int base, unsigned long *res);
int kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int kstrtou64(const char *s, unsigned int base, u64 *res);
/* sysfs_emit(): printf into a sysfs page. */
int sysfs_emit(char *buf, const char *fmt, ...) __attribute__((__format__(__printf__, 2, 3)));

static inline unsigned int ilog2(unsigned long v)
{
	return v ? (unsigned int)(8 * sizeof(long) - 1 - __builtin_clzl(v)) : 0;
}

#endif
