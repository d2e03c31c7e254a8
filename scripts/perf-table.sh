#!/bin/bash
# Regenerates the table of docs/performance.md: for each benchmark scenario, callgrind's
# instructions per simulated I/O (scripts/instructions-per-io.sh: deterministic, independent
# of the machine's load) and simulated I/Os per CPU-second of `blksim run` (user + sys time
# from /usr/bin/time, best of 3: CPU time rather than wall time, so that other processes
# sharing the machine matter less). The table between the two marker comments of
# docs/performance.md is replaced; the rest of the page is left as it is.
#
#   scripts/perf-table.sh [BLKSIM]      (BLKSIM defaults to build/blksim; about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
blksim="${1:-build/blksim}"
page=docs/performance.md
begin='<!-- perf-table begin: scripts/perf-table.sh rewrites what follows -->'
end='<!-- perf-table end -->'
[ -x "$blksim" ] || { echo "$0: $blksim: no such program (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is not installed (Debian package time)" >&2; exit 2; }
grep -qxF "$begin" "$page" && grep -qxF "$end" "$page" \
  || { echo "$0: $page: the marker lines '$begin' and '$end' are missing" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# SCENARIO -> "ios cpu_seconds": the best (least CPU time) of 3 runs.
cpu_rate() {
  local best="" i cpu
  for i in 1 2 3; do
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$blksim" run "$1" -q --output-format json > "$tmp/out.json"
    cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/time")
    if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$cpu; fi
  done
  local ios
  ios=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(j[k]["total_ios"] for j in d["jobs"] for k in ("read", "write", "trim")))' "$tmp/out.json")
  echo "$ios $best"
}

# scenario, short runtime, long runtime (the marginal cost between them)
benches=(
  "scenarios/bench/nullblk-32x32.json 20ms 60ms"
  "scenarios/bench/hdd-randread-qd32.json 100s 300s"
)
{
  echo "$begin"
  echo
  echo "| benchmark | instructions per I/O (callgrind, marginal) | simulated I/Os per CPU-second (\`blksim run\`, best of 3) |"
  echo "|---|---|---|"
  for b in "${benches[@]}"; do
    read -r scenario t1 t2 <<< "$b"
    read -r _ _ ipio < <(scripts/instructions-per-io.sh "$scenario" "$t1" "$t2" "$blksim")
    read -r ios cpu < <(cpu_rate "$scenario")
    rate=$(python3 -c 'import sys; ios, cpu = int(sys.argv[1]), float(sys.argv[2]); print(f"{ios / cpu / 1e6:.2f} M ({ios:,} I/Os in {cpu:.2f} s)" if cpu > 0 else "n/a (under 10 ms)")' "$ios" "$cpu")
    printf '| `%s` | %s (%s → %s simulated) | %s |\n' "$scenario" "$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$ipio")" "$t1" "$t2" "$rate"
  done
  echo
  echo "Measured by \`scripts/perf-table.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1))."
  echo
  echo "$end"
} > "$tmp/table"

# Replace the lines from the begin marker to the end marker with the new table.
awk -v table="$tmp/table" -v begin="$begin" -v end="$end" '
  $0 == begin { while ((getline line < table) > 0) print line; skip = 1; next }
  $0 == end   { skip = 0; next }
  !skip' "$page" > "$tmp/page"
cat "$tmp/page" > "$page"
sed -n "/^<!-- perf-table begin/,/^<!-- perf-table end/p" "$page"
