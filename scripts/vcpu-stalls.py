#!/usr/bin/env python3
"""Measure how often, and for how long, the machine takes each CPU away from a running task:
the host preempting a VM's vCPU (steal time the guest cannot see when, like a Firecracker
guest, it reports none), and the guest's own interrupts and tasks.

One process per CPU, pinned to it, reads the monotonic clock in a tight loop for SECONDS and
records every gap between two reads longer than 2 us: time in which the loop did not run.
Run it on an otherwise idle machine (nothing else competing for the CPUs), as root or not.

Prints, per CPU, the gaps by length (how many a second, their share of the time), and the
classes of stalls for blksim's `host.vcpu_preemption` from the gaps of at least --min-us
(default 5 us): one class per length band, `per_s` the band's gaps per second of the loop's
running time and `mean` their mean length, averaged over the CPUs. Shorter gaps are left out:
they are about the guest's tick rate (HZ=250) and length, which blksim's OS jitter
(host.os_jitter) already takes. A gap cannot tell the host's stall from the guest's own
interrupt, so the classes are what a task loses, whoever takes it.

  scripts/vcpu-stalls.py [SECONDS] [--min-us N]     (default 10 s per CPU, all CPUs at once)
"""
import argparse
import json
import multiprocessing
import os
import sys
import time

BANDS_US = [2, 5, 20, 100, 500, 2000, 10000, float("inf")]


def spin(cpu, seconds, queue):
    os.sched_setaffinity(0, {cpu})
    clock = time.perf_counter_ns
    counts = [0] * (len(BANDS_US) - 1)
    totals = [0] * (len(BANDS_US) - 1)
    reads = 0
    longest = 0
    start = clock()
    end = start + int(seconds * 1e9)
    prev = start
    while True:
        t = clock()
        gap = t - prev
        prev = t
        reads += 1
        if gap >= 2000:
            us = gap / 1000
            i = 0
            while us >= BANDS_US[i + 1]:
                i += 1
            counts[i] += 1
            totals[i] += gap
            longest = max(longest, gap)
        if t >= end:
            break
    queue.put((cpu, t - start, reads, counts, totals, longest))


def band_name(i):
    lo, hi = BANDS_US[i], BANDS_US[i + 1]
    fmt = lambda us: f"{us / 1000:g} ms" if us >= 1000 else f"{us:g} us"
    return f">= {fmt(lo)}" if hi == float("inf") else f"{fmt(lo)} - {fmt(hi)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("seconds", nargs="?", type=float, default=10.0)
    ap.add_argument("--min-us", type=float, default=5.0,
                    help="shortest gap counted as a stall for host.vcpu_preemption (a band edge: 2, 5, 20, 100, 500, 2000, 10000)")
    a = ap.parse_args()
    if not 0.1 <= a.seconds <= 3600:
        print(f"{sys.argv[0]}: SECONDS must be 0.1..3600, not {a.seconds:g}", file=sys.stderr)
        return 2
    if a.min_us not in BANDS_US[:-1]:
        print(f"{sys.argv[0]}: --min-us must be a band edge ({', '.join(f'{b:g}' for b in BANDS_US[:-1])}), not {a.min_us:g}",
              file=sys.stderr)
        return 2
    cpus = sorted(os.sched_getaffinity(0))
    queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=spin, args=(c, a.seconds, queue)) for c in cpus]
    for p in procs:
        p.start()
    results = sorted(queue.get() for _ in procs)
    for p in procs:
        p.join()

    print(f"# {os.uname().release}, {len(cpus)} CPUs, {a.seconds:g} s per CPU, gaps of at least 2 us in a clock loop")
    print("| CPU | loop reads per us | " + " | ".join(band_name(i) for i in range(len(BANDS_US) - 1)) + " | longest |")
    print("|---|---|" + "---|" * (len(BANDS_US) - 1) + "---|")
    for cpu, elapsed, reads, counts, totals, longest in results:
        cells = [f"{c / (elapsed / 1e9):.1f}/s, {100 * t / elapsed:.3f} %" for c, t in zip(counts, totals)]
        print(f"| {cpu} | {reads / (elapsed / 1e3):.1f} | " + " | ".join(cells) + f" | {longest / 1e3:.0f} us |")

    classes = []
    first = BANDS_US.index(a.min_us)
    for i in range(first, len(BANDS_US) - 1):
        count = sum(r[3][i] for r in results)
        if count == 0:
            continue
        total = sum(r[4][i] for r in results)
        running_s = sum((r[1] - sum(r[4])) / 1e9 for r in results)
        classes.append({"per_s": round(count / running_s, 3), "mean": f"{round(total / count)}ns"})
    print(f"\nhost.vcpu_preemption (gaps of {a.min_us:g} us and more, averaged over the CPUs):")
    print(json.dumps(classes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
