/* SPDX-License-Identifier: GPL-2.0 */
/* Writeback throttling: blksim has none, so bfq's switching it off changes nothing. */
#ifndef _KCOMPAT_BLK_WBT_H
#define _KCOMPAT_BLK_WBT_H

#include <linux/blkdev.h>

static inline void wbt_disable_default(struct request_queue *q) { (void)q; }
static inline void wbt_enable_default(struct request_queue *q) { (void)q; }

#endif
