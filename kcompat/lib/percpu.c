// SPDX-License-Identifier: GPL-2.0
/* mm/percpu.c, as one block of nr_cpu_ids copies: the stride between copies is kept just
 * before the first one, so per_cpu_ptr() needs nothing but the pointer. */
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/percpu.h>

__thread unsigned int kcompat_nr_cpu_ids = 1;
__thread unsigned int kcompat_this_cpu;

#define PERCPU_HEADER 64

void *__alloc_percpu_gfp(size_t size, size_t align, gfp_t gfp)
{
	size_t stride = (size + align - 1) / align * align;
	char *base;

	(void)gfp;
	if (align > PERCPU_HEADER)
		return NULL;
	base = calloc(1, PERCPU_HEADER + stride * nr_cpu_ids);
	if (!base)
		return NULL;
	memcpy(base, &stride, sizeof(stride));
	return base + PERCPU_HEADER;
}

size_t kcompat_percpu_stride(const void *ptr)
{
	size_t stride;

	memcpy(&stride, (const char *)ptr - PERCPU_HEADER, sizeof(stride));
	return stride;
}

void free_percpu(void *ptr)
{
	if (ptr)
		free((char *)ptr - PERCPU_HEADER);
}
