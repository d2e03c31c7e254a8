/* SPDX-License-Identifier: GPL-2.0 */
/* cgroups: blksim runs every task in the root cgroup. bfq is built with
 * CONFIG_BFQ_GROUP_IOSCHED off, so it keeps one bfq_group (the root) and calls nothing here. */
#ifndef _KCOMPAT_LINUX_CGROUP_H
#define _KCOMPAT_LINUX_CGROUP_H

#include <linux/kernel.h>

#endif
