// SPDX-License-Identifier: GPL-2.0
/* The parts of block/elevator.c and block/blk-merge.c an elevator calls, after Linux 6.1:
 * the back-merge hash, the sector-sorted tree helpers, the merge lookup and the
 * callbacks after a merge, and registration. */
#include <linux/blkdev.h>
#include "elevator.h"
#include "blk.h"
#include "blk-mq-sched.h"
#include "kcompat/plugin.h"

/* The elevator the plugin's module_init registered. */
struct elevator_type *kcompat_registered_type;

int elv_register(struct elevator_type *e)
{
	if (kcompat_registered_type && kcompat_registered_type != e)
		return -EINVAL;
	kcompat_registered_type = e;
	return 0;
}

void elv_unregister(struct elevator_type *e)
{
	if (kcompat_registered_type == e)
		kcompat_registered_type = NULL;
}

struct elevator_queue *elevator_alloc(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq = kzalloc(sizeof(*eq), GFP_KERNEL);

	(void)q;
	if (!eq)
		return NULL;
	eq->type = e;
	eq->kobj.refcount = 1;
	return eq;
}

void kobject_put(struct kobject *kobj)
{
	struct elevator_queue *eq = container_of(kobj, struct elevator_queue, kobj);

	if (--kobj->refcount == 0)
		kfree(eq);
}

/* Requests are hashed by their end sector, newest first in a chain. */
#define rq_hash_key(rq) (blk_rq_pos(rq) + blk_rq_sectors(rq))
#define ELV_ON_HASH(rq) ((rq)->rq_flags & RQF_HASHED)

static struct hlist_head *elv_hash_bucket(struct elevator_queue *e, sector_t key)
{
	/* hash_min(): the golden-ratio hash of include/linux/hash.h */
	return &e->hash[(u32)(key * 0x61C8864680B583EBull >> (64 - ELV_HASH_BITS))];
}

static inline void __elv_rqhash_del(struct request *rq)
{
	hlist_del_init(&rq->hash);
	rq->rq_flags &= ~RQF_HASHED;
}

void elv_rqhash_del(struct request_queue *q, struct request *rq)
{
	(void)q;
	if (ELV_ON_HASH(rq))
		__elv_rqhash_del(rq);
}

void elv_rqhash_add(struct request_queue *q, struct request *rq)
{
	BUG_ON(ELV_ON_HASH(rq));
	hlist_add_head(&rq->hash, elv_hash_bucket(q->elevator, rq_hash_key(rq)));
	rq->rq_flags |= RQF_HASHED;
}

void elv_rqhash_reposition(struct request_queue *q, struct request *rq)
{
	__elv_rqhash_del(rq);
	elv_rqhash_add(q, rq);
}

struct request *elv_rqhash_find(struct request_queue *q, sector_t offset)
{
	struct hlist_node *pos, *next;

	for (pos = elv_hash_bucket(q->elevator, offset)->first; pos; pos = next) {
		struct request *rq = container_of(pos, struct request, hash);

		next = pos->next;
		BUG_ON(!ELV_ON_HASH(rq));
		if (unlikely(!rq_mergeable(rq))) {
			__elv_rqhash_del(rq);
			continue;
		}
		if (rq_hash_key(rq) == offset)
			return rq;
	}
	return NULL;
}

void elv_rb_add(struct rb_root *root, struct request *rq)
{
	struct rb_node **p = &root->rb_node;
	struct rb_node *parent = NULL;
	struct request *__rq;

	while (*p) {
		parent = *p;
		__rq = rb_entry(parent, struct request, rb_node);

		if (blk_rq_pos(rq) < blk_rq_pos(__rq))
			p = &(*p)->rb_left;
		else
			p = &(*p)->rb_right;
	}

	rb_link_node(&rq->rb_node, parent, p);
	rb_insert_color(&rq->rb_node, root);
}

void elv_rb_del(struct rb_root *root, struct request *rq)
{
	BUG_ON(RB_EMPTY_NODE(&rq->rb_node));
	rb_erase(&rq->rb_node, root);
	RB_CLEAR_NODE(&rq->rb_node);
}

struct request *elv_rb_find(struct rb_root *root, sector_t sector)
{
	struct rb_node *n = root->rb_node;
	struct request *rq;

	while (n) {
		rq = rb_entry(n, struct request, rb_node);

		if (sector < blk_rq_pos(rq))
			n = n->rb_left;
		else if (sector > blk_rq_pos(rq))
			n = n->rb_right;
		else
			return rq;
	}
	return NULL;
}

struct request *elv_rb_former_request(struct request_queue *q, struct request *rq)
{
	struct rb_node *rbprev = rb_prev(&rq->rb_node);

	(void)q;
	return rbprev ? rb_entry_rq(rbprev) : NULL;
}

struct request *elv_rb_latter_request(struct request_queue *q, struct request *rq)
{
	struct rb_node *rbnext = rb_next(&rq->rb_node);

	(void)q;
	return rbnext ? rb_entry_rq(rbnext) : NULL;
}

/* blk_rq_merge_ok() without what blksim has no notion of (cgroups, integrity, crypto). */
bool blk_rq_merge_ok(struct request *rq, struct bio *bio)
{
	if (!rq_mergeable(rq) || !bio_mergeable(bio))
		return false;
	if (req_op(rq) != bio_op(bio))
		return false;
	if (bio_data_dir(bio) != rq_data_dir(rq))
		return false;
	if (rq->ioprio != bio_prio(bio))
		return false;
	return true;
}

enum elv_merge blk_try_merge(struct request *rq, struct bio *bio)
{
	if (blk_discard_mergable(rq))
		return ELEVATOR_DISCARD_MERGE;
	else if (blk_rq_pos(rq) + blk_rq_sectors(rq) == bio->bi_iter.bi_sector)
		return ELEVATOR_BACK_MERGE;
	else if (blk_rq_pos(rq) - bio_sectors(bio) == bio->bi_iter.bi_sector)
		return ELEVATOR_FRONT_MERGE;
	return ELEVATOR_NO_MERGE;
}

bool elv_bio_merge_ok(struct request *rq, struct bio *bio)
{
	struct elevator_queue *e = rq->q->elevator;

	if (!blk_rq_merge_ok(rq, bio))
		return false;
	if (e->type->ops.allow_merge && !e->type->ops.allow_merge(rq->q, rq, bio))
		return false;
	return true;
}

enum elv_merge elv_merge(struct request_queue *q, struct request **req, struct bio *bio)
{
	struct elevator_queue *e = q->elevator;
	struct request *__rq;

	if (blk_queue_nomerges(q) || !bio_mergeable(bio))
		return ELEVATOR_NO_MERGE;

	/* First try one-hit cache. */
	if (q->last_merge && elv_bio_merge_ok(q->last_merge, bio)) {
		enum elv_merge ret = blk_try_merge(q->last_merge, bio);

		if (ret != ELEVATOR_NO_MERGE) {
			*req = q->last_merge;
			return ret;
		}
	}

	if (blk_queue_noxmerges(q))
		return ELEVATOR_NO_MERGE;

	/* See if our hash lookup can find a potential backmerge. */
	__rq = elv_rqhash_find(q, bio->bi_iter.bi_sector);
	if (__rq && elv_bio_merge_ok(__rq, bio)) {
		*req = __rq;
		return ELEVATOR_BACK_MERGE;
	}

	if (e->type->ops.request_merge)
		return e->type->ops.request_merge(q, req, bio);

	return ELEVATOR_NO_MERGE;
}

void elv_merged_request(struct request_queue *q, struct request *rq, enum elv_merge type)
{
	struct elevator_queue *e = q->elevator;

	if (e->type->ops.request_merged)
		e->type->ops.request_merged(q, rq, type);

	if (type == ELEVATOR_BACK_MERGE)
		elv_rqhash_reposition(q, rq);

	q->last_merge = rq;
}

void elv_merge_requests(struct request_queue *q, struct request *rq, struct request *next)
{
	struct elevator_queue *e = q->elevator;

	if (e->type->ops.requests_merged)
		e->type->ops.requests_merged(q, rq, next);

	elv_rqhash_reposition(q, rq);
	q->last_merge = rq;
}

struct request *elv_latter_request(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;

	return e->type->ops.next_request ? e->type->ops.next_request(q, rq) : NULL;
}

struct request *elv_former_request(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;

	return e->type->ops.former_request ? e->type->ops.former_request(q, rq) : NULL;
}

/* The lookup half of blk_mq_sched_try_merge() (see blk-mq-sched.h). */
bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int nr_segs,
			    struct request **merged_request)
{
	struct kcompat_queue *kq = kcompat_queue_of(q);
	struct request *rq = NULL;
	enum elv_merge type = elv_merge(q, &rq, bio);

	(void)nr_segs;
	(void)merged_request;
	if ((type == ELEVATOR_BACK_MERGE || type == ELEVATOR_FRONT_MERGE) && blk_mq_sched_allow_merge(q, rq, bio)) {
		kq->merge_type = type;
		kq->merge_rq = rq;
		kq->merge_by_elv = true;
	}
	return false;
}

/* blk_bio_list_merge() with blk_attempt_bio_merge(): a request the bio may not merge with
 * is passed over; the first it may merge with ends the search, merged or not (the size
 * check, bio_attempt_*_merge(), is the core's: BIO_MERGE_FAILED when it fails). */
bool blk_bio_list_merge(struct request_queue *q, struct list_head *list, struct bio *bio, unsigned int nr_segs)
{
	struct kcompat_queue *kq = kcompat_queue_of(q);
	struct request *rq;
	int checked = 8;

	(void)nr_segs;
	for (rq = list_last_entry(list, struct request, queuelist); !list_entry_is_head(rq, list, queuelist);
	     rq = list_entry(rq->queuelist.prev, struct request, queuelist)) {
		enum elv_merge type;

		if (!checked--)
			break;
		if (!blk_rq_merge_ok(rq, bio))
			continue;
		type = blk_try_merge(rq, bio);
		if (type != ELEVATOR_BACK_MERGE && type != ELEVATOR_FRONT_MERGE)
			continue;
		if (blk_mq_sched_allow_merge(q, rq, bio)) {
			kq->merge_type = type;
			kq->merge_rq = rq;
			kq->merge_by_elv = false;
		}
		return false;
	}
	return false;
}

bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq, struct list_head *free)
{
	(void)q;
	(void)rq;
	(void)free;
	return false;
}

void blk_mq_free_request(struct request *rq)
{
	(void)rq;
	BUG();
}

void blk_mq_free_requests(struct list_head *list)
{
	BUG_ON(!list_empty(list));
}
