/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk.h: the merge checks of block/blk-merge.c (kcompat/lib/elevator.c). */
#ifndef _KCOMPAT_BLK_H
#define _KCOMPAT_BLK_H

#include <linux/blkdev.h>
#include "elevator.h"

bool blk_rq_merge_ok(struct request *rq, struct bio *bio);
enum elv_merge blk_try_merge(struct request *rq, struct bio *bio);
/* The lookup half of blk_bio_list_merge() (kcompat/block/blk-mq-sched.h): the newest 8
 * requests of the list, newest first; the first the bio may merge with is recorded for
 * blksim's core, which merges it if the size limits allow. */
bool blk_bio_list_merge(struct request_queue *q, struct list_head *list, struct bio *bio, unsigned int nr_segs);
bool blk_attempt_req_merge(struct request_queue *q, struct request *rq, struct request *next);

#endif
