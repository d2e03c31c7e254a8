#!/bin/bash
# E1 and E3 with the kernel's own mq-deadline.c: Linux 6.1's file (mainline) against the same
# file with the seed patch applied (kernel-patches/), A/B in one `blksim compare` per cell,
# printed beside the published change and the change blksim's C++ mq-deadline model gives
# for the same pair (docs/kernel-schedulers.md, "The seed patches as kernel patches").
#
#   scripts/kernel-seeds.sh [--full] [--runs N] [--jobs N] [--out DIR] [--only compare|reproduce] [BLKSIM]
#
# Default: the reduced runs of `blksim reproduce --reduced` (E1 3 s, E3 200 ms of simulated
# time) with 2 paired seeds; --full runs the scenarios' own runtimes (E1 10 s, E3 1 s).
# Then the reproduce table's E1 and E3 rows with the kernel's file: DIR/published-kernel.json,
# every E1/E3 row of scenarios/seeds/published.json with the scheduler set to
# kernel:mq-deadline built from mainline or patched 6.1 (baseline and batch1 cells: 6.1, batch1
# with nr_sched_batch=1; batch1-head: 6.1 + E1 with nr_sched_batch=1; mq-deadline: 6.1;
# direct: 6.1 + E3; none stays none), run by `blksim reproduce --data ... --check`. Each row
# keeps the C++ model's row's expectation (the device and host models are the same), so a
# FAIL is a row the model passes and the kernel's file does not: the script exits 1.
# The patched files go to DIR (default build/kernel-seeds/): mainline/mq-deadline.c,
# e1/mq-deadline.c, e3/mq-deadline.c; 6.1's file comes from the build folder (CMake extracts
# it) or from /usr/src/linux-source-6.1.tar.xz.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 [--full] [--runs N] [--jobs N] [--out DIR] [--only compare|reproduce] [BLKSIM]" >&2; exit 2; }

full=0 runs=2 jobs=2 out=build/kernel-seeds blksim=build/blksim only=
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --runs) [ $# -ge 2 ] || usage; runs="$2"; shift ;;
    --jobs) [ $# -ge 2 ] || usage; jobs="$2"; shift ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift ;;
    --only) [ $# -ge 2 ] || usage; only="$2"; shift
            case "$only" in compare|reproduce) ;; *) echo "$0: --only: compare or reproduce, got '$only'" >&2; exit 2 ;; esac ;;
    -*) usage ;;
    *) blksim="$1" ;;
  esac
  shift
done
[[ "$runs" =~ ^[0-9]+$ && "$runs" -ge 2 ]] || { echo "$0: --runs: at least 2, got '$runs'" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ && "$jobs" -ge 1 ]] || { echo "$0: --jobs: at least 1, got '$jobs'" >&2; exit 2; }
[ -x "$blksim" ] || { echo "$0: $blksim: no such program (build first)" >&2; exit 2; }
blksim="$(realpath "$blksim")"

# 6.1's block/mq-deadline.c, mainline, then each patch applied to a copy of it alone.
mkdir -p "$out"
out="$(realpath "$out")"
ref=build/kernel-6.1/linux-source-6.1/block/mq-deadline.c
mkdir -p "$out/mainline"
if [ -f "$ref" ]; then
  cp "$ref" "$out/mainline/mq-deadline.c"
else
  tarball=/usr/src/linux-source-6.1.tar.xz
  [ -f "$tarball" ] || { echo "$0: neither $ref nor $tarball (Debian package linux-source-6.1)" >&2; exit 2; }
  tar -xJf "$tarball" -O linux-source-6.1/block/mq-deadline.c > "$out/mainline/mq-deadline.c"
fi
for p in e1:kernel-patches/e1-prioritize-first-request.patch e3:kernel-patches/e3-direct-dispatch.patch; do
  name="${p%%:*}" patch="${p#*:}"
  mkdir -p "$out/$name"
  cp "$out/mainline/mq-deadline.c" "$out/$name/mq-deadline.c"
  patch --quiet --forward "$out/$name/mq-deadline.c" < "$patch" \
    || { echo "$0: $patch does not apply to 6.1's mq-deadline.c" >&2; exit 1; }
done
echo "6.1 mainline and patched mq-deadline.c: $out/{mainline,e1,e3}/mq-deadline.c"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# compare NAME SCENARIO [compare options...]: its JSON report to $tmp/NAME.json.
compare() {
  local name="$1" scenario="$2"
  shift 2
  local rt=()
  if [ "$full" = 0 ]; then
    case "$name" in e1-*) rt=(--set jobs.0.runtime=3s) ;; e3-*) rt=(--set jobs.0.runtime=200ms) ;; esac
  fi
  "$blksim" compare "scenarios/seeds/$scenario" "${rt[@]}" -n "$runs" -j "$jobs" --output-format json "$@" \
    > "$tmp/$name.json" 2> "$tmp/$name.err" \
    || { cat "$tmp/$name.err" >&2; echo "$0: compare $name failed" >&2; exit 1; }
}

# The kernel's file: mainline (A) against patched (B), every other setting the scenario's.
kernel_ab() {
  local name="$1" scenario="$2" patched="$3" b_iosched="$4"
  compare "$name.kernel" "$scenario" --set queues.0.scheduler=kernel:mq-deadline \
    --a "kernel.tree=$out/mainline/mq-deadline.c;queues.0.iosched={}" \
    --b "kernel.tree=$out/$patched/mq-deadline.c;queues.0.iosched=$b_iosched" \
    --a-name "6.1" --b-name "6.1+$patched"
}

# blksim's C++ model: the published comparison's two scenarios.
model_ab() {
  local name="$1" a="$2" b="$3"
  compare "$name.model" "$a" --b-scenario "scenarios/seeds/$b" --a-name model-A --b-name model-B
}

# The reproduce table's E1 and E3 rows, run with the kernel's file.
reproduce_rows() {
  python3 - scenarios/seeds/published.json "$out" > "$out/published-kernel.json" <<'PY'
import json, os, re, sys
data_path, out = sys.argv[1], sys.argv[2]
with open(data_path) as f:
    data = json.load(f)
seeds = os.path.dirname(os.path.abspath(data_path))

def kernel(run):
    """The run (scenario + sets) with the kernel's file for the scenario's configuration."""
    name = run["scenario"]
    if re.search(r"-none\.json$", name):
        tree, iosched = None, None
    elif re.search(r"-batch1-head-", name):
        tree, iosched = "e1", {"nr_sched_batch": 1}
    elif re.search(r"-batch1-", name):
        tree, iosched = "mainline", {"nr_sched_batch": 1}
    elif re.search(r"-direct\.json$", name):
        tree, iosched = "e3", {}
    else:
        tree, iosched = "mainline", {}
    r = {"scenario": os.path.join(seeds, name), "sets": list(run.get("sets", []))}
    if tree:
        r["sets"] += ["queues.0.scheduler=kernel:mq-deadline", "queues.0.iosched=" + json.dumps(iosched),
                      f"kernel.tree={out}/{tree}/mq-deadline.c"]
    return r

rows = []
for row in data["rows"]:
    if row["experiment"] not in ("E1", "E3"):
        continue
    k = dict(row)
    k.update(kernel(row))
    if "ratio_to" in row:
        k["ratio_to"] = kernel(row["ratio_to"])
    k["cell"] = row["cell"] + " [6.1 .c]"
    rows.append(k)
data["description"] = ("E1 and E3 of published.json with kernel:mq-deadline built from Linux 6.1's mq-deadline.c, "
                       "mainline or with kernel-patches/ applied (written by scripts/kernel-seeds.sh)")
data["rows"] = rows
data["reduced"]["sets"] = {e: v for e, v in data["reduced"]["sets"].items() if e in ("E1", "E3")}
print(json.dumps(data, indent=1))
PY
  local reduced=(--reduced)
  [ "$full" = 1 ] && reduced=()
  echo "running the reproduce table's E1 and E3 rows with the kernel's file ..." >&2
  "$blksim" reproduce --data "$out/published-kernel.json" "${reduced[@]}" --seeds "$runs" --jobs "$jobs" --check
}

if [ "$only" = reproduce ]; then
  reproduce_rows
  exit 0
fi

# E1, raid0-hdd: baseline against nr_sched_batch=1 + head request (the published table's
# first and last rows). The scenarios model 5.19 (next_rq, no plug), as 6.1 has them too.
for rw in read write rw; do
  echo "running E1 raid0-hdd $rw ..." >&2
  kernel_ab "e1-$rw" "e1-raid0-hdd-baseline-$rw.json" e1 '{"nr_sched_batch":1}'
  model_ab "e1-$rw" "e1-raid0-hdd-baseline-$rw.json" "e1-raid0-hdd-batch1-head-$rw.json"
done
# E3, NVMe: mq-deadline against mq-deadline + direct dispatch.
for w in jobs1-4k jobs10-4k jobs1-32k; do
  echo "running E3 NVMe $w ..." >&2
  kernel_ab "e3-$w" "e3-nvme-$w-mq-deadline.json" e3 '{}'
  model_ab "e3-$w" "e3-nvme-$w-mq-deadline.json" "e3-nvme-$w-direct.json"
done

python3 - "$tmp" "$runs" "$full" <<'EOF'
import json, sys
tmp, runs, full = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"

def metric(name, key):
    with open(f"{tmp}/{name}.json") as f:
        d = json.load(f)
    for m in d["metrics"]:
        if m["metric"].endswith("/" + key):
            return m
    sys.exit(f"kernel-seeds: {name}: no metric {key}")

# (cell, run name, metric, published A, published B, unit divisor, unit)
MiB = 1 << 20
rows = [
    ("E1 raid0-hdd read", "e1-read", "read.iops", 152421, 171177, 1, "IOPS"),
    ("E1 raid0-hdd write", "e1-write", "write.iops", 136959, 184431, 1, "IOPS"),
    ("E1 raid0-hdd rw (reads)", "e1-rw", "read.iops", 54593, 56178, 1, "IOPS"),
    ("E1 raid0-hdd rw (writes)", "e1-rw", "write.iops", 54581, 56169, 1, "IOPS"),
    ("E3 NVMe jobs1-4k", "e3-jobs1-4k", "read.bw_bytes", 1047, 1174, MiB, "MiB/s"),
    ("E3 NVMe jobs10-4k", "e3-jobs10-4k", "read.bw_bytes", 946, 2349, MiB, "MiB/s"),
    ("E3 NVMe jobs1-32k", "e3-jobs1-32k", "read.bw_bytes", 2565, 2562, MiB, "MiB/s"),
]
print(f"\n{'full' if full else 'reduced'} runs, {runs} paired seeds; A = mq-deadline, B = with the patch "
      "(E1: nr_sched_batch=1 + head request; E3: direct dispatch)")
hdr = f"{'cell':26} {'unit':6} {'impl':9} {'A':>10} {'B':>10} {'B/A':>7} {'published B/A':>14}  verdict"
print(hdr)
print("-" * len(hdr))
for cell, run, key, pa, pb, div, unit in rows:
    for impl in ("kernel", "model"):
        m = metric(f"{run}.{impl}", key)
        a, b = m["mean_a"] / div, m["mean_b"] / div
        label = "6.1 .c" if impl == "kernel" else "C++"
        print(f"{cell:26} {unit:6} {label:9} {a:10.0f} {b:10.0f} {b / a:7.3f} {pb / pa:14.3f}  {m['verdict']}")
EOF

[ "$only" = compare ] || reproduce_rows
