#!/bin/bash
# The man page blksim.1, made by help2man from `blksim --help` and `--version`, with
# docs/blksim.h2m (NAME, DESCRIPTION, FILES, SEE ALSO) and a COMMANDS section holding each
# command's own --help, so that the page cannot say other than the binary does.
# Usage: scripts/man-page.sh HELP2MAN BLKSIM INCLUDE OUT   (CMake's man_page target runs it)
set -euo pipefail
help2man=$1 blksim=$2 include=$3 out=$4
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{
    cat "$include"
    echo "[COMMANDS]"
    for c in $("$blksim" --help | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1 }'); do
        printf '.SS "blksim %s"\n.nf\n' "$c"
        # roff: a backslash is \e; a line starting with . or ' is a request unless escaped.
        "$blksim" "$c" --help | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
        printf '.fi\n'
    done
} >"$tmp"
"$help2man" --no-info --include "$tmp" --output "$out.tmp" "$blksim"
mv "$out.tmp" "$out"
