/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's fixed-width and block types, for code built into a blksim plugin. */
#ifndef _KCOMPAT_LINUX_TYPES_H
#define _KCOMPAT_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef unsigned long long u64; /* as the kernel's int-ll64.h: printed with %llu */
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef long long s64;
typedef u64 sector_t;
typedef u32 blk_opf_t;
typedef u16 blk_status_t;
typedef unsigned int gfp_t;

typedef struct {
	int counter;
} atomic_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#endif
