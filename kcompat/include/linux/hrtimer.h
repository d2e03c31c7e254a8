/* SPDX-License-Identifier: GPL-2.0 */
/* High-resolution timers (bfq's idle slice timer) on simulated time: an hrtimer is a
 * timer_list armed in nanoseconds (kcompat/lib/timer.c), whose event blksim puts at the
 * exact instant; HRTIMER_MODE_REL counts from the clock set for the current call. */
#ifndef _KCOMPAT_LINUX_HRTIMER_H
#define _KCOMPAT_LINUX_HRTIMER_H

#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/timer.h>

enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
enum hrtimer_mode { HRTIMER_MODE_ABS = 0, HRTIMER_MODE_REL = 1 };
#define CLOCK_MONOTONIC 1

struct hrtimer {
	struct timer_list t;
	enum hrtimer_restart (*function)(struct hrtimer *);
};

void hrtimer_init(struct hrtimer *timer, int clock_id, enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *timer, ktime_t tim, enum hrtimer_mode mode);
int hrtimer_try_to_cancel(struct hrtimer *timer);
int hrtimer_cancel(struct hrtimer *timer);
static inline bool hrtimer_active(const struct hrtimer *timer) { return timer->t.pending; }
static inline bool hrtimer_is_queued(struct hrtimer *timer) { return timer->t.pending; }

#endif
