// SPDX-License-Identifier: GPL-2.0
/* kernel/sched/wait.c: adding and removing entries, and __wake_up_common(), which calls
 * each entry's function in list order and stops after nr_exclusive exclusive ones. It
 * returns how many exclusive waiters it woke (so a wake-up of non-exclusive entries alone,
 * as kyber's are, counts none). */
#include <linux/wait.h>

void add_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry)
{
	wq_entry->flags &= ~WQ_FLAG_EXCLUSIVE;
	spin_lock(&wq_head->lock);
	list_add(&wq_entry->entry, &wq_head->head);
	spin_unlock(&wq_head->lock);
}

void remove_wait_queue(struct wait_queue_head *wq_head, struct wait_queue_entry *wq_entry)
{
	spin_lock(&wq_head->lock);
	list_del(&wq_entry->entry);
	spin_unlock(&wq_head->lock);
}

/* Called with wq_head->lock held in the kernel; the woken function may take it again to
 * remove itself (sbitmap_del_wait_queue takes no lock), so it is not held here. */
int __wake_up(struct wait_queue_head *wq_head, unsigned int mode, int nr_exclusive, void *key)
{
	struct wait_queue_entry *curr, *next;
	int remaining = nr_exclusive;

	list_for_each_entry_safe(curr, next, &wq_head->head, entry) {
		unsigned int flags = curr->flags;
		int ret = curr->func(curr, mode, 0, key);

		if (ret < 0)
			break;
		if (ret && (flags & WQ_FLAG_EXCLUSIVE) && !--remaining)
			break;
	}
	return nr_exclusive - remaining;
}
