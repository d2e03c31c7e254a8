// SPDX-License-Identifier: GPL-2.0
/* block/blk-ioc.c for blksim's tasks: each job thread that submits to a queue is a
 * task_struct with an io_context (its io priority), and gets one io_cq of the elevator's
 * icq_size the first time ioc_find_get_icq() asks, on which ops.init_icq runs. A task
 * never exits during a run: its io_cq lives to the queue's end, where ops.exit_icq runs
 * (ioc_clear_queue() in elevator_exit(), before exit_sched). */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/iocontext.h>
#include "elevator.h"
#include "kcompat/plugin.h"

__thread struct task_struct *kcompat_current;

struct kcompat_task {
	struct task_struct task;
	struct io_context ioc;
	struct list_head node;
};

void kcompat_set_current(struct kcompat_queue *kq, uint32_t pid, uint8_t ioprio_class, uint8_t ioprio_level)
{
	struct kcompat_task *t;

	list_for_each_entry(t, &kq->tasks, node)
		if (t->task.pid == (pid_t)pid)
			goto found;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	BUG_ON(!t);
	t->task.pid = (pid_t)pid;
	t->task.io_context = &t->ioc;
	atomic_set(&t->ioc.refcount, 1);
	atomic_set(&t->ioc.active_ref, 1); /* the task runs */
	list_add_tail(&t->node, &kq->tasks);
found:
	/* ioprio_set() may change it between requests; bfq sees the change at the next one
	 * (bfq_check_ioprio_change). */
	t->ioc.ioprio = IOPRIO_PRIO_VALUE(ioprio_class, ioprio_level);
	kcompat_current = &t->task;
}

struct io_cq *ioc_lookup_icq(struct request_queue *q)
{
	struct io_cq *icq = current ? current->io_context->icq : NULL;

	return icq && icq->q == q ? icq : NULL;
}

struct io_cq *ioc_find_get_icq(struct request_queue *q)
{
	struct io_context *ioc = current ? current->io_context : NULL;
	struct elevator_type *et = q->elevator->type;

	if (!ioc)
		return NULL;
	if (!ioc->icq) {
		struct io_cq *icq = kzalloc(et->icq_size, GFP_KERNEL);

		BUG_ON(!icq);
		icq->q = q;
		icq->ioc = ioc;
		INIT_LIST_HEAD(&icq->q_node);
		ioc->icq = icq;
		if (et->ops.init_icq)
			et->ops.init_icq(icq);
	}
	atomic_inc(&ioc->refcount);
	return ioc->icq;
}

void put_io_context(struct io_context *ioc)
{
	atomic_dec(&ioc->refcount);
}

void kcompat_exit_tasks(struct kcompat_queue *kq)
{
	struct kcompat_task *t, *n;
	struct elevator_type *et = kq->q.elevator ? kq->q.elevator->type : NULL;

	list_for_each_entry_safe(t, n, &kq->tasks, node) {
		kcompat_current = &t->task;
		if (t->ioc.icq && et && et->ops.exit_icq)
			et->ops.exit_icq(t->ioc.icq);
		kfree(t->ioc.icq);
		list_del(&t->node);
		kfree(t);
	}
	kcompat_current = NULL;
}
