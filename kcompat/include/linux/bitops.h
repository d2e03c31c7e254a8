/* SPDX-License-Identifier: GPL-2.0 */
/* Bit operations on unsigned long words (bfq's queue flags), for one thread. */
#ifndef _KCOMPAT_LINUX_BITOPS_H
#define _KCOMPAT_LINUX_BITOPS_H

#include <linux/types.h>

#define BITS_PER_LONG (8 * (int)sizeof(long))
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))

static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (addr[BIT_WORD(nr)] & BIT_MASK(nr)) != 0;
}
static inline void __set_bit(long nr, volatile unsigned long *addr) { addr[BIT_WORD(nr)] |= BIT_MASK(nr); }
static inline void __clear_bit(long nr, volatile unsigned long *addr) { addr[BIT_WORD(nr)] &= ~BIT_MASK(nr); }
#define set_bit(nr, addr) __set_bit(nr, addr)
#define clear_bit(nr, addr) __clear_bit(nr, addr)
static inline unsigned int hweight32(unsigned int w) { return (unsigned int)__builtin_popcount(w); }
static inline unsigned long hweight_long(unsigned long w) { return (unsigned long)__builtin_popcountl(w); }

#endif
