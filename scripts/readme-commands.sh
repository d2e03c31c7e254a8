#!/bin/bash
# Runs every command of README.md's shell blocks, as a newcomer would paste them, and fails
# naming the first one that exits non-zero. A command is each line of a block fenced
# ```sh (a line ending in a backslash continues on the next); blank lines and # comments are
# skipped. Blocks fenced ```sh setup hold the two set-up commands, which install packages
# and build: they are not run here (a fresh-machine check runs them, docs/testing.md).
#
#   scripts/readme-commands.sh [BLKSIM]
#
# Each command runs with bash from the repository root, where README's commands expect to be,
# with a time limit of 300 s. README writes the program as build/blksim; with BLKSIM given
# (ctest passes the program it built), that word is replaced by BLKSIM's path. The tour's
# outputs go to tour/, which is removed before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
readme=README.md
blksim="${1:-build/blksim}"
[ -x "$blksim" ] || { echo "$0: $blksim: no such program (build first)" >&2; exit 2; }
blksim="$(realpath "$blksim")"

# README.md -> one command per line (continuations joined).
mapfile -t cmds < <(awk '
  /^```/ {
    if (!inblock) { inblock = 1; run = ($0 == "```sh"); next }
    inblock = 0; run = 0; next
  }
  inblock && run {
    line = $0
    if (cont != "") { line = cont " " line; cont = "" }
    if (line ~ /\\$/) { sub(/\\$/, "", line); cont = line; next }
    if (line ~ /^[[:space:]]*(#|$)/) next
    print line
  }' "$readme")
[ "${#cmds[@]}" -gt 0 ] || { echo "$0: no \`\`\`sh block with a command in $readme" >&2; exit 1; }

# What the commands leave in the source tree besides tour/ is a README bug (a newcomer's clone
# would fill with it): in a git checkout, untracked files that were not there before fail.
untracked() { git -C "$root" status --porcelain --untracked-files=all 2>/dev/null | grep '^??' | grep -v '^?? tour/' || true; }
before="$(untracked)"
out="$(mktemp)"
rm -rf tour
trap 'rm -rf "$root/tour" "$out"' EXIT
n=0
for c in "${cmds[@]}"; do
  n=$((n + 1))
  run="${c//build\/blksim/$blksim}"
  echo "== $n/${#cmds[@]}: $c"
  rc=0
  (cd "$root" && timeout 300 bash -c "$run") > "$out" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    tail -20 "$out"
    echo "$0: README command $n exited with status $rc: $c" >&2
    exit 1
  fi
done
left="$(comm -13 <(echo "$before" | sort) <(untracked | sort))"
if [ -n "$left" ]; then
  echo "$0: README commands left files in the source tree:" >&2
  echo "$left" >&2
  exit 1
fi

# The sample run ("What a run looks like"): a plain ``` block whose line `$ build/blksim ...`
# is followed by lines of that command's output, `...` (indented or not) where lines are left out. Each of them
# must be a whole line of what the command prints now, so that the sample stays true.
sample="$(awk '/^\$ build\/blksim /{ sub(/^\$ /, ""); print; exit }' "$readme")"
if [ -n "$sample" ]; then
  mapfile -t want < <(awk '
    /^```/ { if (grab) exit; next }
    /^\$ build\/blksim / { grab = 1; next }
    grab && $0 !~ /^[[:space:]]*\.\.\.$/ { print }' "$readme")
  (cd "$root" && timeout 300 bash -c "${sample//build\/blksim/$blksim}") > "$out" 2>&1
  for line in "${want[@]}"; do
    if ! grep -qxF -- "$line" "$out"; then
      echo "$0: README's sample output of '$sample' has a line the command no longer prints:" >&2
      echo "  $line" >&2
      exit 1
    fi
  done
  echo "README's sample output: ${#want[@]} lines as '$sample' prints them"
fi
echo "all ${#cmds[@]} README commands ran"
