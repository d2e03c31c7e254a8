/* SPDX-License-Identifier: GPL-2.0 */
/* blktrace's message notes (bfq_log): off, as with no blktrace running. */
#ifndef _KCOMPAT_LINUX_BLKTRACE_API_H
#define _KCOMPAT_LINUX_BLKTRACE_API_H

#include <linux/blkdev.h>

#define blk_trace_note_message_enabled(q) ((void)(q), false)
#define blk_add_trace_msg(q, fmt, ...) do { (void)(q); } while (0)

#endif
