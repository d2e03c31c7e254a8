/* SPDX-License-Identifier: GPL-2.0 */
/* The block layer's structures as an elevator sees them: bio, request, request_queue,
 * blk_mq_hw_ctx. Each struct request sits beside one blksim request (owner), which the
 * adapter keeps in step with it: position, size, operation, flags and priority are copied
 * from blksim before every call that may read them; what the elevator keeps in the request
 * (rb_node, queuelist, hash, fifo_time, elv.priv) is its own. */
#ifndef _KCOMPAT_LINUX_BLKDEV_H
#define _KCOMPAT_LINUX_BLKDEV_H

#include <linux/kernel.h>
#include <linux/rbtree.h>
#include <linux/ioprio.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/timer.h>
#include <linux/iocontext.h>

#define SECTOR_SHIFT 9
#define READ 0
#define WRITE 1

enum req_op {
	REQ_OP_READ = 0,
	REQ_OP_WRITE = 1,
	REQ_OP_FLUSH = 2,
	REQ_OP_DISCARD = 3,
	REQ_OP_SECURE_ERASE = 5,
	REQ_OP_WRITE_ZEROES = 9,
	REQ_OP_ZONE_APPEND = 13,
	REQ_OP_LAST,
};

#define REQ_OP_BITS 8
#define REQ_OP_MASK ((1 << REQ_OP_BITS) - 1)
#define REQ_FAILFAST_DEV (1U << 8)
#define REQ_SYNC (1U << 11)
#define REQ_META (1U << 12)
#define REQ_PRIO (1U << 13)
#define REQ_NOMERGE (1U << 14)
#define REQ_IDLE (1U << 15)
#define REQ_FUA (1U << 17)
#define REQ_PREFLUSH (1U << 18)
#define REQ_RAHEAD (1U << 19)
#define REQ_BACKGROUND (1U << 20)
#define REQ_NOWAIT (1U << 21)
#define REQ_NOMERGE_FLAGS (REQ_NOMERGE | REQ_PREFLUSH | REQ_FUA)

static inline enum req_op kc_op(blk_opf_t opf) { return (enum req_op)(opf & REQ_OP_MASK); }
static inline bool op_is_write(blk_opf_t op) { return !!(op & 1); }
static inline bool op_is_flush(blk_opf_t op) { return op & (REQ_FUA | REQ_PREFLUSH); }
static inline bool op_is_sync(blk_opf_t op)
{
	return (op & REQ_OP_MASK) == REQ_OP_READ || (op & (REQ_SYNC | REQ_FUA | REQ_PREFLUSH));
}
static inline bool op_is_discard(blk_opf_t op) { return (op & REQ_OP_MASK) == REQ_OP_DISCARD; }

/* rq->rq_flags */
typedef u32 req_flags_t;
#define RQF_STARTED ((req_flags_t)(1 << 1))
#define RQF_FLUSH_SEQ ((req_flags_t)(1 << 4))
#define RQF_MIXED_MERGE ((req_flags_t)(1 << 5))
#define RQF_MQ_INFLIGHT ((req_flags_t)(1 << 6))
#define RQF_DONTPREP ((req_flags_t)(1 << 7))
#define RQF_SCHED_TAGS ((req_flags_t)(1 << 8))
#define RQF_USE_SCHED ((req_flags_t)(1 << 9))
#define RQF_FAILED ((req_flags_t)(1 << 10))
#define RQF_QUIET ((req_flags_t)(1 << 11))
#define RQF_ELVPRIV ((req_flags_t)(1 << 12))
#define RQF_IO_STAT ((req_flags_t)(1 << 13))
#define RQF_PM ((req_flags_t)(1 << 15))
#define RQF_HASHED ((req_flags_t)(1 << 16))
#define RQF_STATS ((req_flags_t)(1 << 17))
#define RQF_SPECIAL_PAYLOAD ((req_flags_t)(1 << 18))
#define RQF_ZONE_WRITE_LOCKED ((req_flags_t)(1 << 19))
#define RQF_TIMED_OUT ((req_flags_t)(1 << 21))
#define RQF_ELV ((req_flags_t)(1 << 22))
#define RQF_RESV ((req_flags_t)(1 << 23))
#define RQF_NOMERGE_FLAGS (RQF_STARTED | RQF_FLUSH_SEQ | RQF_SPECIAL_PAYLOAD)

struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
};

struct bio {
	struct bio *bi_next;
	blk_opf_t bi_opf;
	unsigned short bi_ioprio;
	struct bvec_iter bi_iter;
};

#define bio_op(bio) kc_op((bio)->bi_opf)
#define bio_data_dir(bio) (op_is_write(bio_op(bio)) ? WRITE : READ)
#define bio_sectors(bio) ((bio)->bi_iter.bi_size >> 9)
#define bio_end_sector(bio) ((bio)->bi_iter.bi_sector + bio_sectors((bio)))
static inline unsigned short bio_prio(const struct bio *bio) { return bio->bi_ioprio; }
static inline bool bio_mergeable(struct bio *bio) { return !(bio->bi_opf & REQ_NOMERGE_FLAGS); }

struct request_queue;
struct blk_mq_hw_ctx;
struct elevator_queue;
struct blk_mq_ctx;

struct request {
	struct request_queue *q;
	struct blk_mq_ctx *mq_ctx;
	struct blk_mq_hw_ctx *mq_hctx;
	blk_opf_t cmd_flags;
	req_flags_t rq_flags;
	int tag;
	int internal_tag;
	unsigned int timeout;
	unsigned int __data_len;
	sector_t __sector;
	struct bio *bio;
	struct bio *biotail;
	union {
		struct list_head queuelist;
		struct request *rq_next;
	};
	u64 start_time_ns;
	u64 io_start_time_ns;
	unsigned short nr_phys_segments;
	unsigned short ioprio;
	struct hlist_node hash;
	struct rb_node rb_node;
	struct {
		struct io_cq *icq;
		void *priv[2];
	} elv;
	u64 fifo_time;
	/* The blksim request this one stands beside. */
	void *kcompat_owner;
};

static inline enum req_op req_op(const struct request *req) { return kc_op(req->cmd_flags); }
static inline bool blk_rq_is_passthrough(struct request *rq) { (void)rq; return false; }
static inline unsigned short req_get_ioprio(struct request *req) { return req->ioprio; }
#define rq_data_dir(rq) (op_is_write(req_op(rq)) ? WRITE : READ)
static inline sector_t blk_rq_pos(const struct request *rq) { return rq->__sector; }
static inline unsigned int blk_rq_bytes(const struct request *rq) { return rq->__data_len; }
static inline unsigned int blk_rq_sectors(const struct request *rq) { return blk_rq_bytes(rq) >> SECTOR_SHIFT; }
static inline bool rq_is_sync(struct request *rq) { return op_is_sync(rq->cmd_flags); }

static inline bool rq_mergeable(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return false;
	if (req_op(rq) == REQ_OP_FLUSH)
		return false;
	if (req_op(rq) == REQ_OP_WRITE_ZEROES)
		return false;
	if (req_op(rq) == REQ_OP_ZONE_APPEND)
		return false;
	if (rq->cmd_flags & REQ_NOMERGE_FLAGS)
		return false;
	if (rq->rq_flags & RQF_NOMERGE_FLAGS)
		return false;
	return true;
}

/* blksim merges no discards (docs/fio.md, Trims) and models no zoned devices. */
static inline bool blk_discard_mergable(struct request *req) { (void)req; return false; }

struct blk_mq_tags {
	unsigned int nr_tags;
	struct sbitmap_queue bitmap_tags;
};

enum hctx_type {
	HCTX_TYPE_DEFAULT,
	HCTX_MAX_TYPES = 1,
};

/* A software queue: one per CPU (block/blk-mq.h's struct blk_mq_ctx, the fields an
 * elevator reads). index_hw is its place among the ctxs of its hctx. */
struct blk_mq_ctx {
	unsigned int cpu;
	unsigned short index_hw[HCTX_MAX_TYPES];
	struct blk_mq_hw_ctx *hctxs[HCTX_MAX_TYPES];
	struct request_queue *queue;
};

struct blk_mq_hw_ctx {
	struct request_queue *queue;
	unsigned short type;
	int numa_node;
	struct blk_mq_tags *sched_tags;
	struct blk_mq_tags *tags;
	unsigned int queue_num;
	unsigned long state;
	void *sched_data;
	unsigned int nr_ctx;
};

#define BLK_MQ_S_SCHED_RESTART 2

#define QUEUE_FLAG_NOMERGES 3
#define QUEUE_FLAG_NONROT 6
#define QUEUE_FLAG_NOXMERGES 9
#define QUEUE_FLAG_SQ_SCHED 30

struct gendisk {
	int major, first_minor;
};

static inline dev_t disk_devt(struct gendisk *disk)
{
	return disk ? (dev_t)((disk->major << 20) | disk->first_minor) : 0;
}

struct request_queue {
	struct request *last_merge;
	spinlock_t queue_lock;
	struct gendisk *disk;
	struct elevator_queue *elevator;
	unsigned long queue_flags;
	unsigned long nr_requests;
	/* Not in Linux 6.1: E1's first patch (/sys/block/<dev>/queue/nr_sched_batch), the
	 * requests one __blk_mq_do_dispatch_sched() round may pull from the elevator; it is
	 * nr_requests unless written. blksim's core reads it after the sysfs writes. */
	unsigned int nr_sched_batch;
	unsigned int nr_hw_queues;
	struct blk_mq_hw_ctx **queue_hw_ctx;
	int node;
	void *queuedata;
};

static inline void blk_queue_flag_set(unsigned int flag, struct request_queue *q) { q->queue_flags |= 1UL << flag; }
static inline void blk_queue_flag_clear(unsigned int flag, struct request_queue *q) { q->queue_flags &= ~(1UL << flag); }
static inline bool kc_queue_flag(const struct request_queue *q, unsigned int flag) { return q->queue_flags & (1UL << flag); }
#define blk_queue_nomerges(q) kc_queue_flag(q, QUEUE_FLAG_NOMERGES)
#define blk_queue_noxmerges(q) kc_queue_flag(q, QUEUE_FLAG_NOXMERGES)
#define blk_queue_nonrot(q) kc_queue_flag(q, QUEUE_FLAG_NONROT)
#define blk_queue_sq_sched(q) kc_queue_flag(q, QUEUE_FLAG_SQ_SCHED)
static inline bool blk_queue_is_zoned(struct request_queue *q) { (void)q; return false; }
static inline bool blk_req_can_dispatch_to_zone(struct request *rq) { (void)rq; return true; }
static inline void blk_req_zone_write_lock(struct request *rq) { (void)rq; }
static inline void blk_req_zone_write_unlock(struct request *rq) { (void)rq; }

/* __blk_mq_alloc_request()'s data as limit_depth sees it. */
struct blk_mq_alloc_data {
	struct request_queue *q;
	blk_opf_t cmd_flags;
	unsigned int shallow_depth;
	unsigned int rq_flags;
	struct blk_mq_hw_ctx *hctx;
};

/* A request an elevator hands back for freeing after an insert or bio merge. blksim's core
 * frees merged requests itself (see kcompat/block/blk-mq-sched.h), so nothing reaches these. */
void blk_mq_free_request(struct request *rq);
/* blk_mq_run_hw_queues(): every hctx, through the core (kcompat/lib/blksim.c). */
void blk_mq_run_hw_queues(struct request_queue *q, bool async);
/* Freezing waits for requests in flight to end; bfq freezes only around cgroup policy
 * (de)activation, which kcompat's root-only build never reaches. */
static inline void blk_mq_freeze_queue(struct request_queue *q) { (void)q; }
static inline void blk_mq_unfreeze_queue(struct request_queue *q) { (void)q; }
void blk_mq_free_requests(struct list_head *list);

static inline void blk_mq_sched_mark_restart_hctx(struct blk_mq_hw_ctx *hctx)
{
	hctx->state |= 1UL << BLK_MQ_S_SCHED_RESTART;
}

#endif
