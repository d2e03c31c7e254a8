/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-mq-tag.h: struct blk_mq_tags is in <linux/blkdev.h>. */
#ifndef _KCOMPAT_BLK_MQ_TAG_H
#define _KCOMPAT_BLK_MQ_TAG_H

#include <linux/blkdev.h>

#endif
