/* SPDX-License-Identifier: GPL-2.0 */
/* Block-layer types live together in <linux/blkdev.h> here. */
#ifndef _KCOMPAT_LINUX_BLK_MQ_H
#define _KCOMPAT_LINUX_BLK_MQ_H

#include <linux/blkdev.h>

/* Runs the hctx through blksim's core, from kblockd when async (kcompat/lib/blksim.c). */
void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx, bool async);

#endif
