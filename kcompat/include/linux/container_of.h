/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KCOMPAT_LINUX_CONTAINER_OF_H
#define _KCOMPAT_LINUX_CONTAINER_OF_H

#include <linux/stddef.h>

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))

#endif
