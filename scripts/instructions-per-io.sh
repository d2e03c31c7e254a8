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
set -euo pipefail
top=0
if [ "${1:-}" = --top ]; then
  [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "$0: --top needs a number of functions" >&2; exit 2; }
  top=$2; shift 2
fi
[ $# -ge 3 ] || { echo "usage: $0 [--top N] SCENARIO RUNTIME1 RUNTIME2 [BLKSIM [RUN-OPTION...]]" >&2; exit 2; }
scenario="$1"; t1="$2"; t2="$3"; blksim="${4:-build/blksim}"
shift $(($# < 4 ? $# : 4))
options=("$@")  # more options of `blksim run`
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed" >&2; exit 2; }

jobs=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["jobs"]))' "$scenario")
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# count RUNTIME -> "instructions ios"
count() {
  local sets=() i
  for ((i = 0; i < jobs; i++)); do sets+=(--set "jobs.$i.runtime=$1"); done
  valgrind --tool=callgrind --dump-instr=no --callgrind-out-file="$tmp/cg.$1" \
    "$blksim" run "$scenario" -q --output-format json "${options[@]}" "${sets[@]}" > "$tmp/out.json" 2> "$tmp/vg.txt"
  local ir ios
  ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/vg.txt")
  ios=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(j[k]["total_ios"] for j in d["jobs"] for k in ("read", "write", "trim")))' "$tmp/out.json")
  echo "$ir $ios"
}
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
