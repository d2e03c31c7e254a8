/* SPDX-License-Identifier: GPL-2.0 */
/* Inside a plugin: the queue blksim creates (request_queue, its hctxs and scheduler tags)
 * and what blk_mq_sched_try_merge() found for the adapter. */
#ifndef _KCOMPAT_PLUGIN_H
#define _KCOMPAT_PLUGIN_H

#include <linux/blkdev.h>
#include "elevator.h"

struct kcompat_queue {
	struct request_queue q;
	struct blk_mq_hw_ctx *hctxs;
	struct blk_mq_tags *sched_tags;
	struct blk_mq_hw_ctx **hctx_ptrs;
	enum elv_merge merge_type;
	struct request *merge_rq;
};

static inline struct kcompat_queue *kcompat_queue_of(struct request_queue *q)
{
	return container_of(q, struct kcompat_queue, q);
}

extern struct elevator_type *kcompat_registered_type;

#endif
