// SPDX-License-Identifier: GPL-2.0
/* lib/sbitmap.c of Linux 6.1, for one thread: a bitmap split in words of 1 << shift bits,
 * and the sbitmap_queue's wait queues with 6.1's batched wake-up (every wake_batch bits
 * cleared while someone waits wake the queues, starting at wake_index, until one of them
 * wakes an exclusive waiter). A get takes the lowest free bit below depth: the kernel
 * starts at a per-CPU hint, which picks another bit number but never another outcome,
 * since only whether a bit was free matters to its users here. */
#include <linux/kernel.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>

int sbitmap_init_node(struct sbitmap *sb, unsigned int depth, int shift, gfp_t flags, int node,
		      bool round_robin, bool alloc_hint)
{
	unsigned int bits_per_word;

	(void)node;
	(void)alloc_hint;
	if (shift < 0)
		shift = sbitmap_calculate_shift(depth);
	bits_per_word = 1U << shift;
	if (bits_per_word > BITS_PER_LONG)
		return -EINVAL;
	sb->shift = shift;
	sb->depth = depth;
	sb->map_nr = DIV_ROUND_UP(sb->depth, bits_per_word);
	sb->round_robin = round_robin;
	if (depth == 0) {
		sb->map = NULL;
		return 0;
	}
	sb->map = kzalloc(sb->map_nr * sizeof(*sb->map), flags);
	return sb->map ? 0 : -ENOMEM;
}

void sbitmap_free(struct sbitmap *sb)
{
	kfree(sb->map);
	sb->map = NULL;
}

/* Bits at or above the new depth stay set until cleared; they are never handed out. The
 * words are not reallocated: a pool never grows past the depth it was made with. */
void sbitmap_resize(struct sbitmap *sb, unsigned int depth)
{
	sb->depth = depth;
	sb->map_nr = DIV_ROUND_UP(sb->depth, 1U << sb->shift);
}

static unsigned int map_depth(const struct sbitmap *sb, unsigned int index)
{
	unsigned int word = 1U << sb->shift;

	return index + 1 < sb->map_nr ? word : sb->depth - index * word;
}

int sbitmap_get(struct sbitmap *sb)
{
	unsigned int i, b;

	for (i = 0; i < sb->map_nr; i++)
		for (b = 0; b < map_depth(sb, i); b++)
			if (!(sb->map[i].word & (1UL << b))) {
				sb->map[i].word |= 1UL << b;
				return (int)((i << sb->shift) + b);
			}
	return -1;
}

bool sbitmap_any_bit_set(const struct sbitmap *sb)
{
	unsigned int i;

	for (i = 0; i < sb->map_nr; i++)
		if (sb->map[i].word)
			return true;
	return false;
}

/* __sbitmap_for_each_set() from bit 0: set bits in ascending order until fn says stop. */
void sbitmap_for_each_set(struct sbitmap *sb, sb_for_each_fn fn, void *data)
{
	unsigned int i, b;

	for (i = 0; i < sb->map_nr; i++)
		for (b = 0; b < map_depth(sb, i); b++)
			if ((sb->map[i].word & (1UL << b)) && !fn(sb, (i << sb->shift) + b, data))
				return;
}

static unsigned int sbq_calc_wake_batch(struct sbitmap_queue *sbq, unsigned int depth)
{
	unsigned int shallow_depth = min(1U << sbq->sb.shift, sbq->min_shallow_depth);

	depth = (depth >> sbq->sb.shift) * shallow_depth + min(depth & ((1U << sbq->sb.shift) - 1), shallow_depth);
	return clamp_t(unsigned int, depth / SBQ_WAIT_QUEUES, 1, SBQ_WAKE_BATCH);
}

int sbitmap_queue_init_node(struct sbitmap_queue *sbq, unsigned int depth, int shift, bool round_robin,
			    gfp_t flags, int node)
{
	int ret = sbitmap_init_node(&sbq->sb, depth, shift, flags, node, round_robin, true);
	int i;

	if (ret)
		return ret;
	sbq->min_shallow_depth = UINT_MAX;
	sbq->wake_batch = sbq_calc_wake_batch(sbq, depth);
	atomic_set(&sbq->wake_index, 0);
	atomic_set(&sbq->ws_active, 0);
	atomic_set(&sbq->completion_cnt, 0);
	atomic_set(&sbq->wakeup_cnt, 0);
	sbq->ws = kzalloc(SBQ_WAIT_QUEUES * sizeof(*sbq->ws), flags);
	if (!sbq->ws) {
		sbitmap_free(&sbq->sb);
		return -ENOMEM;
	}
	for (i = 0; i < SBQ_WAIT_QUEUES; i++)
		init_waitqueue_head(&sbq->ws[i].wait);
	return 0;
}

void sbitmap_queue_free(struct sbitmap_queue *sbq)
{
	kfree(sbq->ws);
	sbitmap_free(&sbq->sb);
}

static void sbitmap_queue_update_wake_batch(struct sbitmap_queue *sbq, unsigned int depth)
{
	sbq->wake_batch = sbq_calc_wake_batch(sbq, depth);
}

void sbitmap_queue_resize(struct sbitmap_queue *sbq, unsigned int depth)
{
	sbitmap_queue_update_wake_batch(sbq, depth);
	sbitmap_resize(&sbq->sb, depth);
}

int __sbitmap_queue_get(struct sbitmap_queue *sbq)
{
	return sbitmap_get(&sbq->sb);
}

void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq, unsigned int min_shallow_depth)
{
	sbq->min_shallow_depth = min_shallow_depth;
	sbitmap_queue_update_wake_batch(sbq, sbq->sb.depth);
}

static void __sbitmap_queue_wake_up(struct sbitmap_queue *sbq, int nr)
{
	int i, wake_index;

	if (!atomic_read(&sbq->ws_active))
		return;
	wake_index = atomic_read(&sbq->wake_index);
	for (i = 0; i < SBQ_WAIT_QUEUES; i++) {
		struct sbq_wait_state *ws = &sbq->ws[wake_index];

		/* Advance first, so that a queue need not be emptied before the next is tried. */
		wake_index = sbq_index_inc(wake_index);
		/* Waking one (exclusive) waiter is enough for forward progress. */
		if (waitqueue_active(&ws->wait) && wake_up_nr(&ws->wait, nr))
			break;
	}
	if (wake_index != atomic_read(&sbq->wake_index))
		atomic_set(&sbq->wake_index, wake_index);
}

void sbitmap_queue_wake_up(struct sbitmap_queue *sbq, int nr)
{
	unsigned int wake_batch = sbq->wake_batch;
	int wakeups;

	if (!atomic_read(&sbq->ws_active))
		return;
	atomic_add(nr, &sbq->completion_cnt);
	wakeups = atomic_read(&sbq->wakeup_cnt);
	if ((unsigned int)(atomic_read(&sbq->completion_cnt) - wakeups) < wake_batch)
		return;
	atomic_set(&sbq->wakeup_cnt, wakeups + (int)wake_batch);
	__sbitmap_queue_wake_up(sbq, (int)wake_batch);
}

void sbitmap_queue_clear(struct sbitmap_queue *sbq, unsigned int nr, unsigned int cpu)
{
	(void)cpu;
	sbitmap_clear_bit(&sbq->sb, nr);
	sbitmap_queue_wake_up(sbq, 1);
}

void sbitmap_add_wait_queue(struct sbitmap_queue *sbq, struct sbq_wait_state *ws, struct sbq_wait *sbq_wait)
{
	if (!sbq_wait->sbq) {
		sbq_wait->sbq = sbq;
		atomic_inc(&sbq->ws_active);
		add_wait_queue(&ws->wait, &sbq_wait->wait);
	}
}

void sbitmap_del_wait_queue(struct sbq_wait *sbq_wait)
{
	list_del_init(&sbq_wait->wait.entry);
	if (sbq_wait->sbq) {
		atomic_dec(&sbq_wait->sbq->ws_active);
		sbq_wait->sbq = NULL;
	}
}
