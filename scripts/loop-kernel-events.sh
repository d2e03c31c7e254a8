#!/bin/bash
# What the real kernel does per I/O on a loop device over tmpfs, under each I/O scheduler:
# the counts of its scheduling events (tracepoints, `perf stat`/`perf record`), to find the
# mechanisms behind the loop calibration set's scheduler/none ratios (docs/validation.md,
# "Loop device over tmpfs"). Counts, not times: on a shared machine times are noise, but how
# many context switches, wake-ups, IPIs and work items one I/O causes is the kernel's code.
#
#   scripts/loop-kernel-events.sh [JOB [RUNTIME [SCHEDULER...]]]
#     JOB        a job of docs/validation/loop-6.18/jobs/, or a job file's path (default randread_4k_j1_qd1_psync)
#     RUNTIME    fio's runtime per scheduler (default 3s)
#     SCHEDULER  default: every scheduler the kernel offers for the loop device
#
# Needs root, fio, perf (linux-perf) and a kernel with loop devices: it makes a 1 GiB file in
# /dev/shm, attaches it with `losetup --direct-io=on` (as the calibration runs did) and
# detaches and removes it at the end. Not part of the test suite (CI has no loop devices).
set -euo pipefail
# A job file given by its path is found from where the script was started.
if [ $# -gt 0 ] && [ -f "$1" ]; then set -- "$(realpath "$1")" "${@:2}"; fi
cd "$(dirname "$0")/.."
job="${1:-randread_4k_j1_qd1_psync}"
runtime="${2:-3s}"
shift $(($# < 2 ? $# : 2))
backing=/dev/shm/blksim-loop-kernel-events
# shellcheck source=scripts/loop-device.sh
source scripts/loop-device.sh
if [ $# -gt 0 ]; then scheds=("$@"); else read -r -a scheds <<<"$(tr -d '[]' <"$sysq/scheduler")"; fi

events=sched:sched_switch,sched:sched_wakeup,irq:softirq_raise,ipi:ipi_send_cpu,workqueue:workqueue_queue_work
echo "# $(uname -r), $(nproc) CPUs; $job, $runtime per scheduler; $dev over tmpfs, dio=1"
for s in "${scheds[@]}"; do
  echo "$s" >"$sysq/scheduler" || { echo "$0: $dev: scheduler '$s' refused" >&2; exit 2; }
  perf stat -a -x, -o "$tmp/stat-$s.csv" -e "$events" -- \
    perf record -q -a -e sched:sched_wakeup -e sched:sched_switch -e workqueue:workqueue_queue_work -o "$tmp/rec-$s.data" -- \
    env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" "$runtime")" >"$tmp/fio-$s.json" 2>"$tmp/err-$s"
  perf script -i "$tmp/rec-$s.data" -F comm,cpu,event,trace >"$tmp/script-$s.txt" 2>/dev/null
done

python3 - "$tmp" "${scheds[@]}" <<'PY'
import csv, json, re, sys
tmp, scheds = sys.argv[1], sys.argv[2:]
print("| scheduler | IOPS | clat p50 us | fio sys us/I/O | switches | wake-ups | softirq raises | IPIs "
      "| work items | of which kblockd hctx runs | loop worker woken on the submitter's CPU "
      "| ksoftirqd in after the worker: preempted it | ... after it slept |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for s in scheds:
    jobs = json.load(open(f"{tmp}/fio-{s}.json"))["jobs"]
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
    p50 = jobs[0]["read"]["clat_ns"]["percentile"]["50.000000"] / 1000
    runtime_us = jobs[0]["job_runtime"] * 1000
    sys_us = sum(j["sys_cpu"] / 100 * runtime_us for j in jobs) / ios
    count = {}
    for row in csv.reader(open(f"{tmp}/stat-{s}.csv")):
        if len(row) > 2 and row[0].strip()[:1].isdigit():
            count[row[2]] = float(row[0]) / ios
    kblockd = same = cross = preempted = slept = 0
    for line in open(f"{tmp}/script-{s}.txt"):
        m = re.match(r"\s*(\S+)\s+\[(\d+)\]\s+(\S+):", line)
        if not m:
            continue
        if "workqueue_queue_work" in m.group(3) and "blk_mq_run_work_fn" in line:
            kblockd += 1
        elif "sched_switch" in m.group(3):
            # The loop worker is a kworker of an unbound workqueue (kworker/uN:M); ksoftirqd
            # switched in after it either preempted it (it stays runnable: R) or found it asleep.
            sw = re.search(r"prev_comm=(\S+) .*prev_state=(\S+) ==> next_comm=(\S+)", line)
            if sw and sw.group(1).startswith("kworker/u") and sw.group(3).startswith("ksoftirqd"):
                if sw.group(2).startswith("R"):
                    preempted += 1
                else:
                    slept += 1
        elif "sched_wakeup" in m.group(3) and m.group(1) == "fio" and "comm=kworker/u" in line:
            t = re.search(r"target_cpu=(\d+)", line)
            if t and int(t.group(1)) == int(m.group(2)):
                same += 1
            else:
                cross += 1
    print(f"| {s} | {iops:.0f} | {p50:.2f} | {sys_us:.2f} | {count['sched:sched_switch']:.2f} "
          f"| {count['sched:sched_wakeup']:.2f} | {count['irq:softirq_raise']:.2f} | {count['ipi:ipi_send_cpu']:.2f} "
          f"| {count['workqueue:workqueue_queue_work']:.2f} | {kblockd / ios:.2f} "
          f"| {same / max(1, same + cross):.0%} | {preempted / ios:.2f} | {slept / ios:.2f} |")
PY
