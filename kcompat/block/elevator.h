/* SPDX-License-Identifier: GPL-2.0 */
/* block/elevator.h: the elevator type and its ops (as in Linux 6.1), the per-queue
 * elevator with its back-merge hash, and the helpers of block/elevator.c
 * (kcompat/lib/elevator.c). */
#ifndef _KCOMPAT_ELEVATOR_H
#define _KCOMPAT_ELEVATOR_H

#include <linux/blkdev.h>

struct io_cq;
struct elevator_type;
struct blk_mq_debugfs_attr;

enum elv_merge {
	ELEVATOR_NO_MERGE = 0,
	ELEVATOR_FRONT_MERGE = 1,
	ELEVATOR_BACK_MERGE = 2,
	ELEVATOR_DISCARD_MERGE = 3,
};

struct elevator_mq_ops {
	int (*init_sched)(struct request_queue *, struct elevator_type *);
	void (*exit_sched)(struct elevator_queue *);
	int (*init_hctx)(struct blk_mq_hw_ctx *, unsigned int);
	void (*exit_hctx)(struct blk_mq_hw_ctx *, unsigned int);
	void (*depth_updated)(struct blk_mq_hw_ctx *);
	bool (*allow_merge)(struct request_queue *, struct request *, struct bio *);
	bool (*bio_merge)(struct request_queue *, struct bio *, unsigned int);
	int (*request_merge)(struct request_queue *q, struct request **, struct bio *);
	void (*request_merged)(struct request_queue *, struct request *, enum elv_merge);
	void (*requests_merged)(struct request_queue *, struct request *, struct request *);
	void (*limit_depth)(blk_opf_t, struct blk_mq_alloc_data *);
	void (*prepare_request)(struct request *);
	void (*finish_request)(struct request *);
	void (*insert_requests)(struct blk_mq_hw_ctx *, struct list_head *, bool);
	struct request *(*dispatch_request)(struct blk_mq_hw_ctx *);
	bool (*has_work)(struct blk_mq_hw_ctx *);
	void (*completed_request)(struct request *, u64);
	void (*requeue_request)(struct request *);
	struct request *(*former_request)(struct request_queue *, struct request *);
	struct request *(*next_request)(struct request_queue *, struct request *);
	void (*init_icq)(struct io_cq *);
	void (*exit_icq)(struct io_cq *);
	/* Not in Linux 6.1: the direct dispatch of E3's patch (kernel-patches/e3-*.patch).
	 * blk-mq's insert path asks may_dispatch_directly() for a request that is neither
	 * at-head nor a flush when hctx->dispatch is empty and the hctx is not dispatch_busy;
	 * if it may, and a driver tag is free, blk-mq issues the request without inserting it
	 * and calls dispatched_directly(). A file without them (every kernel's) is never asked. */
	bool (*may_dispatch_directly)(struct blk_mq_hw_ctx *, struct request *);
	void (*dispatched_directly)(struct blk_mq_hw_ctx *, struct request *);
};

/* sysfs: /sys/block/<dev>/queue/iosched/<name>, read with show, written with store. */
struct attribute {
	const char *name;
	unsigned short mode;
};

#define __ATTR(_name, _mode, _show, _store) \
	{ .attr = { .name = #_name, .mode = _mode }, .show = _show, .store = _store }
#define __ATTR_NULL { .attr = { .name = NULL } }

#define ELV_NAME_MAX (16)

struct elv_fs_entry {
	struct attribute attr;
	ssize_t (*show)(struct elevator_queue *, char *);
	ssize_t (*store)(struct elevator_queue *, const char *, size_t);
};

#define ELEVATOR_F_ZBD_SEQ_WRITE (1U << 0)

struct elevator_type {
	struct kmem_cache *icq_cache;
	struct elevator_mq_ops ops;
	size_t icq_size;
	size_t icq_align;
	struct elv_fs_entry *elevator_attrs;
	const char *elevator_name;
	const char *elevator_alias;
	const unsigned int elevator_features;
	struct module *elevator_owner;
	const struct blk_mq_debugfs_attr *queue_debugfs_attrs;
	const struct blk_mq_debugfs_attr *hctx_debugfs_attrs;
	char icq_cache_name[ELV_NAME_MAX + 6];
	struct list_head list;
};

struct kobject {
	int refcount;
};

#define ELV_HASH_BITS 6
#define ELV_HASH_SIZE (1 << ELV_HASH_BITS)

struct elevator_queue {
	struct elevator_type *type;
	void *elevator_data;
	struct kobject kobj;
	unsigned int registered:1;
	struct hlist_head hash[ELV_HASH_SIZE];
};

void elv_rqhash_del(struct request_queue *q, struct request *rq);
void elv_rqhash_add(struct request_queue *q, struct request *rq);
void elv_rqhash_reposition(struct request_queue *q, struct request *rq);
struct request *elv_rqhash_find(struct request_queue *q, sector_t offset);

enum elv_merge elv_merge(struct request_queue *, struct request **, struct bio *);
void elv_merge_requests(struct request_queue *, struct request *, struct request *);
void elv_merged_request(struct request_queue *, struct request *, enum elv_merge);
bool elv_attempt_insert_merge(struct request_queue *, struct request *, struct list_head *);
struct request *elv_former_request(struct request_queue *, struct request *);
struct request *elv_latter_request(struct request_queue *, struct request *);
int elv_register(struct elevator_type *);
void elv_unregister(struct elevator_type *);
bool elv_bio_merge_ok(struct request *, struct bio *);
struct elevator_queue *elevator_alloc(struct request_queue *, struct elevator_type *);
void kobject_put(struct kobject *kobj);

struct request *elv_rb_former_request(struct request_queue *, struct request *);
struct request *elv_rb_latter_request(struct request_queue *, struct request *);
void elv_rb_add(struct rb_root *, struct request *);
void elv_rb_del(struct rb_root *, struct request *);
struct request *elv_rb_find(struct rb_root *, sector_t);

#define rb_entry_rq(node) rb_entry((node), struct request, rb_node)
#define rq_entry_fifo(ptr) list_entry((ptr), struct request, queuelist)
#define rq_fifo_clear(rq) list_del_init(&(rq)->queuelist)

#endif
