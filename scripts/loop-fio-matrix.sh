#!/bin/bash
# Runs fio job files on a real loop device over tmpfs under each I/O scheduler, as the loop
# calibration set was measured (docs/validation/loop-6.18/README.md: a 1 GiB tmpfs file behind
# losetup --direct-io=on, 10 s per run, each workload x scheduler REPS times with the
# scheduler order rotated between repetitions), and writes the runs in that set's form:
# OUT/per_run.csv (one row per run, the same columns) and OUT/summary.csv (medians per cell,
# ratios of the medians to none, and the median of the ratios paired by repetition). First
# it measures two facts of the host into OUT/host.txt, for a model to take rather than fit:
# the rate of a copy out of tmpfs (dd of the backing file, 1 MiB reads: the copy the loop
# worker makes, with the syscall amortised) and, when perf is installed, the cost of a
# syscall (perf bench syscall basic).
#
#   scripts/loop-fio-matrix.sh OUT REPS RUNTIME JOB.fio...
#     OUT      directory the files are written to (made if missing)
#     REPS     repetitions of every workload x scheduler (the calibration set: 3)
#     RUNTIME  fio's runtime per run (the calibration set: 10s)
#     JOB.fio  fio job files with filename=${DEV}; the file name (without .fio) names the workload
#
# Every scheduler the kernel offers for the device is run (bfq only if it is built).
# Needs root, fio and loop devices. Not part of the test suite: it measures this machine.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 OUT REPS RUNTIME JOB.fio..." >&2; exit 2; }
out="$(realpath -m "$1")"; reps="$2"; runtime="$3"; shift 3
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "$0: REPS '$reps': a positive integer is allowed" >&2; exit 2; }
jobs=()
for j in "$@"; do
  [ -f "$j" ] || { echo "$0: $j: no such job file" >&2; exit 2; }
  jobs+=("$(realpath "$j")")
done
set -- "${jobs[@]}"
cd "$(dirname "$0")/.."
mkdir -p "$out"
jobfile="$1"  # checked above; loop-device.sh then skips its own job lookup
tools=""
backing=/dev/shm/blksim-loop-fio-matrix
# shellcheck source=scripts/loop-device.sh
source scripts/loop-device.sh

{
  echo "# $(uname -r), $(nproc) CPUs, $(date -u +%F)"
  for i in 1 2 3; do
    echo "tmpfs copy, dd bs=1M of the 1 GiB backing file: $(dd if="$backing" of=/dev/null bs=1M 2>&1 | tail -1)"
  done
  if command -v perf >/dev/null; then
    echo "syscall, perf bench syscall basic: $(perf bench syscall basic 2>&1 | grep usecs/op)"
  fi
} | tee "$out/host.txt"
read -r -a scheds < <(tr -d '[]' <"$sysq/scheduler")
echo "# $(uname -r), $(nproc) CPUs; $dev over tmpfs, dio=1; schedulers: ${scheds[*]}; $reps x $runtime per cell"
# One short run first, unrecorded: fio's start-up then comes from the page cache.
env DEV="$dev" fio --output-format=json "$(with_runtime "$1" 1s)" >/dev/null 2>&1
n=${#scheds[@]}
for r in $(seq 1 "$reps"); do
  for j in "$@"; do
    wl="$(basename "$j" .fio)"
    for i in $(seq 0 $((n - 1))); do
      s="${scheds[$(((i + r - 1) % n))]}"
      echo "$s" >"$sysq/scheduler" || { echo "$0: $dev: scheduler '$s' refused" >&2; exit 2; }
      env DEV="$dev" fio --output-format=json+ "$(with_runtime "$j" "$runtime")" >"$tmp/$wl@$s@$r.json"
      echo "rep $r $wl $s done"
    done
  done
done

python3 - "$tmp" "$out" <<'PY'
import csv, glob, json, os, statistics, sys
tmp, out = sys.argv[1], sys.argv[2]
COLS = ["workload", "sched", "rep", "dirs", "iops", "bw_MiBps", "clat_mean_us", "clat_p50_us", "clat_p99_us",
        "clat_p999_us", "N", "read_iops", "read_clat_mean_us", "read_clat_p99_us", "write_iops",
        "write_clat_mean_us", "write_clat_p99_us", "disk_ios", "disk_merges", "disk_util_pct", "usr_cpu",
        "sys_cpu", "ctx"]


def pct(bins, n, p):
    """fio's percentile over its histogram: the first bucket whose cumulative count reaches p % of n."""
    acc = 0
    for v in sorted(bins):
        acc += bins[v]
        if acc >= p / 100.0 * n:
            return v
    return max(bins)


def side(jobs, d):
    """One direction of the run's jobs summed (numjobs=2 gives two entries): IOPS, clat mean, bins."""
    iops, n, total, bins = 0.0, 0, 0.0, {}
    for jb in jobs:
        x = jb[d]
        if not x["total_ios"]:
            continue
        iops += x["iops"]
        c = x["clat_ns"]
        n += c["N"]
        total += c["mean"] * c["N"]
        for k, v in c.get("bins", {}).items():
            bins[int(k)] = bins.get(int(k), 0) + v
    return iops, n, total, bins


rows = []
for path in sorted(glob.glob(os.path.join(tmp, "*@*@*.json"))):
    wl, sched, rep = os.path.basename(path)[:-5].split("@")
    with open(path) as f:
        doc = json.load(f)
    jobs = doc["jobs"]
    row = {"workload": wl, "sched": sched, "rep": int(rep)}
    dirs, iops, n, total, bins = [], 0.0, 0, 0.0, {}
    for d in ("read", "write"):
        i, dn, dt, db = side(jobs, d)
        if dn:
            dirs.append(d)
            row[f"{d}_iops"] = round(i, 3)
            row[f"{d}_clat_mean_us"] = round(dt / dn / 1000, 3)
            row[f"{d}_clat_p99_us"] = round(pct(db, dn, 99) / 1000, 3)
            iops, n, total = iops + i, n + dn, total + dt
            for k, v in db.items():
                bins[k] = bins.get(k, 0) + v
    row["dirs"] = "+".join(dirs)
    row["iops"] = round(iops, 3)
    row["bw_MiBps"] = round(sum(jb[d]["bw_bytes"] for jb in jobs for d in ("read", "write")) / 2**20, 3)
    row["clat_mean_us"] = round(total / n / 1000, 3)
    for col, p in (("clat_p50_us", 50), ("clat_p99_us", 99), ("clat_p999_us", 99.9)):
        row[col] = round(pct(bins, n, p) / 1000, 3)
    row["N"] = n
    disk = doc.get("disk_util") or [{}]
    row["disk_ios"] = disk[0].get("read_ios", 0) + disk[0].get("write_ios", 0)
    row["disk_merges"] = disk[0].get("read_merges", 0) + disk[0].get("write_merges", 0)
    row["disk_util_pct"] = disk[0].get("util", "")
    row["usr_cpu"] = round(sum(jb["usr_cpu"] for jb in jobs), 3)
    row["sys_cpu"] = round(sum(jb["sys_cpu"] for jb in jobs), 3)
    row["ctx"] = sum(jb["ctx"] for jb in jobs)
    rows.append(row)
rows.sort(key=lambda r: (r["workload"], r["sched"], r["rep"]))
with open(os.path.join(out, "per_run.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, COLS)
    w.writeheader()
    w.writerows(rows)

cells = {}
for r in rows:
    cells.setdefault((r["workload"], r["sched"]), []).append(r)
SUM = ["workload", "sched", "n_reps", "iops_median", "iops_min", "iops_max", "clat_mean_us_median",
       "clat_p50_us_median", "clat_p99_us_median", "iops_ratio_vs_none", "clat_mean_ratio_vs_none",
       "clat_p99_ratio_vs_none", "iops_ratio_paired_median", "iops_ratio_paired_min", "iops_ratio_paired_max",
       "sys_cpu_median"]
summary = []
med = lambda rs, c: statistics.median(r[c] for r in rs)
for (wl, sched), rs in sorted(cells.items()):
    none = cells.get((wl, "none"))
    s = {"workload": wl, "sched": sched, "n_reps": len(rs), "iops_median": med(rs, "iops"),
         "iops_min": min(r["iops"] for r in rs), "iops_max": max(r["iops"] for r in rs),
         "clat_mean_us_median": med(rs, "clat_mean_us"), "clat_p50_us_median": med(rs, "clat_p50_us"),
         "clat_p99_us_median": med(rs, "clat_p99_us"), "sys_cpu_median": med(rs, "sys_cpu")}
    if none:
        for c, m in (("iops_ratio_vs_none", "iops"), ("clat_mean_ratio_vs_none", "clat_mean_us"),
                     ("clat_p99_ratio_vs_none", "clat_p99_us")):
            s[c] = round(med(rs, m) / med(none, m), 3)
        by_rep = {r["rep"]: r["iops"] for r in none}
        paired = [r["iops"] / by_rep[r["rep"]] for r in rs if r["rep"] in by_rep]
        s["iops_ratio_paired_median"] = round(statistics.median(paired), 3)
        s["iops_ratio_paired_min"] = round(min(paired), 3)
        s["iops_ratio_paired_max"] = round(max(paired), 3)
    summary.append(s)
with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, SUM)
    w.writeheader()
    w.writerows(summary)
print(f"{len(rows)} runs: {out}/per_run.csv, {out}/summary.csv")
PY
