/* SPDX-License-Identifier: GPL-2.0 */
/* block/blk-mq-debugfs.h: CONFIG_BLK_DEBUG_FS is off in a plugin; blksim reports the
 * scheduler's state itself. */
#ifndef _KCOMPAT_BLK_MQ_DEBUGFS_H
#define _KCOMPAT_BLK_MQ_DEBUGFS_H

struct blk_mq_debugfs_attr;

#endif
