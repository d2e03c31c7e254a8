/* SPDX-License-Identifier: GPL-2.0 */
/* kyber's tracepoints: blksim reports the scheduler's decisions from its own model; the
 * plugin's are compiled out. */
#ifndef _KCOMPAT_TRACE_EVENTS_KYBER_H
#define _KCOMPAT_TRACE_EVENTS_KYBER_H

#define trace_kyber_latency(dev, domain, type, percentile, numerator, denominator, samples) \
	do { (void)(dev); } while (0)
#define trace_kyber_adjust(dev, domain, depth) do { (void)(dev); (void)(depth); } while (0)
#define trace_kyber_throttled(dev, domain) do { (void)(dev); } while (0)

#endif
