#!/bin/bash
# Where an elevator's extra CPU time goes on the submitting side of a real loop device: the
# CPU time per I/O of fio's threads by kernel function, under a baseline scheduler and
# another, and the functions whose time per I/O differs most. Measured with `perf record -a
# -g -e cpu-clock` (no hardware counters needed); each sample is 1/FREQ s of one CPU. A
# function's "inclusive" time counts the samples with it anywhere on the call chain, its
# "self" time those where it is the leaf. On a paravirtualized guest the time a section
# runs with interrupts off is charged to the interrupt enable that ends it
# (pvm_irq_enable), so read "self" there as "inside the caller's irq-off section".
# A companion of scripts/loop-cpu-split.sh (which splits an I/O's time by task).
#
#   scripts/loop-fio-functions.sh [JOB [RUNTIME [REPS [BASE OTHER [TOP]]]]]
#     JOB        a job of docs/validation/loop-6.18/jobs/, or a job file's path
#                (default randread_4k_j2_qd32_libaio)
#     RUNTIME    fio's runtime per run (default 4s)
#     REPS       runs per scheduler, alternating the two (default 2); figures are their mean
#     BASE OTHER the two schedulers (default none mq-deadline)
#     TOP        functions listed per table (default 25)
#
# Needs root, fio, perf and loop devices (as loop-kernel-events.sh). Not part of the test suite.
set -euo pipefail
# A job file given by its path is found from where the script was started.
if [ $# -gt 0 ] && [ -f "$1" ]; then set -- "$(realpath "$1")" "${@:2}"; fi
cd "$(dirname "$0")/.."
job="${1:-randread_4k_j2_qd32_libaio}"
runtime="${2:-4s}"
reps="${3:-2}"
base="${4:-none}"
other="${5:-mq-deadline}"
top="${6:-25}"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPS must be a positive number of runs, not '$reps'" >&2; exit 2; }
[[ "$top" =~ ^[1-9][0-9]*$ ]] || { echo "$0: TOP must be a positive number of functions, not '$top'" >&2; exit 2; }
freq=999
backing=/dev/shm/blksim-loop-fio-functions
# shellcheck source=scripts/loop-device.sh
source scripts/loop-device.sh
for s in "$base" "$other"; do
  grep -qw -- "$s" "$sysq/scheduler" || { echo "$0: $dev: scheduler '$s' is not offered (offered: $(cat "$sysq/scheduler"))" >&2; exit 2; }
done
# One run first, unrecorded: fio's start-up then comes from the page cache.
env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" 1s)" >/dev/null 2>&1

echo "# $(uname -r), $(nproc) CPUs; $job, $runtime per run, $reps runs per scheduler (alternating), cpu-clock at $freq Hz; $dev over tmpfs, dio=1"
for r in $(seq 1 "$reps"); do
  for s in "$base" "$other"; do
    echo "$s" >"$sysq/scheduler"
    perf record -q -a -g -e cpu-clock -F "$freq" -o "$tmp/rec.data" -- \
      env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" "$runtime")" >"$tmp/fio-$s-$r.json" 2>"$tmp/err-$s-$r"
    perf script -i "$tmp/rec.data" -F comm,ip,sym >"$tmp/script-$s-$r.txt" 2>/dev/null
  done
done

python3 - "$tmp" "$freq" "$reps" "$base" "$other" "$top" <<'PY'
import collections, json, sys
tmp, freq, reps, base, other, top = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])

def load(run):
    """fio's samples of one run: (inclusive, self) microseconds per I/O by function, total, IOPS."""
    jobs = json.load(open(f"{tmp}/fio-{run}.json"))["jobs"]
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
    incl, leaf = collections.Counter(), collections.Counter()
    total = 0
    comm, chain = None, []
    def end_sample():
        nonlocal total
        if comm == "fio" and chain:
            total += 1
            leaf[chain[0]] += 1
            for f in set(chain):
                incl[f] += 1
    for line in open(f"{tmp}/script-{run}.txt"):
        if not line.strip():
            end_sample()
            comm, chain = None, []
        elif line.startswith("\t"):  # a call-chain entry: address, symbol+offset
            parts = line.split()
            if len(parts) > 1:
                chain.append(parts[1].split("+")[0])
        else:
            comm = line.split()[0]
    end_sample()
    us = 1e6 / freq / ios
    return ({f: n * us for f, n in incl.items()}, {f: n * us for f, n in leaf.items()}, total * us, iops)

def mean(sched):
    runs = [load(f"{sched}-{r}") for r in range(1, reps + 1)]
    inc, slf = collections.Counter(), collections.Counter()
    for i, s, _, _ in runs:
        for f, x in i.items():
            inc[f] += x / reps
        for f, x in s.items():
            slf[f] += x / reps
    return inc, slf, sum(r[2] for r in runs) / reps, [r[3] for r in runs]

A, B = mean(base), mean(other)
print(f"fio's CPU per I/O: {base} {A[2]:.2f} us (IOPS {', '.join(f'{x / 1000:.1f} k' for x in A[3])}), "
      f"{other} {B[2]:.2f} us (IOPS {', '.join(f'{x / 1000:.1f} k' for x in B[3])}): {B[2] - A[2]:+.2f} us")
# The submitting side's steps, by the kernel's names (6.18): the bio's entry, the plug flush
# (direct issue without an elevator, insert + hctx run with one), the driver, the elevator's
# hooks and the tags.
steps = ["blk_mq_submit_bio", "blk_mq_flush_plug_list", "blk_mq_dispatch_queue_requests",
         "blk_mq_dispatch_list", "blk_mq_run_hw_queue", "kblockd_mod_delayed_work_on",
         "loop_queue_rq", "blk_mq_get_tag", "__blk_mq_alloc_driver_tag",
         "dd_bio_merge", "dd_insert_requests", "dd_dispatch_request",
         "kyber_bio_merge", "kyber_insert_requests", "kyber_dispatch_request"]
print(f"\nthe block layer's steps in fio's context (inclusive; a step absent from both is left out)\n")
print(f"| function | {base} us/I/O | {other} us/I/O | difference |")
print("|---|---|---|---|")
for f in steps:
    a, b = A[0].get(f, 0), B[0].get(f, 0)
    if a or b:
        print(f"| `{f}` | {a:.3f} | {b:.3f} | {b - a:+.3f} |")
for idx, kind in ((0, "inclusive"), (1, "self")):
    a, b = A[idx], B[idx]
    names = sorted(set(a) | set(b), key=lambda f: (-(b.get(f, 0) - a.get(f, 0)), f))
    print(f"\n{kind}: the {top} functions whose fio time per I/O grows most from {base} to {other}\n")
    print(f"| function | {base} us/I/O | {other} us/I/O | difference |")
    print("|---|---|---|---|")
    for f in names[:top]:
        print(f"| `{f}` | {a.get(f, 0):.3f} | {b.get(f, 0):.3f} | {b.get(f, 0) - a.get(f, 0):+.3f} |")
PY
