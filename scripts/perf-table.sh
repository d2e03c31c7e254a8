#!/bin/bash
# Regenerates the table of docs/performance.md: for each benchmark scenario, callgrind's
# instructions per simulated I/O (scripts/instructions-per-io.sh: deterministic, independent
# of the machine's load) and simulated I/Os per CPU-second of `blksim run` (user + sys time
# from /usr/bin/time, best of 3: CPU time rather than wall time, so that other processes
# sharing the machine matter less). The table between the two marker comments of
# docs/performance.md is replaced; the rest of the page is left as it is.
#
#   scripts/perf-table.sh [BLKSIM]      (BLKSIM defaults to build/blksim; about a minute)
#
# The regression guard: instructions per I/O of a fixed set of short runs (null_blk under each
# scheduler, an HDD, an NVMe drive, 256 null_blk devices), against the committed table between
# the perf-guard markers of docs/performance.md:
#   scripts/perf-table.sh --check [BLKSIM]    fails (exit 1) when a figure is more than 5 %
#                                             above the table's, naming it
#   scripts/perf-table.sh --update [BLKSIM]   measures the set and rewrites that table, for a
#                                             change that makes the path dearer on purpose
set -euo pipefail
cd "$(dirname "$0")/.."
mode=table
case "${1:-}" in
  --check) mode=check; shift ;;
  --update) mode=update; shift ;;
  -*) echo "$0: unknown option '$1' (allowed: --check, --update)" >&2; exit 2 ;;
esac
blksim="${1:-build/blksim}"
page=docs/performance.md
begin='<!-- perf-table begin: scripts/perf-table.sh rewrites what follows -->'
end='<!-- perf-table end -->'
[ -x "$blksim" ] || { echo "$0: $blksim: no such program (build first)" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# replace_marked BEGIN END FILE: the lines of $page from BEGIN to END become FILE's.
replace_marked() { scripts/replace-marked.sh "$page" "$1" "$2" "$3"; }

if [ "$mode" != table ]; then
  guard_begin='<!-- perf-guard begin: scripts/perf-table.sh --update rewrites what follows -->'
  guard_end='<!-- perf-guard end -->'
  scripts/many-devices.py nvme 1 > "$tmp/nvme.json"
  scripts/many-devices.py null_blk 256 > "$tmp/nullblk-256.json"
  nullblk=scenarios/bench/nullblk-bfq-10jobs.json
  # name, scenario, short and long runtime, options of `blksim run`
  guard=(
    "nullblk-none $nullblk 5ms 15ms --set queues.0.scheduler=none"
    "nullblk-mq-deadline $nullblk 5ms 15ms --set queues.0.scheduler=mq-deadline"
    "nullblk-kyber $nullblk 5ms 15ms --set queues.0.scheduler=kyber"
    "nullblk-bfq $nullblk 5ms 15ms --set queues.0.scheduler=bfq"
    "hdd scenarios/bench/hdd-randread-qd32.json 20s 100s"
    "nvme $tmp/nvme.json 5ms 25ms"
    "nullblk-256-devices $tmp/nullblk-256.json 2ms 6ms"
  )
  {
    echo "$guard_begin"
    echo
    echo "| case | instructions per I/O |"
    echo "|---|---|"
    for g in "${guard[@]}"; do
      read -r name scenario t1 t2 options <<< "$g"
      # shellcheck disable=SC2086  # options: words
      counted=$(scripts/instructions-per-io.sh "$scenario" "$t1" "$t2" "$blksim" $options) \
        || { echo "$0: $name: counting instructions failed" >&2; exit 2; }
      echo "| \`$name\` | ${counted##* } |"
    done
    echo
    echo "$guard_end"
  } > "$tmp/guard"
  if [ "$mode" = update ]; then
    replace_marked "$guard_begin" "$guard_end" "$tmp/guard"
    cat "$tmp/guard"
    exit 0
  fi
  sed -n "/^<!-- perf-guard begin/,/^<!-- perf-guard end/p" "$page" > "$tmp/committed"
  grep -q '^| `' "$tmp/committed" \
    || { echo "$0: $page: no committed perf-guard table (make one with --update)" >&2; exit 2; }
  python3 - "$tmp/committed" "$tmp/guard" <<'EOF'
import re, sys
def rows(path):
    return {m[1]: int(m[2]) for m in re.finditer(r"^\| `([^`]+)` \| (\d+) \|$", open(path).read(), re.M)}
committed, measured = rows(sys.argv[1]), rows(sys.argv[2])
worse = []
for name, now in measured.items():
    was = committed.get(name)
    if was is None:
        print(f"{name}: {now} instructions per I/O, not in the committed table (--update to add it)")
        worse.append(name)
        continue
    change = (now - was) / was * 100
    verdict = "REGRESSION (more than 5 %)" if change > 5 else "ok"
    print(f"{name}: {now} instructions per I/O, committed {was} ({change:+.1f} %): {verdict}")
    if change > 5:
        worse.append(name)
if worse:
    print(f"perf guard: {len(worse)} case(s) dearer than docs/performance.md allows: {', '.join(worse)}; "
          "if that is meant, record it with scripts/perf-table.sh --update", file=sys.stderr)
    sys.exit(1)
print("perf guard: all cases within 5 % of docs/performance.md")
EOF
  exit
fi

[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time is not installed (Debian package time)" >&2; exit 2; }

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
  echo "Measured by \`scripts/perf-table.sh\` on $(date -u +%Y-%m-%d), $(scripts/host-cpu.sh)."
  echo
  echo "$end"
} > "$tmp/table"

replace_marked "$begin" "$end" "$tmp/table"
sed -n "/^<!-- perf-table begin/,/^<!-- perf-table end/p" "$page"
