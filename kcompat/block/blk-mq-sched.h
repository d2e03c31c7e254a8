/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-mq-sched.h: the merge entry points an elevator calls.
 *
 * In blksim the core owns the request's bios, so the merges are split at the point where
 * the kernel would touch them. blk_mq_sched_try_merge() is the lookup (elv_merge(): the
 * one-hit cache, the back-merge hash, ops.request_merge); it records what it found for the
 * adapter and returns false. blksim then merges the bio into that request and calls back
 * elv_merged_request() and, for the neighbour it may now reach, elv_merge_requests(), as
 * the kernel's bio_attempt_*_merge() and attempt_*_merge() do. Likewise the core tries the
 * insert merge (q->last_merge, elv_rqhash_find()) before ops.insert_requests, so
 * blk_mq_sched_try_insert_merge() finds nothing to do. */
#ifndef _KCOMPAT_BLK_MQ_SCHED_H
#define _KCOMPAT_BLK_MQ_SCHED_H

#include <linux/blkdev.h>
#include "elevator.h"

bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int nr_segs,
			    struct request **merged_request);
bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq, struct list_head *free);

static inline bool blk_mq_sched_allow_merge(struct request_queue *q, struct request *rq, struct bio *bio)
{
	struct elevator_queue *e = q->elevator;

	if (e && e->type->ops.allow_merge)
		return e->type->ops.allow_merge(q, rq, bio);
	return true;
}

#endif
