/* SPDX-License-Identifier: GPL-2.0 */
/* Per-CPU data (include/linux/percpu.h): one copy per CPU of the simulated machine
 * (nr_cpu_ids, set when the queue is made). The CPU "this" code runs on is the one blksim
 * says the call runs on: the submitting CPU of the request or bio it handles
 * (kcompat_this_cpu, set before each call that may use it). */
#ifndef _KCOMPAT_LINUX_PERCPU_H
#define _KCOMPAT_LINUX_PERCPU_H

#include <linux/types.h>

#define __percpu

extern __thread unsigned int kcompat_nr_cpu_ids;
extern __thread unsigned int kcompat_this_cpu;
#define nr_cpu_ids kcompat_nr_cpu_ids

void *__alloc_percpu_gfp(size_t size, size_t align, gfp_t gfp);
void free_percpu(void *ptr);
size_t kcompat_percpu_stride(const void *ptr);

#define alloc_percpu_gfp(type, gfp) ((type *)__alloc_percpu_gfp(sizeof(type), __alignof__(type), gfp))
#define alloc_percpu(type) alloc_percpu_gfp(type, 0)
#define per_cpu_ptr(ptr, cpu) \
	((__typeof__(ptr))((char *)(ptr) + (size_t)(cpu) * kcompat_percpu_stride(ptr)))
#define smp_processor_id() ((int)kcompat_this_cpu)
#define raw_smp_processor_id() smp_processor_id()
#define this_cpu_ptr(ptr) per_cpu_ptr(ptr, kcompat_this_cpu)
#define get_cpu_ptr(ptr) this_cpu_ptr(ptr)
#define put_cpu_ptr(ptr) do { (void)(ptr); } while (0)
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < (int)nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)

#endif
