// SPDX-License-Identifier: GPL-2.0
/* The kernel library functions scheduler code calls: allocation, string parsing, sysfs
 * output, BUG and WARN, and the clock. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include "kcompat/api.h"

__thread unsigned long kcompat_jiffies;
__thread u64 kcompat_now_ns;
__thread u64 kcompat_last_read_ns;
__thread int kcompat_caller_holds_lock;

static kcompat_bug_fn bug_handler;
static kcompat_warn_fn warn_handler;
static __thread char first_warning[256];

void kcompat_set_bug_handler(kcompat_bug_fn fn)
{
	bug_handler = fn;
}

void kcompat_set_warn_handler(kcompat_warn_fn fn)
{
	warn_handler = fn;
}

const char *kcompat_first_warning(void)
{
	return first_warning;
}

void kcompat_bug(const char *file, int line, const char *what)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "kernel BUG at %s:%d: %s", file, line, what);
	if (bug_handler)
		bug_handler(msg);
	abort();
}

void kcompat_warn(const char *file, int line, const char *fmt, ...)
{
	va_list args;
	int n;

	if (first_warning[0])
		return;
	n = snprintf(first_warning, sizeof(first_warning), "kernel WARNING at %s:%d: ", file, line);
	va_start(args, fmt);
	vsnprintf(first_warning + n, sizeof(first_warning) - (size_t)n, fmt, args);
	va_end(args);
	if (warn_handler)
		warn_handler(first_warning);
}

/* __GFP_ZERO zeroes, as the kernel's (bfq's root group is kmalloc_node(.., __GFP_ZERO)). */
void *kmalloc(size_t size, gfp_t flags)
{
	return flags & __GFP_ZERO ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
}

void *kzalloc(size_t size, gfp_t flags)
{
	(void)flags;
	return calloc(1, size ? size : 1);
}

void kfree(const void *p)
{
	free((void *)p);
}

static int kstrto_parse(const char *s, unsigned int base, int is_signed, long long *res)
{
	char *end;
	long long v;

	errno = 0;
	if (!*s || (!is_signed && *s == '-'))
		return -EINVAL;
	v = strtoll(s, &end, (int)base);
	if (end == s)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long v;
	int ret = kstrto_parse(s, base, 1, &v);

	if (ret)
		return ret;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*res = (int)v;
	return 0;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	long long v;
	int ret = kstrto_parse(s, base, 0, &v);

	if (ret)
		return ret;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	long long v;
	int ret = kstrto_parse(s, base, 0, &v);

	if (ret)
		return ret;
	*res = (unsigned long long)v;
	return 0;
}

int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);

	if (!ret)
		*res = v;
	return ret;
}

int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list args;
	int len;

	va_start(args, fmt);
	len = vsnprintf(buf, PAGE_SIZE, fmt, args);
	va_end(args);
	return len;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align, unsigned long flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *c = kzalloc(sizeof(*c), GFP_KERNEL);

	(void)name;
	(void)align;
	(void)flags;
	(void)ctor;
	if (c)
		c->size = size;
	return c;
}

void kmem_cache_destroy(struct kmem_cache *c)
{
	kfree(c);
}

void *kmem_cache_alloc_node(struct kmem_cache *c, gfp_t flags, int node)
{
	(void)node;
	return flags & __GFP_ZERO ? kzalloc(c->size, flags) : kmalloc(c->size, flags);
}

void kmem_cache_free(struct kmem_cache *c, void *p)
{
	(void)c;
	kfree(p);
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);

	if (!ret)
		*res = (unsigned long)v;
	return ret;
}
