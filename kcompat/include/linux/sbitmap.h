/* SPDX-License-Identifier: GPL-2.0 */
/* The scheduler tags' bitmap as limit_depth sees it: its word size (shift) and the
 * smallest shallow depth the scheduler announces (sbitmap_queue_min_shallow_depth). The
 * tags themselves are blksim's. */
#ifndef _KCOMPAT_LINUX_SBITMAP_H
#define _KCOMPAT_LINUX_SBITMAP_H

#include <linux/types.h>

struct sbitmap {
	unsigned int depth;
	unsigned int shift;
	unsigned int map_nr;
};

struct sbitmap_queue {
	struct sbitmap sb;
	unsigned int wake_batch;
	unsigned int min_shallow_depth;
};

static inline void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq, unsigned int min_shallow_depth)
{
	sbq->min_shallow_depth = min_shallow_depth;
}

/* sbitmap_calculate_shift(): bits per word for a bitmap of `depth` bits. */
static inline int sbitmap_calculate_shift(unsigned int depth)
{
	int shift = 6; /* ilog2(BITS_PER_LONG) */

	if (depth >= 4) {
		while ((4U << shift) > depth)
			shift--;
	}
	return shift;
}

#endif
