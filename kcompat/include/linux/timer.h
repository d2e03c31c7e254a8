/* SPDX-License-Identifier: GPL-2.0 */
/* Timers (include/linux/timer.h) on simulated time: arming one asks blksim for an event at
 * the instant jiffy `expires` begins; when it comes, blksim sets the clock and calls the
 * timer's function (kcompat/lib/timer.c). A timer belongs to the queue whose init_sched
 * set it up. */
#ifndef _KCOMPAT_LINUX_TIMER_H
#define _KCOMPAT_LINUX_TIMER_H

#include <linux/types.h>
#include <linux/container_of.h>

struct kcompat_queue;

struct timer_list {
	unsigned long expires;
	void (*function)(struct timer_list *);
	u32 flags;
	/* Set by the plugin's core: the queue whose host schedules its events, and whether an
	 * event is pending (timer_pending). */
	struct kcompat_queue *kcompat_q;
	int pending;
};

#define from_timer(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, __typeof__(*var), timer_fieldname)

void timer_setup(struct timer_list *timer, void (*func)(struct timer_list *), unsigned int flags);
int mod_timer(struct timer_list *timer, unsigned long expires);
int timer_reduce(struct timer_list *timer, unsigned long expires);
int del_timer(struct timer_list *timer);
int del_timer_sync(struct timer_list *timer);

static inline int timer_pending(const struct timer_list *timer)
{
	return timer->pending;
}

#endif
