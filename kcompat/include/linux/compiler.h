/* SPDX-License-Identifier: GPL-2.0 */
/* Compiler annotations. The plugin runs single-threaded inside the simulation, so the
 * kernel's once-accesses are plain accesses. */
#ifndef _KCOMPAT_LINUX_COMPILER_H
#define _KCOMPAT_LINUX_COMPILER_H

#include <linux/types.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define noinline __attribute__((__noinline__))
#define __maybe_unused __attribute__((__unused__))
#define __must_check
#define __cold __attribute__((__cold__))
#define fallthrough __attribute__((__fallthrough__))
#define __rcu
#define __acquires(x)
#define __releases(x)
#define __must_hold(x)
#define READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val) (*(volatile __typeof__(x) *)&(x) = (val))
#define barrier() __asm__ __volatile__("" ::: "memory")

#endif
