/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _KCOMPAT_LINUX_SLAB_H
#define _KCOMPAT_LINUX_SLAB_H

#include <linux/types.h>

#define GFP_KERNEL 0U
#define GFP_NOWAIT 0U
#define GFP_ATOMIC 0U
#define __GFP_ZERO 0x100U
#define __GFP_NOWARN 0x200U
#define __GFP_HIGH 0x20U
#define NUMA_NO_NODE (-1)

void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void kfree(const void *p);
#define kzalloc_node(size, flags, node) kzalloc(size, flags)
#define kmalloc_node(size, flags, node) kmalloc(size, flags)
#define kcalloc(n, size, flags) kzalloc((n) * (size), flags)
#define kcalloc_node(n, size, flags, node) kzalloc((n) * (size), flags)
#define kmalloc_array_node(n, size, flags, node) kmalloc((n) * (size), flags)

/* A slab cache is a size: its objects come from kmalloc. */
struct kmem_cache {
	size_t size;
};
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align, unsigned long flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *c);
void *kmem_cache_alloc_node(struct kmem_cache *c, gfp_t flags, int node);
void kmem_cache_free(struct kmem_cache *c, void *p);
#define KMEM_CACHE(__struct, __flags) \
	kmem_cache_create(#__struct, sizeof(struct __struct), __alignof__(struct __struct), (__flags), NULL)
#define SLAB_HWCACHE_ALIGN 0x2000UL
#endif
