/* SPDX-License-Identifier: GPL-2.0 */
/* Inside a plugin: the queue blksim creates (request_queue, its hctxs and scheduler tags)
 * and what blk_mq_sched_try_merge() found for the adapter. */
#ifndef _KCOMPAT_PLUGIN_H
#define _KCOMPAT_PLUGIN_H

#include <linux/blkdev.h>
#include <linux/timer.h>
#include "elevator.h"
#include "kcompat/api.h"
#include "kcompat/vsprintf.h"

struct kcompat_queue {
	struct request_queue q;
	struct blk_mq_hw_ctx *hctxs;
	struct blk_mq_tags *sched_tags;
	struct blk_mq_hw_ctx **hctx_ptrs;
	struct blk_mq_ctx *ctxs; /* one per CPU */
	unsigned int nr_cpus;
	struct kcompat_host host;
	enum elv_merge merge_type;
	struct request *merge_rq;
	/* The lookup that found merge_rq: blk_mq_sched_try_merge() (elv_merge(), after which
	 * the kernel calls elv_merged_request()) rather than blk_bio_list_merge(). */
	bool merge_by_elv;
	/* q->disk: its devt names the queue to the tracepoints (kyber keeps only kqd->dev), a
	 * number unique among this thread's queues; `next_traced` links them. */
	struct gendisk disk;
	struct kcompat_queue *next_traced;
	/* The tasks (blksim's job threads) that submitted to this queue, each with its
	 * io_context and, once it asked, its io_cq (kcompat/lib/iocontext.c). */
	struct list_head tasks;
	/* The pointers its trace messages printed (%p prints an id, kcompat/lib/vsprintf.c). */
	struct kcompat_ptr_ids ptr_ids;
};

static inline struct kcompat_queue *kcompat_queue_of(struct request_queue *q)
{
	return container_of(q, struct kcompat_queue, q);
}

extern struct elevator_type *kcompat_registered_type;
/* The queue whose init_sched runs now: the owner of the timers it sets up. */
extern __thread struct kcompat_queue *kcompat_current_queue;
void kcompat_timer_fire(struct timer_list *timer);
/* `current` becomes the queue's task `pid` with io priority (class, level), made at its
 * first call; kcompat_exit_tasks() runs ops.exit_icq for each io_cq and frees them. */
void kcompat_set_current(struct kcompat_queue *kq, uint32_t pid, uint8_t ioprio_class, uint8_t ioprio_level);
void kcompat_exit_tasks(struct kcompat_queue *kq);

#endif
