/* SPDX-License-Identifier: GPL-2.0 */
/* The interface between blksim and a kernel-scheduler plugin (C, included by C++ too).
 *
 * A plugin is one elevator source file built with kcompat into a shared object. blksim
 * loads it, calls kcompat_module_init() (the file's module_init function, which calls
 * elv_register()), then kcompat_api() for this table. Requests cross as opaque handles
 * (the plugin's struct request) and owners (blksim's request, returned where the kernel
 * returns a request). Before each call blksim sets the clock (set_clock). */
#ifndef _KCOMPAT_API_H
#define _KCOMPAT_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KCOMPAT_API_VERSION 6

struct kcompat_queue;
struct kcompat_rq;
struct timer_list;

/* What the plugin asks of blksim for one queue: events on simulated time for its timers
 * (timer_arm replaces an earlier arming of the same timer; at the instant jiffy `expires`
 * begins blksim calls timer_fire), blk_mq_run_hw_queue(hctx, async) for a wake-up,
 * blk_mq_run_hw_queues(q, async) on a queue with QUEUE_FLAG_SQ_SCHED (run_hw_queues_sq), and the
 * scheduler's own tracepoints as text (`message`, for --explain) when `tracing` says that
 * someone listens: the text is formatted only then. */
struct kcompat_host {
	void *ctx;
	void (*timer_arm)(void *ctx, struct timer_list *t, unsigned long expires);
	void (*timer_cancel)(void *ctx, struct timer_list *t);
	void (*run_hw_queue)(void *ctx, unsigned int hctx);
	int (*tracing)(void *ctx);
	void (*message)(void *ctx, const char *text);
	/* An hrtimer: the event at simulated time `expires_ns` exactly (timer_fire as above). */
	void (*timer_arm_ns)(void *ctx, struct timer_list *t, uint64_t expires_ns);
	/* blk_mq_run_hw_queues() of an elevator that set QUEUE_FLAG_SQ_SCHED, called on `cpu`:
	 * the hctx `cpu` maps to (blk_mq_get_sq_hctx) and every hctx whose dispatch list holds
	 * requests (blksim keeps those lists). */
	void (*run_hw_queues_sq)(void *ctx, unsigned int cpu);
};

/* What blksim's request says, copied into the kernel's request before each call. */
struct kcompat_rq_state {
	uint64_t sector;
	uint32_t nr_sectors;
	uint8_t op;          /* 0 read, 1 write, 2 flush, 3 discard (blkmq::ReqOp) */
	uint8_t fua;         /* REQ_FUA */
	uint8_t preflush;    /* REQ_PREFLUSH */
	uint8_t flush_seq;   /* inside the flush machinery (RQF_FLUSH_SEQ) */
	uint8_t ioprio_class;
	uint8_t ioprio_level;
	uint32_t hctx;
	uint32_t cpu;        /* the submitting CPU: rq->mq_ctx */
	/* The submitting task (`current` for prepare_request): its pid and io_context
	 * priority (ioprio_set(); class 0 = none, which follows nice). */
	uint32_t pid;
	uint8_t task_ioprio_class;
	uint8_t task_ioprio_level;
};

struct kcompat_bio_state {
	uint64_t sector;
	uint32_t nr_sectors;
	uint8_t op;
	uint8_t fua, preflush;
	uint8_t ioprio_class;
	uint8_t ioprio_level;
	uint32_t cpu;        /* the submitting CPU (blk_mq_get_ctx) */
	uint32_t pid;        /* the submitting task (`current`) */
	uint8_t task_ioprio_class;
	uint8_t task_ioprio_level;
};

/* enum elv_merge */
enum { KCOMPAT_NO_MERGE = 0, KCOMPAT_FRONT_MERGE = 1, KCOMPAT_BACK_MERGE = 2 };

/* Called where the kernel would BUG(); must not return (blksim throws). */
typedef void (*kcompat_bug_fn)(const char *what);
/* Called at the first WARN (the kernel prints it and goes on). */
typedef void (*kcompat_warn_fn)(const char *what);

struct kcompat_api {
	unsigned int version;
	unsigned int hz;  /* CONFIG_HZ the plugin was built with */
	/* The registered elevator (elevator_name), or NULL when module_init registered none. */
	const char *(*elevator_name)(void);
	/* Its sysfs attributes, in elevator_attrs order, then the queue attributes kcompat's
	 * core adds (nr_sched_batch); NULL past the end. */
	const char *(*attr_name)(unsigned int i);
	void (*set_bug_handler)(kcompat_bug_fn fn);
	void (*set_warn_handler)(kcompat_warn_fn fn);
	void (*set_clock)(uint64_t now_ns, unsigned long jiffies);
	/* The first WARN the code hit ("" if none). */
	const char *(*first_warning)(void);

	/* ops.init_sched and ops.init_hctx on a queue of nr_hw_queues hctxs whose scheduler
	 * tags hold nr_requests, with one ctx per CPU (cpu_to_hctx[nr_cpus], the queue map);
	 * NULL when init_sched fails. The host is copied. */
	struct kcompat_queue *(*queue_create)(unsigned int nr_hw_queues, unsigned int nr_requests,
					      int rotational, int nomerges, unsigned int nr_cpus,
					      const uint32_t *cpu_to_hctx, const struct kcompat_host *host);
	void (*queue_destroy)(struct kcompat_queue *q);
	/* The attribute's store function with `value` as sysfs would pass it: the return
	 * value (count, or a negative errno), or -2 (ENOENT) if there is no such attribute.
	 * An elevator attribute, else a queue attribute of the same name. */
	long (*attr_store)(struct kcompat_queue *q, const char *name, const char *value);
	long (*attr_show)(struct kcompat_queue *q, const char *name, char *buf, size_t len);

	struct kcompat_rq *(*rq_alloc)(struct kcompat_queue *q, void *owner);
	void (*rq_free)(struct kcompat_rq *rq);
	void (*rq_sync)(struct kcompat_queue *q, struct kcompat_rq *rq, const struct kcompat_rq_state *s);

	void (*prepare_request)(struct kcompat_queue *q, struct kcompat_rq *rq);
	void (*insert_request)(struct kcompat_queue *q, struct kcompat_rq *rq, int at_head);
	void *(*dispatch_request)(struct kcompat_queue *q, unsigned int hctx);
	int (*has_work)(struct kcompat_queue *q, unsigned int hctx);
	/* ops.bio_merge's lookup: the merge type and the owner of the request found. */
	int (*bio_merge)(struct kcompat_queue *q, const struct kcompat_bio_state *bio, void **owner);
	void (*request_merged)(struct kcompat_queue *q, struct kcompat_rq *rq, int type);
	void (*requests_merged)(struct kcompat_queue *q, struct kcompat_rq *rq, struct kcompat_rq *next);
	void *(*former_request)(struct kcompat_queue *q, struct kcompat_rq *rq);
	void *(*next_request)(struct kcompat_queue *q, struct kcompat_rq *rq);
	void *(*last_merge)(struct kcompat_queue *q);
	void *(*rqhash_find)(struct kcompat_queue *q, uint64_t sector);
	/* ops.completed_request (__blk_mq_end_request) for a request that went to the device,
	 * with the times blk-mq keeps in it: allocation (start_time_ns) and issue
	 * (io_start_time_ns). `cpu` is the CPU the call runs on (smp_processor_id()): for these
	 * three the completing CPU (or the requeuing one), not the request's submitting CPU. */
	void (*completed_request)(struct kcompat_queue *q, struct kcompat_rq *rq, unsigned int cpu,
				  uint64_t now_ns, uint64_t start_ns, uint64_t io_start_ns);
	void (*finish_request)(struct kcompat_queue *q, struct kcompat_rq *rq, unsigned int cpu);
	/* A timer's event (struct kcompat_host): runs its function unless it was deleted, on
	 * `cpu` (the CPU that armed it: timers and hrtimers fire where they were started). */
	void (*timer_fire)(struct kcompat_queue *q, struct timer_list *t, unsigned int cpu);

	void (*requeue_request)(struct kcompat_queue *q, struct kcompat_rq *rq, unsigned int cpu);
	/* ops.limit_depth for an allocation on hctx, in scheduler tags (nr_requests = no limit). */
	unsigned int (*limit_depth)(struct kcompat_queue *q, unsigned int hctx, int is_sync_read);
	/* What ops.depth_updated set with sbitmap_queue_min_shallow_depth(). */
	unsigned int (*min_shallow_depth)(struct kcompat_queue *q, unsigned int hctx);

	/* E1's first patch: q->nr_sched_batch (nr_requests unless the attribute was written). */
	unsigned int (*nr_sched_batch)(struct kcompat_queue *q);
	/* E3's patch: whether the elevator has the direct-dispatch ops (0 for a kernel's own
	 * file); ops.may_dispatch_directly and ops.dispatched_directly for a request. */
	int (*has_direct_dispatch)(void);
	int (*may_dispatch_directly)(struct kcompat_queue *q, struct kcompat_rq *rq);
	void (*dispatched_directly)(struct kcompat_queue *q, struct kcompat_rq *rq);
};

typedef const struct kcompat_api *(*kcompat_api_fn)(void);
typedef int (*kcompat_module_init_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
