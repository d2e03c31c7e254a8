#!/bin/bash
# Replaces the lines of a generated table in a document: from the line BEGIN to the line END
# (both whole lines, kept) by the lines of FILE, which must start with BEGIN and end with END.
# The scripts that regenerate docs/performance.md's tables (perf-table.sh, device-scaling.sh,
# build-pgo.sh) call it, so that the tables are rewritten, never hand-edited.
#
#   scripts/replace-marked.sh PAGE BEGIN END FILE
set -euo pipefail
[ $# = 4 ] || { echo "usage: $0 PAGE BEGIN END FILE" >&2; exit 2; }
page=$1 begin=$2 end=$3 table=$4
grep -qxF "$begin" "$page" && grep -qxF "$end" "$page" \
  || { echo "$0: $page: the marker lines '$begin' and '$end' are missing" >&2; exit 2; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
awk -v table="$table" -v begin="$begin" -v end="$end" '
  $0 == begin { while ((getline line < table) > 0) print line; skip = 1; next }
  $0 == end   { skip = 0; next }
  !skip' "$page" > "$out"
cat "$out" > "$page"
