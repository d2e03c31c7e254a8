/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-stat.h: blksim keeps every request's times itself (rq->start_time_ns and
 * io_start_time_ns are always set), so turning the accounting on or off changes nothing. */
#ifndef _KCOMPAT_BLK_STAT_H
#define _KCOMPAT_BLK_STAT_H

#include <linux/blkdev.h>

static inline void blk_stat_enable_accounting(struct request_queue *q) { (void)q; }
static inline void blk_stat_disable_accounting(struct request_queue *q) { (void)q; }

#endif
