/* SPDX-License-Identifier: GPL-2.0 */
/* The blkcg statistics bfq keeps in its group: with CONFIG_BFQ_CGROUP_DEBUG off only their
 * type is needed. */
#ifndef _KCOMPAT_BLK_CGROUP_RWSTAT_H
#define _KCOMPAT_BLK_CGROUP_RWSTAT_H

#include <linux/kernel.h>

struct percpu_counter {
	s64 count;
};

typedef struct {
	s64 counter;
} atomic64_t;

struct blkg_rwstat {
	struct percpu_counter cpu_cnt[5];
	atomic64_t aux_cnt[5];
};

#endif
