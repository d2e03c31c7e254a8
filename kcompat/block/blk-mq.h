/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-mq.h */
#ifndef _KCOMPAT_BLK_MQ_H
#define _KCOMPAT_BLK_MQ_H

#include <linux/blkdev.h>

#define queue_for_each_hw_ctx(q, hctx, i) \
	for ((i) = 0; (i) < (q)->nr_hw_queues && ({ hctx = (q)->queue_hw_ctx[i]; 1; }); (i)++)

#endif
