#!/bin/bash
# Does `blksim regress` catch real kinds of scheduler bugs? Each patch under
# test/planted-bugs/ plants one bug of a kind that was fixed in the kernel's schedulers or
# blk-mq (starvation, priority inversion, wrap position, batch accounting, depth limits, lost
# wake-ups, token leaks, idling, weights, plug and requeue order, priority accounting and
# aging); 12 is a no-op patch. One at a time, in a
# scratch copy of the tree: apply, build blksim, run the whole suite against the stored
# baseline (scenarios/regress/baseline.json), revert. Prints a Markdown table of verdicts
# (docs/regress.md carries the last one).
#
#   scripts/planted-bugs.sh [SCRATCH_DIR [GLOB]]  (SCRATCH_DIR default: /tmp/blksim-planted-bugs;
#                                            kept, so that a second run builds incrementally;
#                                            GLOB: only the patches it matches, e.g. '*bfq*')
set -euo pipefail
cd "$(dirname "$0")/.."
src="$(pwd)"
scratch="${1:-/tmp/blksim-planted-bugs}"
only="${2:-*}"
mkdir -p "$scratch"
# The tree as committed (the suite and baseline included), not the working copy's changes.
git archive HEAD | tar -x -C "$scratch"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$scratch" -B "$scratch/build" -DCMAKE_BUILD_TYPE=Release -DBLKSIM_TESTS=OFF -DBLKSIM_BENCH=OFF \
  "${launcher[@]}" >/dev/null
build() { cmake --build "$scratch/build" -j 2 --target blksim >/dev/null; }
build

echo "| Planted bug | Verdict | Exit | Cells whose reports differ | Regressions beyond a gate |"
echo "|---|---|---|---|---|"
for patch in "$src"/test/planted-bugs/*.patch; do
  name="$(basename "$patch" .patch)"
  # shellcheck disable=SC2254
  case "$name.patch" in $only) ;; *) continue ;; esac
  (cd "$scratch" && patch -s -p1 < "$patch")
  build
  rc=0
  "$scratch/build/blksim" regress -j 2 --output-format json > "$scratch/$name.json" 2> "$scratch/$name.err" || rc=$?
  (cd "$scratch" && patch -s -R -p1 < "$patch")
  if [ "$rc" = 3 ] || [ "$rc" = 0 ]; then
    read -r differ regress < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["differing_cells"]), d["regressions"])' "$scratch/$name.json")
  else
    differ="-"; regress="-"
  fi
  case "$rc" in
    3) verdict="caught: regression" ;;
    0) [ "$differ" = 0 ] && verdict="no change" || verdict="missed (outputs differ, no regression beyond a gate)" ;;
    1) verdict="caught: a run failed ($(head -c 160 "$scratch/$name.err" | tr '\n|' ' /'))" ;;
    *) verdict="error (exit $rc)" ;;
  esac
  echo "| $name | $verdict | $rc | $differ | $regress |"
done
build  # leave the scratch build as the tree has it
