/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KCOMPAT_LINUX_SLAB_H
#define _KCOMPAT_LINUX_SLAB_H

#include <linux/types.h>

#define GFP_KERNEL 0U
#define GFP_NOWAIT 0U
#define GFP_ATOMIC 0U
#define __GFP_ZERO 0x100U
#define NUMA_NO_NODE (-1)

void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);
#define kzalloc_node(size, flags, node) kzalloc(size, flags)
#define kmalloc_node(size, flags, node) kmalloc(size, flags)
#define kcalloc(n, size, flags) kzalloc((n) * (size), flags)
#define kcalloc_node(n, size, flags, node) kzalloc((n) * (size), flags)
#define kmalloc_array_node(n, size, flags, node) kmalloc((n) * (size), flags)

#endif
