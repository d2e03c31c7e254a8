/* SPDX-License-Identifier: GPL-2.0 */
/* blktrace's message notes (bfq_log_bfqq, bfq_log): the `m` lines blkparse prints, here
 * handed to blksim's --explain as the scheduler's own text when it listens (formatted only
 * then, as blk_add_trace_msg formats only with a trace running). */
#ifndef _KCOMPAT_LINUX_BLKTRACE_API_H
#define _KCOMPAT_LINUX_BLKTRACE_API_H

#include <linux/blkdev.h>

bool kcompat_trace_enabled(struct request_queue *q);
void kcompat_trace_msg(struct request_queue *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define blk_trace_note_message_enabled(q) kcompat_trace_enabled(q)
#define blk_add_trace_msg(q, fmt, ...) kcompat_trace_msg(q, fmt, ##__VA_ARGS__)

#endif
