/* SPDX-License-Identifier: GPL-2.0 */
/* Trace message text as the kernel's vsnprintf makes it (kcompat/lib/vsprintf.c). */
#ifndef _KCOMPAT_VSPRINTF_H
#define _KCOMPAT_VSPRINTF_H

#include <stdarg.h>
#include <stddef.h>

/* The pointers a queue's messages have printed, in order: %p prints the index. */
struct kcompat_ptr_ids {
	const void **ptrs;
	unsigned int n, cap;
};

int kcompat_vsnprintf(char *buf, size_t size, struct kcompat_ptr_ids *ids, const char *fmt, va_list ap);
void kcompat_ptr_ids_free(struct kcompat_ptr_ids *ids);

#endif
