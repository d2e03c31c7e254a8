// SPDX-License-Identifier: GPL-2.0
/* kernel/time/timer.c on blksim's event queue. The timer wheel's granularity is left out:
 * every timer kcompat's schedulers arm (kyber's HZ / 10) lies in the wheel's first level,
 * where a timer expires at its own jiffy. */
#include <linux/kernel.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include "kcompat/api.h"
#include "kcompat/plugin.h"

void timer_setup(struct timer_list *timer, void (*func)(struct timer_list *), unsigned int flags)
{
	timer->function = func;
	timer->flags = flags;
	timer->expires = 0;
	timer->pending = 0;
	timer->kcompat_q = kcompat_current_queue;
}

int mod_timer(struct timer_list *timer, unsigned long expires)
{
	const struct kcompat_host *host = &timer->kcompat_q->host;
	int was_pending = timer->pending;

	timer->expires = expires;
	timer->pending = 1;
	host->timer_arm(host->ctx, timer, expires);
	return was_pending;
}

/* Moves a pending timer only to an earlier expiry; arms one that is not pending. */
int timer_reduce(struct timer_list *timer, unsigned long expires)
{
	if (timer->pending && !time_before(expires, timer->expires))
		return 1;
	return mod_timer(timer, expires);
}

int del_timer(struct timer_list *timer)
{
	const struct kcompat_host *host;
	int was_pending = timer->pending;

	if (!timer->kcompat_q)
		return 0;
	host = &timer->kcompat_q->host;
	timer->pending = 0;
	host->timer_cancel(host->ctx, timer);
	return was_pending;
}

int del_timer_sync(struct timer_list *timer)
{
	return del_timer(timer);
}

/* blksim's event for the timer: it runs the function unless the timer was deleted. */
void kcompat_timer_fire(struct timer_list *timer)
{
	if (!timer->pending)
		return;
	timer->pending = 0;
	timer->function(timer);
}

/* hrtimer (include/linux/hrtimer.h): the timer_list inside it carries the event; its
 * function is this trampoline, which calls the hrtimer's. HRTIMER_RESTART is not
 * supported (bfq's idle slice timer returns HRTIMER_NORESTART). */
static void hrtimer_trampoline(struct timer_list *t)
{
	struct hrtimer *timer = container_of(t, struct hrtimer, t);

	BUG_ON(timer->function(timer) != HRTIMER_NORESTART);
}

void hrtimer_init(struct hrtimer *timer, int clock_id, enum hrtimer_mode mode)
{
	(void)clock_id;
	(void)mode;
	timer_setup(&timer->t, hrtimer_trampoline, 0);
	timer->function = NULL;
}

void hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode)
{
	const struct kcompat_host *host = &timer->t.kcompat_q->host;
	u64 at = mode == HRTIMER_MODE_REL ? kcompat_now_ns + (u64)tim : (u64)tim;

	timer->t.pending = 1;
	host->timer_arm_ns(host->ctx, &timer->t, at);
}

/* 1 if it was pending (now cancelled), 0 if not; its function never runs concurrently. */
int hrtimer_try_to_cancel(struct hrtimer *timer)
{
	return del_timer(&timer->t);
}

int hrtimer_cancel(struct hrtimer *timer)
{
	return del_timer(&timer->t);
}
