/* SPDX-License-Identifier: GPL-2.0 */
/* Included by bfq; it uses nothing of it that kcompat does not have elsewhere. */
#ifndef _KCOMPAT_LINUX_BACKING_DEV_H
#define _KCOMPAT_LINUX_BACKING_DEV_H

#include <linux/kernel.h>

#endif
