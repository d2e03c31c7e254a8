#!/bin/bash
# Regenerates the device-scaling table of docs/performance.md: how the cost of a run grows
# with the number of devices. For null_blk and HDD machines of 1, 8, 64, 256 and 1,024
# devices (scripts/many-devices.py: one queue, scheduler none, and one fio job at QD32 per
# device), it measures
#   - start-up: the CPU time (user + sys) of a run of 1 ns simulated, which
#     is parsing, validation, building the machine and writing the report;
#   - CPU per I/O: the CPU time of a run with I/O minus the start-up, per completed I/O;
#   - peak RSS of the run with I/O, and per device beyond the first.
# CPU times are the best (least) of 3 runs. A last row, 1 device with 1,024 jobs, gives the
# memory per job. Then, for 1, 64 and 1,024 devices, what cachegrind counts per I/O:
# instructions and misses of the host's L1d and of a core's L2 (deterministic; valgrind).
# Then the memory floor: blksim_bench's BM_DeviceLines (bench/bench_memory_floor.cc),
# what K hot lines per I/O cost at each device count with no simulation at all. The tables
# between the two marker comments are replaced.
#
#   scripts/device-scaling.sh [BLKSIM]      (BLKSIM defaults to build/blksim; a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
blksim="${1:-build/blksim}"
page=docs/performance.md
begin='<!-- device-scaling begin: scripts/device-scaling.sh rewrites what follows -->'
end='<!-- device-scaling end -->'
[ -x "$blksim" ] || { echo "$0: $blksim: no such program (build first)" >&2; exit 2; }
bench="$(dirname "$blksim")/blksim_bench"
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 2; }
[ -x "$bench" ] || { echo "$0: $bench: no such program (configure with -DBLKSIM_BENCH=ON and build)" >&2; exit 2; }
grep -qxF "$begin" "$page" && grep -qxF "$end" "$page" \
  || { echo "$0: $page: the marker lines '$begin' and '$end' are missing" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# measure JSON -> "cpu_seconds max_rss_kb ios": the least CPU time (user + sys of the child,
# from getrusage, to the microsecond) of 3 runs, and their peak RSS.
measure() {
  python3 - "$blksim" "$1" <<'EOF'
import json, resource, subprocess, sys
blksim, scenario = sys.argv[1:]
best = None
for _ in range(3):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([blksim, "run", scenario, "-q", "--output-format", "json", "--mem-limit", "64G"],
                         check=True, stdout=subprocess.PIPE).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    best = cpu if best is None else min(best, cpu)
d = json.loads(out)
ios = sum(j[k]["total_ios"] for j in d["jobs"] for k in ("read", "write", "trim"))
print(f"{best:.6f} {after.ru_maxrss} {ios}")  # ru_maxrss: the largest child's, in KB
EOF
}

# runtime MODEL DEVICES: the simulated time for about a million I/Os. One null_blk job does
# about 640 k I/Os per simulated second, and 8 or more are bound by the 8 simulated CPUs (about
# 5 M); an HDD does about 230 I/Os per second.
runtime() {
  case "$1" in
    null_blk) echo "$((1600 / ($2 < 8 ? $2 : 8)))ms" ;;
    hdd) echo "$((4300000 / $2))ms" ;;
  esac
}

# row MODEL DEVICES NUMJOBS: prints a table row and leaves the peak RSS (KB) in $tmp/rss.
row() {
  local model=$1 n=$2 numjobs=$3 rt
  rt=$(runtime "$model" "$((n * numjobs))")
  scripts/many-devices.py "$model" "$n" --jobs "$numjobs" --runtime 1ns > "$tmp/start.json"
  scripts/many-devices.py "$model" "$n" --jobs "$numjobs" --runtime "$rt" > "$tmp/run.json"
  read -r start_cpu _ _ < <(measure "$tmp/start.json")
  read -r cpu rss_kb ios < <(measure "$tmp/run.json")
  echo "$rss_kb" > "$tmp/rss"
  python3 - "$model" "$n" "$numjobs" "$rt" "$start_cpu" "$cpu" "$rss_kb" "$ios" "${base_rss:-}" <<'EOF'
import sys
model, n, numjobs, rt, start, cpu, rss, ios, base = sys.argv[1:]
n, numjobs, start, cpu, rss, ios = int(n), int(numjobs), float(start), float(cpu), int(rss), int(ios)
per_io = f"{max(cpu - start, 0) / ios * 1e9:,.0f}" if ios else "n/a"
units = n * numjobs
if base and units > 1:
    what = "device" if numjobs == 1 else "job"
    extra = (rss - int(base)) / (units - 1)
    # A few devices move the peak RSS by less than its run-to-run noise (tens of KB).
    per = f"{extra:,.1f} KB per {what}" if extra > 0 else "below the noise"
else:
    per = ""
print(f"| {model} | {n:,} | {numjobs:,} | {rt} | {ios:,} | {per_io} | {rss / 1024:,.1f} MB | {per} | {start * 1000:,.0f} ms |")
EOF
}

# misses MODEL DEVICES: a table row of what cachegrind counts per I/O (scripts/instructions-
# per-io.sh --cache: the host's L1d and a core's L2), marginal between runs of a tenth and
# three tenths of runtime()'s million I/Os. Deterministic, unlike the CPU times: the lines an
# I/O reaches beyond L1 and L2.
misses() {
  local model=$1 n=$2 t
  t=$(runtime "$model" "$n"); t=$((${t%ms} / 10))
  scripts/many-devices.py "$model" "$n" > "$tmp/cache.json"
  scripts/instructions-per-io.sh --cache "$tmp/cache.json" "${t}ms" "$((3 * t))ms" "$blksim" |
    python3 -c '
import re, sys
model, n = sys.argv[1], int(sys.argv[2])
line = sys.stdin.read()
ios = int(re.search(r"^([0-9]+) I/Os", line).group(1))
# A marginal count can come out a hair below zero (-0.0): none.
ins, l1, l2 = (max(0.0, float(re.search(name + r" (-?[0-9][0-9,.]*)", line).group(1).replace(",", "")))
               for name in ("instructions", "L1d misses", "LLd misses"))
print(f"| {model} | {n:,} | {ios:,} | {ins:,.0f} | {l1:,.1f} | {l2:,.1f} |")' "$model" "$n"
}

# floor: the table of BM_DeviceLines and BM_DeviceLinesChain (ns per I/O by devices, per K).
floor() {
  "$bench" --benchmark_filter='^BM_DeviceLines' --benchmark_min_time=0.5 --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=json \
    > "$tmp/floor.json" 2> /dev/null
  python3 - "$tmp/floor.json" <<'EOF'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name, devices, lines = b["run_name"].split("/")
    rows.setdefault((name, int(lines)), {})[int(devices)] = b["cpu_time"]  # ns (the default unit)
counts = (1, 8, 64, 256, 1024)
print("| hot lines per I/O | " + " | ".join(f"{d:,} device{'s' if d > 1 else ''}" for d in counts) + " | 1,024 less 1 |")
print("|---|" + "---|" * (len(counts) + 1))
for (name, lines), t in sorted(rows.items(), key=lambda r: (r[0][0] != "BM_DeviceLines", r[0][1])):
    how = "independent" if name == "BM_DeviceLines" else "chained"
    print(f"| {lines} {how} | " + " | ".join(f"{t[d]:,.1f}" for d in counts) + f" | +{t[1024] - t[1]:,.0f} |")
EOF
}

{
  echo "$begin"
  echo
  echo "| model | devices | jobs per device | simulated | I/Os | CPU ns per I/O | peak RSS | RSS beyond 1 device (or job) | start-up CPU |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for model in null_blk hdd; do
    base_rss=""
    for n in 1 8 64 256 1024; do
      row "$model" "$n" 1
      [ -n "$base_rss" ] || base_rss=$(cat "$tmp/rss")
      [ "$model$n" != null_blk1 ] || nullblk_rss=$base_rss
    done
  done
  base_rss=$nullblk_rss
  row null_blk 1 1024
  echo
  echo "The same machines' locality, counted by cachegrind (\`scripts/instructions-per-io.sh --cache\`: the"
  echo "host's L1d and one core's L2, simulated), per I/O; deterministic where the CPU times above are not:"
  echo
  echo "| model | devices | I/Os counted | instructions | L1d misses | L2 misses |"
  echo "|---|---|---|---|---|---|"
  for model in null_blk hdd; do
    for n in 1 64 1024; do
      misses "$model" "$n"
    done
  done
  echo
  echo "The memory floor on the same host (\`blksim_bench\`'s BM_DeviceLines, bench/bench_memory_floor.cc):"
  echo "CPU ns per I/O (median of 3) when an I/O only touches K hot lines of its device's 32 KiB, no simulation:"
  echo
  floor
  echo
  echo "Measured by \`scripts/device-scaling.sh\` on $(date -u +%Y-%m-%d), $(scripts/host-cpu.sh); CPU times are the best of 3 runs."
  echo
  echo "$end"
} > "$tmp/table"

scripts/replace-marked.sh "$page" "$begin" "$end" "$tmp/table"
sed -n "/^<!-- device-scaling begin/,/^<!-- device-scaling end/p" "$page"
