// SPDX-License-Identifier: GPL-2.0
/* The plugin's side of kcompat/api.h: a request_queue with its hctxs and scheduler tags,
 * struct requests beside blksim's, and each entry point as blk-mq calls the elevator's op. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/percpu.h>
#include <linux/blktrace_api.h>
#include "elevator.h"
#include "blk-mq.h"
#include "kcompat/api.h"
#include "kcompat/plugin.h"

void kcompat_set_bug_handler(kcompat_bug_fn fn);
void kcompat_set_warn_handler(kcompat_warn_fn fn);
const char *kcompat_first_warning(void);

__thread struct kcompat_queue *kcompat_current_queue;
/* This thread's queues (a simulation creates, runs and destroys its queues on one thread),
 * for the tracepoints that name their queue by its devt alone. */
static __thread struct kcompat_queue *kcompat_traced_queues;
static __thread int kcompat_last_minor;

/* Whether blksim listens (--explain) on this queue. */
static bool listening(const struct kcompat_queue *kq)
{
	return kq->host.tracing && kq->host.tracing(kq->host.ctx);
}

/* The text of a tracepoint or note, handed to blksim; formatted only when it listens. */
static void trace_text(struct kcompat_queue *kq, const char *fmt, va_list ap)
{
	char text[256];

	if (!listening(kq))
		return;
	kcompat_vsnprintf(text, sizeof(text), &kq->ptr_ids, fmt, ap);
	kq->host.message(kq->host.ctx, text);
}

/* A tracepoint of the queue whose disk is `dev`, as the text of its TP_printk. */
void kcompat_trace_dev(dev_t dev, const char *fmt, ...)
{
	struct kcompat_queue *kq = kcompat_traced_queues;
	va_list ap;

	while (kq && disk_devt(&kq->disk) != dev)
		kq = kq->next_traced;
	if (!kq)
		return;
	va_start(ap, fmt);
	trace_text(kq, fmt, ap);
	va_end(ap);
}

/* blk_trace_note_message_enabled(). */
bool kcompat_trace_enabled(struct request_queue *q)
{
	return listening(kcompat_queue_of(q));
}

/* blk_add_trace_msg(): a message note (bfq_log_bfqq's "bfq<pid><A|S> ..."); bfq_log() calls
 * it without asking first whether anyone listens. */
void kcompat_trace_msg(struct request_queue *q, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_text(kcompat_queue_of(q), fmt, ap);
	va_end(ap);
}

static void untrace_queue(struct kcompat_queue *kq)
{
	struct kcompat_queue **p = &kcompat_traced_queues;

	while (*p && *p != kq)
		p = &(*p)->next_traced;
	if (*p)
		*p = kq->next_traced;
}

static struct elevator_mq_ops *ops(void)
{
	return &kcompat_registered_type->ops;
}

static const char *elevator_name(void)
{
	return kcompat_registered_type ? kcompat_registered_type->elevator_name : NULL;
}

/* The queue's own sysfs attributes that kcompat's core adds: E1's first patch
 * ("block: Introduce nr_sched_batch sys interface", block/blk-sysfs.c). A write must lie
 * in 1..nr_requests. */
static ssize_t queue_nr_sched_batch_store(struct request_queue *q, const char *page, size_t count)
{
	unsigned int v;
	int ret = kstrtouint(page, 10, &v);

	if (ret)
		return ret;
	if (v < 1 || v > q->nr_requests)
		return -EINVAL;
	q->nr_sched_batch = v;
	return count;
}

static ssize_t queue_nr_sched_batch_show(struct request_queue *q, char *page)
{
	return sysfs_emit(page, "%u\n", q->nr_sched_batch);
}

struct queue_sysfs_entry {
	const char *name;
	ssize_t (*show)(struct request_queue *, char *);
	ssize_t (*store)(struct request_queue *, const char *, size_t);
};

static const struct queue_sysfs_entry queue_attrs[] = {
	{ "nr_sched_batch", queue_nr_sched_batch_show, queue_nr_sched_batch_store },
};

static const struct queue_sysfs_entry *find_queue_attr(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(queue_attrs); i++)
		if (!strcmp(queue_attrs[i].name, name))
			return &queue_attrs[i];
	return NULL;
}

static const char *attr_name(unsigned int i)
{
	struct elv_fs_entry *a = kcompat_registered_type ? kcompat_registered_type->elevator_attrs : NULL;
	unsigned int n;

	for (n = 0; a && a[n].attr.name; n++)
		if (n == i)
			return a[n].attr.name;
	return i - n < ARRAY_SIZE(queue_attrs) ? queue_attrs[i - n].name : NULL;
}

static void set_clock(uint64_t now_ns, unsigned long j)
{
	kcompat_now_ns = now_ns;
	kcompat_jiffies = j;
}

static void queue_destroy(struct kcompat_queue *kq)
{
	unsigned int i;

	if (!kq)
		return;
	/* elevator_exit(): ioc_clear_queue() (the io_cqs' exit_icq), then blk_mq_exit_sched() */
	if (kq->tasks.next)
		kcompat_exit_tasks(kq);
	untrace_queue(kq);
	/* blk_mq_exit_sched(): the hctxs init_hctx set up, then the elevator. */
	for (i = 0; kq->q.elevator && ops()->exit_hctx && i < kq->q.nr_hw_queues; i++)
		if (kq->hctxs[i].sched_data)
			ops()->exit_hctx(&kq->hctxs[i], i);
	if (kq->q.elevator && ops()->exit_sched)
		ops()->exit_sched(kq->q.elevator);
	if (kq->q.elevator)
		kobject_put(&kq->q.elevator->kobj);
	kfree(kq->hctx_ptrs);
	kfree(kq->sched_tags);
	kfree(kq->hctxs);
	kfree(kq->ctxs);
	/* Last: exit_sched's own notes (bfq_exit_queue's put_queue) still print pointers. */
	kcompat_ptr_ids_free(&kq->ptr_ids);
	kfree(kq);
}

/* blk_mq_map_swqueue(): each CPU's ctx goes to its hctx, numbered in CPU order there. */
static void map_ctxs(struct kcompat_queue *kq, unsigned int nr_cpus, const uint32_t *cpu_to_hctx)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct blk_mq_ctx *ctx = &kq->ctxs[cpu];
		struct blk_mq_hw_ctx *hctx = &kq->hctxs[cpu_to_hctx[cpu] < kq->q.nr_hw_queues ? cpu_to_hctx[cpu] : 0];

		ctx->cpu = cpu;
		ctx->queue = &kq->q;
		ctx->hctxs[HCTX_TYPE_DEFAULT] = hctx;
		ctx->index_hw[HCTX_TYPE_DEFAULT] = hctx->nr_ctx++;
	}
}

/* blk_mq_init_sched(): the elevator's init_sched, then init_hctx for each hctx. */
static struct kcompat_queue *queue_create(unsigned int nr_hw_queues, unsigned int nr_requests, int rotational,
					  int nomerges, unsigned int nr_cpus, const uint32_t *cpu_to_hctx,
					  const struct kcompat_host *host)
{
	struct kcompat_queue *kq = kzalloc(sizeof(*kq), GFP_KERNEL);
	unsigned int i;

	if (!kq || !kcompat_registered_type || nr_cpus == 0)
		goto fail;
	kq->host = *host;
	/* The first queue of this thread: a new simulation, whose clock starts again. */
	if (!kcompat_traced_queues)
		kcompat_last_read_ns = 0;
	kq->disk.first_minor = ++kcompat_last_minor;
	kq->q.disk = &kq->disk;
	kq->next_traced = kcompat_traced_queues;
	kcompat_traced_queues = kq;
	INIT_LIST_HEAD(&kq->tasks);
	kq->hctxs = kcalloc(nr_hw_queues, sizeof(*kq->hctxs), GFP_KERNEL);
	kq->sched_tags = kcalloc(nr_hw_queues, sizeof(*kq->sched_tags), GFP_KERNEL);
	kq->hctx_ptrs = kcalloc(nr_hw_queues, sizeof(*kq->hctx_ptrs), GFP_KERNEL);
	kq->ctxs = kcalloc(nr_cpus, sizeof(*kq->ctxs), GFP_KERNEL);
	if (!kq->hctxs || !kq->sched_tags || !kq->hctx_ptrs || !kq->ctxs)
		goto fail;
	kq->nr_cpus = nr_cpus;
	kcompat_nr_cpu_ids = nr_cpus;
	kq->q.nr_requests = nr_requests;
	kq->q.nr_sched_batch = nr_requests;
	kq->q.nr_hw_queues = nr_hw_queues;
	kq->q.queue_hw_ctx = kq->hctx_ptrs;
	kq->q.node = NUMA_NO_NODE;
	if (!rotational)
		blk_queue_flag_set(QUEUE_FLAG_NONROT, &kq->q);
	if (nomerges == 2)
		blk_queue_flag_set(QUEUE_FLAG_NOMERGES, &kq->q);
	else if (nomerges == 1)
		blk_queue_flag_set(QUEUE_FLAG_NOXMERGES, &kq->q);
	for (i = 0; i < nr_hw_queues; i++) {
		struct blk_mq_tags *t = &kq->sched_tags[i];

		t->nr_tags = nr_requests;
		t->bitmap_tags.sb.depth = nr_requests;
		t->bitmap_tags.sb.shift = sbitmap_calculate_shift(nr_requests);
		t->bitmap_tags.sb.map_nr = DIV_ROUND_UP(nr_requests, 1U << t->bitmap_tags.sb.shift);
		t->bitmap_tags.min_shallow_depth = nr_requests;
		kq->hctxs[i].queue = &kq->q;
		kq->hctxs[i].sched_tags = t;
		kq->hctxs[i].queue_num = i;
		kq->hctxs[i].numa_node = NUMA_NO_NODE;
		kq->hctx_ptrs[i] = &kq->hctxs[i];
	}
	map_ctxs(kq, nr_cpus, cpu_to_hctx);
	kcompat_current_queue = kq;
	if (ops()->init_sched(&kq->q, kcompat_registered_type))
		goto fail;
	for (i = 0; i < nr_hw_queues; i++)
		if (ops()->init_hctx && ops()->init_hctx(&kq->hctxs[i], i))
			goto fail;
	kcompat_current_queue = NULL;
	return kq;
fail:
	kcompat_current_queue = NULL;
	queue_destroy(kq);
	return NULL;
}

struct blk_mq_ctx *blk_mq_get_ctx(struct request_queue *q)
{
	return &kcompat_queue_of(q)->ctxs[kcompat_this_cpu];
}

void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx, bool async)
{
	const struct kcompat_host *host = &kcompat_queue_of(hctx->queue)->host;

	(void)async;
	host->run_hw_queue(host->ctx, hctx->queue_num);
}

/* An elevator that dispatches queue-wide sets QUEUE_FLAG_SQ_SCHED (bfq, mq-deadline): 6.1
 * runs the current CPU's hctx (blk_mq_get_sq_hctx) and each hctx whose dispatch list holds
 * requests; blksim keeps those lists, so the host picks them. Otherwise (kyber) every hctx. */
void blk_mq_run_hw_queues(struct request_queue *q, bool async)
{
	const struct kcompat_host *host = &kcompat_queue_of(q)->host;
	unsigned int i;

	if (blk_queue_sq_sched(q)) {
		host->run_hw_queues_sq(host->ctx, kcompat_this_cpu);
		return;
	}
	for (i = 0; i < q->nr_hw_queues; i++)
		blk_mq_run_hw_queue(q->queue_hw_ctx[i], async);
}

static struct elv_fs_entry *find_attr(const char *name)
{
	struct elv_fs_entry *a = kcompat_registered_type->elevator_attrs;

	for (; a && a->attr.name; a++)
		if (!strcmp(a->attr.name, name))
			return a;
	return NULL;
}

static long attr_store(struct kcompat_queue *kq, const char *name, const char *value)
{
	struct elv_fs_entry *a = find_attr(name);
	const struct queue_sysfs_entry *qa = a ? NULL : find_queue_attr(name);

	if (qa)
		return qa->store(&kq->q, value, strlen(value));
	if (!a || !a->store)
		return -2;
	return a->store(kq->q.elevator, value, strlen(value));
}

static long attr_show(struct kcompat_queue *kq, const char *name, char *buf, size_t len)
{
	struct elv_fs_entry *a = find_attr(name);
	const struct queue_sysfs_entry *qa = a ? NULL : find_queue_attr(name);
	char page[PAGE_SIZE];
	ssize_t n;

	if (!qa && (!a || !a->show))
		return -2;
	n = qa ? qa->show(&kq->q, page) : a->show(kq->q.elevator, page);
	if (n >= 0 && len) {
		size_t c = (size_t)n < len - 1 ? (size_t)n : len - 1;

		memcpy(buf, page, c);
		buf[c] = 0;
	}
	return n;
}

static struct request *krq(struct kcompat_rq *rq)
{
	return (struct request *)rq;
}

static void *owner(struct request *rq)
{
	return rq ? rq->kcompat_owner : NULL;
}

static struct kcompat_rq *rq_alloc(struct kcompat_queue *kq, void *own)
{
	struct request *rq = kzalloc(sizeof(*rq), GFP_KERNEL);

	if (!rq)
		return NULL;
	rq->q = &kq->q;
	rq->mq_hctx = &kq->hctxs[0];
	rq->kcompat_owner = own;
	INIT_LIST_HEAD(&rq->queuelist);
	INIT_HLIST_NODE(&rq->hash);
	RB_CLEAR_NODE(&rq->rb_node);
	return (struct kcompat_rq *)rq;
}

static void rq_free(struct kcompat_rq *rq)
{
	kfree(rq);
}

static blk_opf_t opf(uint8_t op, uint8_t fua, uint8_t preflush)
{
	/* Direct I/O writes are REQ_SYNC, as blksim's trace shows them; blkdev_issue_discard()'s
	 * bios are not (a discard is async: op_is_sync() false, a write for op_is_write()). */
	blk_opf_t f = op == 3 ? REQ_OP_DISCARD
		    : op == 2 ? REQ_OP_FLUSH
		    : op == 1 ? (REQ_OP_WRITE | REQ_SYNC) : REQ_OP_READ;

	if (fua)
		f |= REQ_FUA;
	if (preflush)
		f |= REQ_PREFLUSH;
	return f;
}

static void rq_sync(struct kcompat_queue *kq, struct kcompat_rq *r, const struct kcompat_rq_state *s)
{
	struct request *rq = krq(r);

	rq->__sector = s->sector;
	rq->__data_len = s->nr_sectors << SECTOR_SHIFT;
	rq->cmd_flags = opf(s->op, s->fua, s->preflush);
	if (s->flush_seq)
		rq->rq_flags |= RQF_FLUSH_SEQ;
	else
		rq->rq_flags &= ~RQF_FLUSH_SEQ;
	rq->ioprio = IOPRIO_PRIO_VALUE(s->ioprio_class, s->ioprio_level);
	rq->mq_hctx = &kq->hctxs[s->hctx < kq->q.nr_hw_queues ? s->hctx : 0];
	/* Several queues (of machines with other CPU counts) may share the thread. */
	kcompat_nr_cpu_ids = kq->nr_cpus;
	rq->mq_ctx = &kq->ctxs[s->cpu < kq->nr_cpus ? s->cpu : 0];
	kcompat_this_cpu = rq->mq_ctx->cpu;
	kcompat_set_current(kq, s->pid, s->task_ioprio_class, s->task_ioprio_level);
}

/* blk_mq_rq_ctx_init() for a request from the scheduler tags. */
static void prepare_request(struct kcompat_queue *kq, struct kcompat_rq *r)
{
	struct request *rq = krq(r);

	(void)kq;
	rq->rq_flags = RQF_ELV;
	rq->elv.icq = NULL;
	rq->elv.priv[0] = rq->elv.priv[1] = NULL;
	INIT_HLIST_NODE(&rq->hash);
	RB_CLEAR_NODE(&rq->rb_node);
	INIT_LIST_HEAD(&rq->queuelist);
	if (ops()->prepare_request) {
		ops()->prepare_request(rq);
		rq->rq_flags |= RQF_ELVPRIV;
	}
}

/* The plugin runs on `cpu` (smp_processor_id(); one outside the queue's CPUs is CPU 0). */
static void enter_cpu(const struct kcompat_queue *kq, unsigned int cpu)
{
	kcompat_nr_cpu_ids = kq->nr_cpus;
	kcompat_this_cpu = cpu < kq->nr_cpus ? cpu : 0;
}

/* blk_mq_sched_insert_request(): a list of one for ops.insert_requests. */
static void insert_request(struct kcompat_queue *kq, struct kcompat_rq *r, int at_head)
{
	struct request *rq = krq(r);
	LIST_HEAD(list);

	(void)kq;
	list_add(&rq->queuelist, &list);
	ops()->insert_requests(rq->mq_hctx, &list, at_head);
	BUG_ON(!list_empty(&list));
}

static void *dispatch_request(struct kcompat_queue *kq, unsigned int hctx)
{
	return owner(ops()->dispatch_request(&kq->hctxs[hctx]));
}

static int has_work(struct kcompat_queue *kq, unsigned int hctx)
{
	return ops()->has_work(&kq->hctxs[hctx]);
}

static int bio_merge(struct kcompat_queue *kq, const struct kcompat_bio_state *b, void **own)
{
	struct bio bio = {
		.bi_opf = opf(b->op, b->fua, b->preflush),
		.bi_ioprio = IOPRIO_PRIO_VALUE(b->ioprio_class, b->ioprio_level),
		.bi_iter = { .bi_sector = b->sector, .bi_size = b->nr_sectors << SECTOR_SHIFT },
	};

	kq->merge_type = ELEVATOR_NO_MERGE;
	kq->merge_rq = NULL;
	kq->merge_by_elv = false;
	enter_cpu(kq, b->cpu);
	kcompat_set_current(kq, b->pid, b->task_ioprio_class, b->task_ioprio_level);
	if (!ops()->bio_merge)
		return KCOMPAT_NO_MERGE;
	ops()->bio_merge(&kq->q, &bio, (b->nr_sectors + 7) / 8);
	*own = owner(kq->merge_rq);
	return kq->merge_type;
}

/* bio_attempt_*_merge() done: the kernel calls elv_merged_request() only after a merge that
 * blk_mq_sched_try_merge() found; blk_bio_list_merge()'s caller (kyber) is not told. */
static void request_merged(struct kcompat_queue *kq, struct kcompat_rq *rq, int type)
{
	if (kq->merge_by_elv)
		elv_merged_request(&kq->q, krq(rq), (enum elv_merge)type);
}

static void requests_merged(struct kcompat_queue *kq, struct kcompat_rq *rq, struct kcompat_rq *next)
{
	kcompat_caller_holds_lock = 1;
	elv_merge_requests(&kq->q, krq(rq), krq(next));
	kcompat_caller_holds_lock = 0;
}

static void *former_request(struct kcompat_queue *kq, struct kcompat_rq *rq)
{
	return owner(elv_former_request(&kq->q, krq(rq)));
}

static void *next_request(struct kcompat_queue *kq, struct kcompat_rq *rq)
{
	return owner(elv_latter_request(&kq->q, krq(rq)));
}

static void *last_merge(struct kcompat_queue *kq)
{
	return owner(kq->q.last_merge);
}

static void *rqhash_find(struct kcompat_queue *kq, uint64_t sector)
{
	return owner(elv_rqhash_find(&kq->q, sector));
}

/* __blk_mq_end_request() → blk_mq_sched_completed_request(): for a request of the
 * elevator that went to the device. */
static void completed_request(struct kcompat_queue *kq, struct kcompat_rq *r, unsigned int cpu, uint64_t now_ns,
			      uint64_t start_ns, uint64_t io_start_ns)
{
	struct request *rq = krq(r);

	enter_cpu(kq, cpu);
	rq->start_time_ns = start_ns;
	rq->io_start_time_ns = io_start_ns;
	if ((rq->rq_flags & RQF_ELV) && ops()->completed_request)
		ops()->completed_request(rq, now_ns);
}

static void timer_fire(struct kcompat_queue *kq, struct timer_list *t, unsigned int cpu)
{
	enter_cpu(kq, cpu);
	kcompat_timer_fire(t);
}

/* blk_mq_free_request(): the elevator's finish hook for a request it prepared. */
static void finish_request(struct kcompat_queue *kq, struct kcompat_rq *r, unsigned int cpu)
{
	struct request *rq = krq(r);

	enter_cpu(kq, cpu);
	if ((rq->rq_flags & RQF_ELVPRIV) && ops()->finish_request)
		ops()->finish_request(rq);
	if (kq->q.last_merge == rq)
		kq->q.last_merge = NULL;
	rq->rq_flags &= ~RQF_ELVPRIV;
}

static void requeue_request(struct kcompat_queue *kq, struct kcompat_rq *r, unsigned int cpu)
{
	enter_cpu(kq, cpu);
	if ((krq(r)->rq_flags & RQF_ELV) && ops()->requeue_request)
		ops()->requeue_request(krq(r));
}

/* __blk_mq_get_tag() with data->shallow_depth: sbitmap_get_shallow() takes at most
 * shallow_depth bits of each word, so the scheduler tags usable are that many per word. */
static unsigned int limit_depth(struct kcompat_queue *kq, unsigned int hctx, int is_sync_read)
{
	struct blk_mq_hw_ctx *h = &kq->hctxs[hctx];
	const struct sbitmap *sb = &h->sched_tags->bitmap_tags.sb;
	struct blk_mq_alloc_data data = {
		.q = &kq->q,
		.cmd_flags = is_sync_read ? REQ_OP_READ : (REQ_OP_WRITE | REQ_SYNC),
		.hctx = h,
	};
	unsigned int word = 1U << sb->shift, usable = 0, i;

	if (!ops()->limit_depth)
		return sb->depth;
	/* bfq's ->limit_depth looks up `current`'s io_context. blksim sets `current` from the
	 * bio's task in ->bio_merge and ->prepare_request; a discard skips the merge attempt
	 * (blksim merges no discards), so a run whose first request is a discard has no task
	 * yet: no limit then. *Simplification:* a discard's limit is computed for the task of
	 * the last bio or request the elevator saw (blksim's limit_depth carries no task). */
	if (!kcompat_current)
		return sb->depth;
	ops()->limit_depth(data.cmd_flags, &data);
	if (!data.shallow_depth)
		return sb->depth;
	for (i = 0; i < sb->map_nr; i++) {
		unsigned int bits = i + 1 < sb->map_nr ? word : sb->depth - i * word;

		usable += data.shallow_depth < bits ? data.shallow_depth : bits;
	}
	return usable;
}

/* sbitmap_queue_min_shallow_depth() is per sbitmap word, as limit_depth's shallow depth:
 * in tags, min(min_shallow_depth, bits) summed over the words (the depth
 * sbq_calc_wake_batch() divides into wake batches). */
static unsigned int min_shallow_depth(struct kcompat_queue *kq, unsigned int hctx)
{
	const struct sbitmap_queue *bt = &kq->sched_tags[hctx].bitmap_tags;
	unsigned int word = 1U << bt->sb.shift, usable = 0, i;

	for (i = 0; i < bt->sb.map_nr; i++) {
		unsigned int bits = i + 1 < bt->sb.map_nr ? word : bt->sb.depth - i * word;

		usable += bt->min_shallow_depth < bits ? bt->min_shallow_depth : bits;
	}
	return usable;
}

static unsigned int nr_sched_batch(struct kcompat_queue *kq)
{
	return kq->q.nr_sched_batch;
}

static int has_direct_dispatch(void)
{
	return ops()->may_dispatch_directly && ops()->dispatched_directly;
}

static int may_dispatch_directly(struct kcompat_queue *kq, struct kcompat_rq *r)
{
	(void)kq;
	return ops()->may_dispatch_directly(krq(r)->mq_hctx, krq(r));
}

static void dispatched_directly(struct kcompat_queue *kq, struct kcompat_rq *r)
{
	(void)kq;
	ops()->dispatched_directly(krq(r)->mq_hctx, krq(r));
}

static const struct kcompat_api api = {
	.version = KCOMPAT_API_VERSION,
	.hz = HZ,
	.elevator_name = elevator_name,
	.attr_name = attr_name,
	.set_bug_handler = kcompat_set_bug_handler,
	.set_warn_handler = kcompat_set_warn_handler,
	.set_clock = set_clock,
	.first_warning = kcompat_first_warning,
	.queue_create = queue_create,
	.queue_destroy = queue_destroy,
	.attr_store = attr_store,
	.attr_show = attr_show,
	.rq_alloc = rq_alloc,
	.rq_free = rq_free,
	.rq_sync = rq_sync,
	.prepare_request = prepare_request,
	.insert_request = insert_request,
	.dispatch_request = dispatch_request,
	.has_work = has_work,
	.bio_merge = bio_merge,
	.request_merged = request_merged,
	.requests_merged = requests_merged,
	.former_request = former_request,
	.next_request = next_request,
	.last_merge = last_merge,
	.rqhash_find = rqhash_find,
	.completed_request = completed_request,
	.finish_request = finish_request,
	.timer_fire = timer_fire,
	.requeue_request = requeue_request,
	.limit_depth = limit_depth,
	.min_shallow_depth = min_shallow_depth,
	.nr_sched_batch = nr_sched_batch,
	.has_direct_dispatch = has_direct_dispatch,
	.may_dispatch_directly = may_dispatch_directly,
	.dispatched_directly = dispatched_directly,
};

__attribute__((visibility("default"))) const struct kcompat_api *kcompat_api(void)
{
	return &api;
}
