/* SPDX-License-Identifier: GPL-2.0 */
/* I/O contexts (block/blk-ioc.c): one io_context per task, holding its io priority
 * (ioprio_set(), fio's prioclass/prio), and one io_cq per (io_context, queue), of the size
 * the elevator asks (icq_size: bfq's bfq_io_cq). In blksim a task lives for the whole run,
 * so an io_cq is made at its task's first request and kept to the queue's end, where
 * ops.exit_icq runs, as when the task exits (kcompat/lib/iocontext.c). */
#ifndef _KCOMPAT_LINUX_IOCONTEXT_H
#define _KCOMPAT_LINUX_IOCONTEXT_H

#include <linux/kernel.h>
#include <linux/sched.h>

struct request_queue;

struct io_cq {
	struct request_queue *q;
	struct io_context *ioc;
	struct list_head q_node;
	unsigned int flags;
};

struct io_context {
	atomic_t refcount;
	atomic_t active_ref;
	unsigned short ioprio;
	struct io_cq *icq; /* its one queue's (each queue has its own tasks) */
};

struct io_cq *ioc_lookup_icq(struct request_queue *q);
struct io_cq *ioc_find_get_icq(struct request_queue *q);
void put_io_context(struct io_context *ioc);

#endif
