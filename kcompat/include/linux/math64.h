/* SPDX-License-Identifier: GPL-2.0 */
/* 64-bit division (include/linux/math64.h): the host divides natively. */
#ifndef _KCOMPAT_LINUX_MATH64_H
#define _KCOMPAT_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div64_u64(u64 dividend, u64 divisor) { return dividend / divisor; }
static inline u64 div_u64(u64 dividend, u32 divisor) { return dividend / divisor; }
static inline unsigned long div64_ul(unsigned long dividend, unsigned long divisor) { return dividend / divisor; }
static inline s64 div64_s64(s64 dividend, s64 divisor) { return dividend / divisor; }

/* do_div(n, base): n becomes the quotient, the remainder is returned (n is a u64 lvalue). */
#define do_div(n, base) ({ u32 __base = (base); u32 __rem = (u32)((n) % __base); (n) = (n) / __base; __rem; })

#endif
