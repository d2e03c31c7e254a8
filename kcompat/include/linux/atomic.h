/* SPDX-License-Identifier: GPL-2.0 */
/* atomic_t: the plugin runs on the simulation's one thread. */
#ifndef _KCOMPAT_LINUX_ATOMIC_H
#define _KCOMPAT_LINUX_ATOMIC_H

#include <linux/types.h>

#define ATOMIC_INIT(i) { (i) }
static inline int atomic_read(const atomic_t *v) { return v->counter; }
static inline void atomic_set(atomic_t *v, int i) { v->counter = i; }
static inline void atomic_inc(atomic_t *v) { v->counter++; }
static inline void atomic_dec(atomic_t *v) { v->counter--; }
static inline void atomic_add(int i, atomic_t *v) { v->counter += i; }
static inline void atomic_sub(int i, atomic_t *v) { v->counter -= i; }
static inline int atomic_inc_return(atomic_t *v) { return ++v->counter; }
static inline int atomic_dec_return(atomic_t *v) { return --v->counter; }

static inline int atomic_xchg(atomic_t *v, int i)
{
	int old = v->counter;

	v->counter = i;
	return old;
}
static inline int atomic_cmpxchg(atomic_t *v, int old, int new)
{
	int cur = v->counter;

	if (cur == old)
		v->counter = new;
	return cur;
}
static inline bool atomic_try_cmpxchg(atomic_t *v, int *old, int new)
{
	if (v->counter == *old) {
		v->counter = new;
		return true;
	}
	*old = v->counter;
	return false;
}

#endif
