// SPDX-License-Identifier: GPL-2.0
/* lib/vsprintf.c, the part the schedulers' trace messages use: C's conversions, and %p as
 * the kernel prints it since 4.15, a hashed value standing for the pointer rather than its
 * address. The hash here is the pointer's order of first appearance on its queue (1, 2, ...),
 * so that the same run prints the same text (addresses change from run to run with ASLR),
 * and one object keeps one id, as the kernel's siphash of the address does. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kcompat/vsprintf.h"

/* The id of `p` on this queue: found, or the next one. */
static unsigned long ptr_id(struct kcompat_ptr_ids *ids, const void *p)
{
	unsigned int i;

	for (i = 0; i < ids->n; i++)
		if (ids->ptrs[i] == p)
			return i + 1;
	if (ids->n == ids->cap) {
		unsigned int cap = ids->cap ? 2 * ids->cap : 64;
		const void **grown = realloc(ids->ptrs, cap * sizeof(*grown));

		if (!grown)
			return 0;
		ids->ptrs = grown;
		ids->cap = cap;
	}
	ids->ptrs[ids->n++] = p;
	return ids->n;
}

void kcompat_ptr_ids_free(struct kcompat_ptr_ids *ids)
{
	free(ids->ptrs);
	memset(ids, 0, sizeof(*ids));
}

/* One conversion `spec` (from '%' to its letter, '*' already replaced) with its argument,
 * at `out` with `room` left; returns what snprintf returns. */
static int convert(char *out, size_t room, const char *spec, struct kcompat_ptr_ids *ids, va_list *ap)
{
	size_t len = strlen(spec);
	char conv = spec[len - 1];
	int l = 0;
	const char *m;

	for (m = spec + 1; *m; m++)
		l += *m == 'l' || *m == 'z' || *m == 'j' || *m == 't';
	switch (conv) {
	case 'd': case 'i':
		if (l >= 2)
			return snprintf(out, room, spec, va_arg(*ap, long long));
		if (l == 1)
			return snprintf(out, room, spec, va_arg(*ap, long));
		return snprintf(out, room, spec, va_arg(*ap, int));
	case 'u': case 'o': case 'x': case 'X':
		if (l >= 2)
			return snprintf(out, room, spec, va_arg(*ap, unsigned long long));
		if (l == 1)
			return snprintf(out, room, spec, va_arg(*ap, unsigned long));
		return snprintf(out, room, spec, va_arg(*ap, unsigned int));
	case 'c':
		return snprintf(out, room, spec, va_arg(*ap, int));
	case 's':
		return snprintf(out, room, spec, va_arg(*ap, const char *));
	case 'p':
		return snprintf(out, room, "%016lx", ptr_id(ids, va_arg(*ap, const void *)));
	case 'e': case 'f': case 'g': case 'E': case 'G':
		return snprintf(out, room, spec, va_arg(*ap, double));
	default:
		return snprintf(out, room, "%s", spec); /* not a conversion the kernel's code uses */
	}
}

int kcompat_vsnprintf(char *buf, size_t size, struct kcompat_ptr_ids *ids, const char *fmt, va_list ap_in)
{
	size_t pos = 0;
	va_list ap;

	va_copy(ap, ap_in);
	while (*fmt && pos + 1 < size) {
		char spec[32];
		size_t n = 0;
		int w;

		if (*fmt != '%' || fmt[1] == '%') {
			buf[pos++] = *fmt;
			fmt += *fmt == '%' ? 2 : 1;
			continue;
		}
		spec[n++] = *fmt++;
		while (*fmt && !strchr("diouxXcspeEfgG", *fmt) && n + 12 < sizeof(spec)) {
			if (*fmt == '*')
				n += (size_t)snprintf(spec + n, sizeof(spec) - n, "%d", va_arg(ap, int));
			else
				spec[n++] = *fmt;
			fmt++;
		}
		if (!*fmt)
			break;
		spec[n++] = *fmt++;
		spec[n] = '\0';
		w = convert(buf + pos, size - pos, spec, ids, &ap);
		if (w > 0)
			pos = pos + (size_t)w < size ? pos + (size_t)w : size - 1;
	}
	va_end(ap);
	buf[pos] = '\0';
	return (int)pos;
}
