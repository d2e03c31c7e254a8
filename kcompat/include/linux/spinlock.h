/* SPDX-License-Identifier: GPL-2.0 */
/* Spinlocks. blksim's request queue charges the elevator lock on the CPU model's lock
 * timeline around each call into the plugin, as it does for its own mq-deadline (the
 * adapter declares the same lock scope and hold times), so taking the lock here costs
 * nothing more. lockdep_assert_held() checks that a lock the code expects held is. */
#ifndef _KCOMPAT_LINUX_SPINLOCK_H
#define _KCOMPAT_LINUX_SPINLOCK_H

#include <linux/bug.h>

typedef struct {
	int held;
} spinlock_t;

#define DEFINE_SPINLOCK(x) spinlock_t x = { 0 }
#define spin_lock_init(l) do { (l)->held = 0; } while (0)
#define spin_lock(l) do { BUG_ON((l)->held); (l)->held = 1; } while (0)
#define spin_unlock(l) do { (l)->held = 0; } while (0)
#define spin_lock_irq(l) spin_lock(l)
#define spin_unlock_irq(l) spin_unlock(l)
#define spin_lock_irqsave(l, flags) do { (void)(flags); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { (void)(flags); spin_unlock(l); } while (0)
/* Set while blksim calls an entry point whose kernel caller already holds the elevator's
 * lock: elv_merge_requests() runs from attempt_merge() inside ->bio_merge() or
 * ->insert_requests(), under dd->lock. blksim's core makes that merge after the lookup
 * returned (kcompat/block/blk-mq-sched.h), holding the queue's elevator lock itself, so the
 * lock the code asserts is held by its caller. */
extern __thread int kcompat_caller_holds_lock;
#define lockdep_assert_held(l) BUG_ON(!(l)->held && !kcompat_caller_holds_lock)

#endif
