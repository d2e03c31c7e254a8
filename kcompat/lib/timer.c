// SPDX-License-Identifier: GPL-2.0
/* kernel/time/timer.c on blksim's event queue. The timer wheel's granularity is left out:
 * every timer kcompat's schedulers arm (kyber's HZ / 10) lies in the wheel's first level,
 * where a timer expires at its own jiffy. */
#include <linux/kernel.h>
#include <linux/timer.h>
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
