#!/bin/bash
# Instructions per simulated I/O of one scenario, counted by callgrind: the marginal cost
# between a short and a longer run, so that start-up (parsing, schema check, allocation)
# drops out. Instruction counts do not depend on the machine's load, unlike wall time.
#
#   scripts/instructions-per-io.sh SCENARIO RUNTIME1 RUNTIME2 [BLKSIM [RUN-OPTION...]]
#   e.g. scripts/instructions-per-io.sh scenarios/bench/nullblk-32x32.json 20ms 60ms
#        scripts/instructions-per-io.sh scenarios/bench/nullblk-bfq-10jobs.json 5ms 15ms \
#            build/blksim --set queues.0.scheduler=kyber
#
# Prints: instructions I/Os(run 2 - run 1) instructions-per-I/O. Every job's runtime is set.
# With --top N first: then the N functions of most self cost (instructions in the function
# itself, with what the compiler inlined into it), per I/O, the same marginal count, one per
# line: "self-instructions-per-I/O function" (docs/performance.md's table of them).
#
# With --cache first, cachegrind simulates the caches and it prints per I/O: instructions,
# data references, L1 data misses and last-level data misses, the last level being the
# host's L2 (one core's, from /sys/devices/system/cpu/cpu0/cache/index2; valgrind 3.19 would
# take the L3, which a VM may report as hundreds of MB). The L1 misses per I/O are the
# measure of locality: the lines a run touches per I/O beyond the few dozen KB that stay in
# L1; the L2 misses, those beyond a core's own L2. Both are deterministic, unlike CPU time.
set -euo pipefail
top=0 cache=0
while [ $# -gt 0 ]; do
  case "$1" in
    --top) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "$0: --top needs a number of functions" >&2; exit 2; }
           top=$2; shift 2 ;;
    --cache) cache=1; shift ;;
    *) break ;;
  esac
done
[ $cache = 0 ] || [ "$top" = 0 ] || { echo "$0: --top and --cache are two different valgrind tools: give one" >&2; exit 2; }
[ $# -ge 3 ] || { echo "usage: $0 [--top N | --cache] SCENARIO RUNTIME1 RUNTIME2 [BLKSIM [RUN-OPTION...]]" >&2; exit 2; }
scenario="$1"; t1="$2"; t2="$3"; blksim="${4:-build/blksim}"
shift $(($# < 4 ? $# : 4))
options=("$@")  # more options of `blksim run`
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 2; }

# The host's L2 as cachegrind's last level (--cache), if sysfs describes it.
l2=()
c=/sys/devices/system/cpu/cpu0/cache/index2
if [ $cache = 1 ] && [ -r "$c/size" ] && [ "$(cat "$c/level")" = 2 ]; then
  size=$(cat "$c/size"); case "$size" in *K) size=$((${size%K} * 1024)) ;; *M) size=$((${size%M} * 1048576)) ;; esac
  l2=(--LL="$size,$(cat "$c/ways_of_associativity"),$(cat "$c/coherency_line_size")")
fi
jobs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$scenario")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# count RUNTIME -> "instructions ios" (--cache: "instructions data-refs L1-misses LL-misses ios")
count() {
  local sets=() i tool=(--tool=callgrind --dump-instr=no --callgrind-out-file="$tmp/cg.$1")
  for ((i = 0; i < jobs; i++)); do sets+=(--set "jobs.$i.runtime=$1"); done
  [ $cache = 0 ] || tool=(--tool=cachegrind --cache-sim=yes "${l2[@]}" --cachegrind-out-file="$tmp/cg.out")
  valgrind "${tool[@]}" \
    "$blksim" run "$scenario" -q --output-format json "${options[@]}" "${sets[@]}" > "$tmp/out.json" 2> "$tmp/vg.txt"
  local ir ios
  if [ $cache = 0 ]; then
    ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/vg.txt")
  else
    ir=$(sed -n 's/.*\(I   refs\|D   refs\|D1  misses\|LLd misses\): *\([0-9,]*\).*/\2/p' "$tmp/vg.txt" | tr -d , | tr '\n' ' ')
  fi
  ios=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(j[k]["total_ios"] for j in d["jobs"] for k in ("read", "write", "trim")))' "$tmp/out.json")
  echo "$ir $ios"
}
if [ $cache = 1 ]; then
  c1=$(count "$t1"); c2=$(count "$t2")
  python3 -c '
import sys
a, b = [list(map(int, s.split())) for s in sys.argv[1:]]
ios = b[-1] - a[-1]
print(ios, "I/Os;", "per I/O:", ", ".join(f"{name} {(y - x) / ios:,.1f}" for name, x, y in
      zip(("instructions", "data refs", "L1d misses", "LLd misses"), a, b)))' "$c1" "$c2"
  exit
fi
read -r ir1 ios1 < <(count "$t1")
read -r ir2 ios2 < <(count "$t2")
python3 -c '
import sys
ir1, ios1, ir2, ios2 = map(int, sys.argv[1:])
print(ir2 - ir1, ios2 - ios1, round((ir2 - ir1) / (ios2 - ios1)))' "$ir1" "$ios1" "$ir2" "$ios2"
[ "$top" -gt 0 ] || exit 0
for t in "$t1" "$t2"; do
  callgrind_annotate --threshold=100 "$tmp/cg.$t" > "$tmp/self.$t"
done
python3 - "$tmp/self.$t1" "$tmp/self.$t2" "$((ios2 - ios1))" "$top" <<'EOF'
import re, sys
# callgrind_annotate's lines: "  1,234 (0.5%)  file:function [object]"
line = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+[^:]*:(.*?)(?:\s\[[^\]]*\])?$")
def self_cost(path):
    cost = {}
    for l in open(path):
        m = line.match(l)
        if m:
            cost[m[2]] = cost.get(m[2], 0) + int(m[1].replace(",", ""))
    return cost
a, b = self_cost(sys.argv[1]), self_cost(sys.argv[2])
ios, top = int(sys.argv[3]), int(sys.argv[4])
rows = sorted(((b.get(f, 0) - a.get(f, 0)) / ios, f) for f in set(a) | set(b))
for per_io, f in reversed(rows[-top:]):
    print(f"{per_io:.0f} {f}")
EOF
