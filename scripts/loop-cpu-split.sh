#!/bin/bash
# Where the CPU time of one I/O goes on a real loop device over tmpfs, by who spends it: the
# fio threads (their syscalls and what runs in their context), the loop worker
# (loop_process_work), ksoftirqd (the completions, raised from the worker's process
# context), kblockd (hctx runs), other tasks, and idle. Measured with `perf record -a -g -e
# cpu-clock` (sampling works without hardware counters); each sample is 1/FREQ s of one CPU.
# A companion of scripts/loop-kernel-events.sh (which counts events): it gives the split
# between the stages that the loop-vm-2cpu profile's single fitted factor does not measure.
#
#   scripts/loop-cpu-split.sh [JOB [RUNTIME [REPS [SCHEDULER...]]]]
#     JOB        a job of docs/validation/loop-6.18/jobs/, or a job file's path (default randread_4k_j2_qd32_libaio)
#     RUNTIME    fio's runtime per run (default 4s)
#     REPS       runs per scheduler, reported one row each (default 3)
#     SCHEDULER  default: none mq-deadline kyber
#
# Needs root, fio, perf and loop devices (as loop-kernel-events.sh). Not part of the test suite.
set -euo pipefail
# A job file given by its path is found from where the script was started.
if [ $# -gt 0 ] && [ -f "$1" ]; then set -- "$(realpath "$1")" "${@:2}"; fi
cd "$(dirname "$0")/.."
job="${1:-randread_4k_j2_qd32_libaio}"
runtime="${2:-4s}"
reps="${3:-3}"
shift $(($# < 3 ? $# : 3))
scheds=("$@")
[ ${#scheds[@]} -gt 0 ] || scheds=(none mq-deadline kyber)
freq=999
backing=/dev/shm/blksim-loop-cpu-split
# shellcheck source=scripts/loop-device.sh
source scripts/loop-device.sh
# One run first, unrecorded: fio's start-up (the dynamic loader's page faults) then comes
# from the page cache in the recorded runs.
env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" 1s)" >/dev/null 2>&1

echo "# $(uname -r), $(nproc) CPUs; $job, $runtime per run, cpu-clock at $freq Hz; $dev over tmpfs, dio=1"
runs=()
for s in "${scheds[@]}"; do
  echo "$s" >"$sysq/scheduler" || { echo "$0: $dev: scheduler '$s' refused" >&2; exit 2; }
  for r in $(seq 1 "$reps"); do
    perf record -q -a -g -e cpu-clock -F "$freq" -o "$tmp/rec-$s-$r.data" -- \
      env DEV="$dev" fio --output-format=json "$(with_runtime "$jobfile" "$runtime")" >"$tmp/fio-$s-$r.json" 2>"$tmp/err-$s-$r"
    perf script -i "$tmp/rec-$s-$r.data" -F comm,ip,sym >"$tmp/script-$s-$r.txt" 2>/dev/null
    runs+=("$s-$r")
  done
done

python3 - "$tmp" "$freq" "${runs[@]}" <<'PY'
import json, sys
tmp, freq, runs = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
cols = ["fio", "fio: softirq", "loop worker", "ksoftirqd", "kblockd", "other", "idle"]

def classify(comm, syms):
    if comm == "swapper" or comm.startswith("swapper/"):
        return "idle"
    if "loop_process_work" in syms or "loop_workfn" in syms or "loop_rootcg_workfn" in syms:
        return "loop worker"
    if "blk_mq_run_work_fn" in syms:
        return "kblockd"
    if comm.startswith("ksoftirqd"):
        return "ksoftirqd"
    if comm == "fio":
        return "fio: softirq" if ("handle_softirqs" in syms or "__do_softirq" in syms) else "fio"
    return "other"

print("| run | IOPS | " + " | ".join(f"{c} us/I/O" for c in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for run in runs:
    jobs = json.load(open(f"{tmp}/fio-{run}.json"))["jobs"]
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
    count = dict.fromkeys(cols, 0)
    comm, syms = None, set()
    for line in open(f"{tmp}/script-{run}.txt"):
        if not line.strip():
            if comm is not None:
                count[classify(comm, syms)] += 1
            comm, syms = None, set()
        elif line.startswith("\t"):  # a callchain entry: address, symbol
            parts = line.split()
            if len(parts) > 1:
                syms.add(parts[1].split("+")[0])
        else:
            comm = line.split()[0]
    if comm is not None:
        count[classify(comm, syms)] += 1
    us = {c: count[c] / freq / ios * 1e6 for c in cols}
    print(f"| {run} | {iops / 1000:.1f} k | " + " | ".join(f"{us[c]:.2f}" for c in cols) + " |")
PY
