#!/bin/bash
# How long the tasks of the loop path wait for a CPU on a real loop device: for each
# sched_wakeup of the loop worker (a kworker of the device's workqueue), ksoftirqd, kblockd
# (a kworker/<cpu>:<n>H) and fio's threads, the time until the woken task is switched in,
# from `perf record -a` of sched:sched_wakeup and sched:sched_switch. blksim lets a woken task
# run at the next step boundary (microseconds); the guest's scheduler (EEVDF) may let it wait
# for the running task's slice. A companion of scripts/loop-kernel-events.sh.
#
#   scripts/loop-wake-delays.sh [JOB [RUNTIME [SCHEDULER...]]]
#     JOB        a job of docs/validation/loop-6.18/jobs/, or a job file's path (default randread_4k_j2_qd32_libaio)
#     RUNTIME    fio's runtime per scheduler (default 2s)
#     SCHEDULER  default: none mq-deadline kyber
#
# Prints per scheduler and task: wake-ups per I/O and the wait's p50, p90, p99 and maximum.
# Needs root, fio, perf and loop devices (as loop-kernel-events.sh). Not part of the test suite.
set -euo pipefail
# A job file given by its path is found from where the script was started.
if [ $# -gt 0 ] && [ -f "$1" ]; then set -- "$(realpath "$1")" "${@:2}"; fi
cd "$(dirname "$0")/.."
job="${1:-randread_4k_j2_qd32_libaio}"
runtime="${2:-2s}"
shift $(($# < 2 ? $# : 2))
scheds=("$@")
[ ${#scheds[@]} -gt 0 ] || scheds=(none mq-deadline kyber)
backing=/dev/shm/blksim-loop-wake-delays
# shellcheck source=scripts/loop-device.sh
source scripts/loop-device.sh
env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" 1s)" >/dev/null 2>&1

echo "# $(uname -r), $(nproc) CPUs; $job, $runtime per scheduler; $dev over tmpfs, dio=1"
for s in "${scheds[@]}"; do
  echo "$s" >"$sysq/scheduler" || { echo "$0: $dev: scheduler '$s' refused" >&2; exit 2; }
  perf record -q -a -e sched:sched_wakeup -e sched:sched_switch -o "$tmp/rec-$s.data" -- \
    env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" "$runtime")" >"$tmp/fio-$s.json" 2>/dev/null
  perf script -i "$tmp/rec-$s.data" -F time,event,trace >"$tmp/script-$s.txt" 2>/dev/null
done

python3 - "$tmp" "${scheds[@]}" <<'PY'
import json, re, sys
tmp, scheds = sys.argv[1], sys.argv[2:]

def kind(comm):
    if comm.startswith("ksoftirqd/"):
        return "ksoftirqd"
    if comm == "fio":
        return "fio"
    if re.match(r"kworker/\d+:\d+H", comm):
        return "kblockd"
    if comm.startswith("kworker/u"):
        return "loop worker"  # the device's unbound workqueue (loop's lo->workqueue)
    return None

def pct(v, q):
    return v[min(len(v) - 1, int(q * len(v)))]

print("| scheduler | task | wake-ups per I/O | wait p50 us | p90 us | p99 us | max us |")
print("|---|---|---|---|---|---|---|")
for s in scheds:
    jobs = json.load(open(f"{tmp}/fio-{s}.json"))["jobs"]
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    woken = {}   # pid -> (time of wake-up, kind)
    waits = {}
    for line in open(f"{tmp}/script-{s}.txt"):
        m = re.match(r"\s*([\d.]+):\s+sched:(sched_wakeup|sched_switch):\s+(.*)", line)
        if not m:
            continue
        t, ev, rest = float(m.group(1)), m.group(2), m.group(3)
        if ev == "sched_wakeup":
            w = re.search(r"comm=(\S+) pid=(\d+)", rest) or re.match(r"(\S+):(\d+)", rest)
            if w and kind(w.group(1)):
                woken[w.group(2)] = (t, kind(w.group(1)))
        else:
            n = re.search(r"next_comm=(\S+) next_pid=(\d+)", rest) or re.search(r"==> (\S+):(\d+)", rest)
            if n and n.group(2) in woken:
                t0, k = woken.pop(n.group(2))
                waits.setdefault(k, []).append((t - t0) * 1e6)
    for k in ("loop worker", "ksoftirqd", "kblockd", "fio"):
        v = sorted(waits.get(k, []))
        if not v:
            continue
        print(f"| {s} | {k} | {len(v) / ios:.3f} | {pct(v, .5):.1f} | {pct(v, .9):.1f} | {pct(v, .99):.1f} | {v[-1]:.0f} |")
PY
