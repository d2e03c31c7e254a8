/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk.h: the merge checks of block/blk-merge.c (kcompat/lib/elevator.c). */
#ifndef _KCOMPAT_BLK_H
#define _KCOMPAT_BLK_H

#include <linux/blkdev.h>
#include "elevator.h"

bool blk_rq_merge_ok(struct request *rq, struct bio *bio);
enum elv_merge blk_try_merge(struct request *rq, struct bio *bio);
bool blk_attempt_req_merge(struct request_queue *q, struct request *rq, struct request *next);

#endif
