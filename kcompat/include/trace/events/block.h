/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints: blksim writes its own trace (the core traces insert, dispatch, merge). */
#ifndef _KCOMPAT_TRACE_EVENTS_BLOCK_H
#define _KCOMPAT_TRACE_EVENTS_BLOCK_H

#define trace_block_rq_insert(rq) do { (void)(rq); } while (0)
#define trace_block_rq_issue(rq) do { (void)(rq); } while (0)
#define trace_block_rq_merge(rq) do { (void)(rq); } while (0)

#endif
