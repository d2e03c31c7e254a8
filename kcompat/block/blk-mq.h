/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-mq.h: the software queues (ctx) and their mapping to hctxs. */
#ifndef _KCOMPAT_BLK_MQ_H
#define _KCOMPAT_BLK_MQ_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include "blk-stat.h"

#define queue_for_each_hw_ctx(q, hctx, i) \
	for ((i) = 0; (i) < (q)->nr_hw_queues && ({ hctx = (q)->queue_hw_ctx[i]; 1; }); (i)++)

/* The ctx of the CPU the call runs on. */
struct blk_mq_ctx *blk_mq_get_ctx(struct request_queue *q);

static inline struct blk_mq_hw_ctx *blk_mq_map_queue(struct request_queue *q, blk_opf_t opf,
						     struct blk_mq_ctx *ctx)
{
	(void)q;
	(void)opf;
	return ctx->hctxs[HCTX_TYPE_DEFAULT];
}

#endif
