/* SPDX-License-Identifier: GPL-2.0 */
/* Scalable bitmaps (include/linux/sbitmap.h): kyber's per-domain token pools and per-hctx
 * kcq maps are real bitmaps with their wait queues (kcompat/lib/sbitmap.c). The scheduler
 * tags' bitmap is blksim's: limit_depth only reads its word size (shift) and the smallest
 * shallow depth the scheduler announces (sbitmap_queue_min_shallow_depth). */
#ifndef _KCOMPAT_LINUX_SBITMAP_H
#define _KCOMPAT_LINUX_SBITMAP_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/wait.h>

#define BITS_PER_LONG 64
#define SBQ_WAIT_QUEUES 8
#define SBQ_WAKE_BATCH 8

struct sbitmap_word {
	unsigned long word;
};

struct sbitmap {
	unsigned int depth;
	unsigned int shift;
	unsigned int map_nr;
	bool round_robin;
	struct sbitmap_word *map;
};

struct sbq_wait_state {
	wait_queue_head_t wait;
};

struct sbitmap_queue {
	struct sbitmap sb;
	unsigned int wake_batch;
	atomic_t wake_index;
	struct sbq_wait_state *ws;
	atomic_t ws_active;
	unsigned int min_shallow_depth;
	atomic_t completion_cnt;
	atomic_t wakeup_cnt;
};

struct sbq_wait {
	struct sbitmap_queue *sbq;
	struct wait_queue_entry wait;
};

typedef bool (*sb_for_each_fn)(struct sbitmap *, unsigned int, void *);

#define SB_NR_TO_INDEX(sb, bitnr) ((bitnr) >> (sb)->shift)
#define SB_NR_TO_BIT(sb, bitnr) ((bitnr) & ((1U << (sb)->shift) - 1U))

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

int sbitmap_init_node(struct sbitmap *sb, unsigned int depth, int shift, gfp_t flags, int node,
		      bool round_robin, bool alloc_hint);
void sbitmap_free(struct sbitmap *sb);
void sbitmap_resize(struct sbitmap *sb, unsigned int depth);
int sbitmap_get(struct sbitmap *sb);
bool sbitmap_any_bit_set(const struct sbitmap *sb);
void sbitmap_for_each_set(struct sbitmap *sb, sb_for_each_fn fn, void *data);

static inline unsigned long *__sbitmap_word(struct sbitmap *sb, unsigned int bitnr)
{
	return &sb->map[SB_NR_TO_INDEX(sb, bitnr)].word;
}

static inline void sbitmap_set_bit(struct sbitmap *sb, unsigned int bitnr)
{
	*__sbitmap_word(sb, bitnr) |= 1UL << SB_NR_TO_BIT(sb, bitnr);
}

static inline void sbitmap_clear_bit(struct sbitmap *sb, unsigned int bitnr)
{
	*__sbitmap_word(sb, bitnr) &= ~(1UL << SB_NR_TO_BIT(sb, bitnr));
}

static inline int sbitmap_test_bit(struct sbitmap *sb, unsigned int bitnr)
{
	return !!(*__sbitmap_word(sb, bitnr) & (1UL << SB_NR_TO_BIT(sb, bitnr)));
}

int sbitmap_queue_init_node(struct sbitmap_queue *sbq, unsigned int depth, int shift, bool round_robin,
			    gfp_t flags, int node);
void sbitmap_queue_free(struct sbitmap_queue *sbq);
void sbitmap_queue_resize(struct sbitmap_queue *sbq, unsigned int depth);
int __sbitmap_queue_get(struct sbitmap_queue *sbq);
void sbitmap_queue_clear(struct sbitmap_queue *sbq, unsigned int nr, unsigned int cpu);
void sbitmap_queue_wake_up(struct sbitmap_queue *sbq, int nr);
void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq, unsigned int min_shallow_depth);
void sbitmap_add_wait_queue(struct sbitmap_queue *sbq, struct sbq_wait_state *ws, struct sbq_wait *sbq_wait);
void sbitmap_del_wait_queue(struct sbq_wait *sbq_wait);

static inline int sbq_index_inc(int index)
{
	return (index + 1) & (SBQ_WAIT_QUEUES - 1);
}

static inline void sbq_index_atomic_inc(atomic_t *index)
{
	int old = atomic_read(index);
	int new = sbq_index_inc(old);

	atomic_cmpxchg(index, old, new);
}

/* The next wait queue for a user of the pool (wait_index: a counter per user). */
static inline struct sbq_wait_state *sbq_wait_ptr(struct sbitmap_queue *sbq, atomic_t *wait_index)
{
	struct sbq_wait_state *ws;

	ws = &sbq->ws[atomic_read(wait_index)];
	sbq_index_atomic_inc(wait_index);
	return ws;
}

#endif
