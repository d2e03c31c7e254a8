#!/bin/bash
# The golden outputs: every example, teaching and seed scenario run with fio's normal and JSON
# output, plus a SHA-256 of each teaching scenario's per-request trace, kept in test/golden/;
# and the regression suite's stored baseline (scenarios/regress/baseline.json, docs/regress.md).
# A change that moves a figure must say so: `check` fails on any byte that differs, and
# `update` rewrites the files so that the commit shows the moved figures in its diff.
#
#   scripts/golden.sh check  [BLKSIM]   compare (ctest runs this on the normal build)
#   scripts/golden.sh update [BLKSIM]   rewrite test/golden/ from BLKSIM's output
#
# BLKSIM defaults to build/blksim. Runs go two at a time; the whole set takes about 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-}"
blksim="$(realpath "${2:-build/blksim}")"
case "$mode" in check|update) ;; *) echo "usage: $0 check|update [BLKSIM]" >&2; exit 2 ;; esac
[ -x "$blksim" ] || { echo "$0: $blksim: no such program (build first)" >&2; exit 2; }

golden=test/golden
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# One golden file per scenario: scenarios/examples/a.json -> examples/a.out.
one() {
  local scenario="$1" out="$2" blksim="$3"
  local name; name="$(basename "$(dirname "$scenario")")/$(basename "$scenario" .json)"
  mkdir -p "$out/$(dirname "$name")"
  local rc=0
  "$blksim" run "$scenario" -q --output-format normal,json > "$out/$name.out" 2>&1 || rc=$?
  [ "$rc" = 0 ] || echo "# blksim exited $rc" >> "$out/$name.out"
  if [ "$(basename "$(dirname "$scenario")")" = teaching ]; then
    "$blksim" run "$scenario" -q --output-format terse --trace - 2>&1 | sha256sum \
      | cut -d' ' -f1 > "$out/$name.trace.sha256"
  fi
}
export -f one
# scenarios/seeds/published.json holds the published figures the seeds are checked against.
ls scenarios/examples/*.json scenarios/teaching/*.json scenarios/seeds/e*.json \
  | xargs -P 2 -I{} bash -c 'one "$1" "$2" "$3"' _ {} "$out" "$blksim"

if [ "$mode" = update ]; then
  rm -rf "$golden"
  cp -r "$out" "$golden"
  echo "$golden: $(find "$golden" -type f | wc -l) files written"
  "$blksim" regress -j 2 --save scenarios/regress/baseline.json
  exit 0
fi

# The regression suite against its stored baseline: every report identical.
if ! "$blksim" regress -j 2 --exact > "$out.regress" 2>&1; then
  head -60 "$out.regress"
  echo "the regression suite's outputs differ from scenarios/regress/baseline.json (above)."
  echo "If the change is meant to move these figures: scripts/golden.sh update, and say why in the commit."
  exit 1
fi

if diff -r -u "$golden" "$out" > "$out.diff" 2>&1; then
  echo "golden outputs: all $(find "$golden" -type f | wc -l) identical"
  rm -f "$out.diff"
  exit 0
fi
head -200 "$out.diff"
echo "golden outputs differ ($(grep -c '^diff\|^Only in' "$out.diff") files; diff above, first 200 lines)."
echo "If the change is meant to move these figures: scripts/golden.sh update, and say why in the commit."
rm -f "$out.diff"
exit 1
