/* SPDX-License-Identifier: GPL-2.0 */
/* Block-layer types live together in <linux/blkdev.h> here. */
#include <linux/blkdev.h>
