/* SPDX-License-Identifier: GPL-2.0 */
/* kyber's tracepoints: each becomes one --explain line of the queue's disk, with the text of
 * the kernel's TP_printk after the device numbers (the line already names the disk), led by
 * the tracepoint's name: "kyber_latency: read total p90 3/8 samples=41". */
#ifndef _KCOMPAT_TRACE_EVENTS_KYBER_H
#define _KCOMPAT_TRACE_EVENTS_KYBER_H

#include <linux/types.h>

void kcompat_trace_dev(dev_t dev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define trace_kyber_latency(dev, domain, type, percentile, numerator, denominator, samples)            \
	kcompat_trace_dev(dev, "kyber_latency: %s %s p%u %u/%u samples=%u", domain, type,              \
			  (unsigned int)(percentile), (unsigned int)(numerator), (unsigned int)(denominator), \
			  (unsigned int)(samples))
#define trace_kyber_adjust(dev, domain, depth) \
	kcompat_trace_dev(dev, "kyber_adjust: %s %u", domain, (unsigned int)(depth))
#define trace_kyber_throttled(dev, domain) kcompat_trace_dev(dev, "kyber_throttled: %s", domain)

#endif
