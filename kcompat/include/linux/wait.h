/* SPDX-License-Identifier: GPL-2.0 */
/* Wait queues (include/linux/wait.h): the entries kyber puts on its token pools' queues.
 * Nothing sleeps in a plugin: a wake-up calls the entry's function (kyber_domain_wake,
 * which runs the hctx through blksim), as __wake_up_common() does (kcompat/lib/wait.c). */
#ifndef _KCOMPAT_LINUX_WAIT_H
#define _KCOMPAT_LINUX_WAIT_H

#include <linux/list.h>
#include <linux/spinlock.h>

#define WQ_FLAG_EXCLUSIVE 0x01
#define TASK_NORMAL 3

struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *wq_entry, unsigned mode, int flags, void *key);

struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};
typedef struct wait_queue_entry wait_queue_entry_t;

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};
typedef struct wait_queue_head wait_queue_head_t;

static inline void init_waitqueue_head(struct wait_queue_head *wq_head)
{
	spin_lock_init(&wq_head->lock);
	INIT_LIST_HEAD(&wq_head->head);
}

static inline void init_waitqueue_func_entry(struct wait_queue_entry *wq_entry, wait_queue_func_t func)
{
	wq_entry->flags = 0;
	wq_entry->private = NULL;
	wq_entry->func = func;
}

static inline int waitqueue_active(struct wait_queue_head *wq_head)
{
	return !list_empty(&wq_head->head);
}

void add_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry);
void remove_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry);
int __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive, void *key);

#define wake_up_nr(x, nr) __wake_up(x, TASK_NORMAL, nr, NULL)
#define wake_up(x) __wake_up(x, TASK_NORMAL, 1, NULL)

#endif
