/* SPDX-License-Identifier: GPL-2.0 */
/* RCU as the rbtree code uses it: one thread, so publishing a pointer is a store. */
#ifndef _KCOMPAT_LINUX_RCUPDATE_H
#define _KCOMPAT_LINUX_RCUPDATE_H

#include <linux/compiler.h>

#define rcu_assign_pointer(p, v) WRITE_ONCE(p, v)
#define rcu_dereference_raw(p) READ_ONCE(p)

#endif
