/* SPDX-License-Identifier: GPL-2.0 */
/* `current`: the task whose call the elevator is in. blksim's job threads are the tasks: the
 * adapter names the submitting thread (its pid and io priority) with every request and bio
 * it hands over, and kcompat makes `current` that thread's task_struct (one per pid and
 * queue, kcompat/lib/iocontext.c). Calls no task makes (dispatch from kblockd, a timer,
 * a completion) see the last task set, as the kernel's would see whatever ran there; bfq
 * reads `current` only in calls a task makes (prepare_request, bio_merge, limit_depth). */
#ifndef _KCOMPAT_LINUX_SCHED_H
#define _KCOMPAT_LINUX_SCHED_H

#include <linux/kernel.h>
#include <linux/ioprio.h>

struct io_context;

struct task_struct {
	pid_t pid;
	struct io_context *io_context;
	/* blksim's threads all run at nice 0. */
	int nice;
};

extern __thread struct task_struct *kcompat_current;
#define current kcompat_current

/* include/linux/ioprio.h's task_nice_ioprio / task_nice_ioclass: an io priority left at
 * IOPRIO_CLASS_NONE follows the CPU nice level, (nice + 20) / 5, in class BE. */
static inline int task_nice_ioprio(struct task_struct *task) { return (task->nice + 20) / 5; }
static inline int task_nice_ioclass(struct task_struct *task) { (void)task; return IOPRIO_CLASS_BE; }

#endif
