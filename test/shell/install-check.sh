#!/bin/bash
# `cmake --install` gives a self-contained blksim: installs the build into a temporary prefix,
# checks that the binary holds no path of the source or build tree, moves the prefix
# elsewhere, and from there (another directory, a clean environment) runs `blksim list`, a
# shipped scenario and a fio command on a device profile, whose report must be the build
# tree's byte for byte.
# Usage: test/shell/install-check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install: FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
for f in bin/blksim share/blksim/scenarios/schema.json share/blksim/scenarios/devices/hdd-7200-sata.json \
         share/blksim/blksim-plot.py share/blksim/kcompat/include/linux share/bash-completion/completions/blksim; do
    [ -e "$tmp/prefix/$f" ] || fail "$f not installed"
done
if grep -q '^BLKSIM_HELP2MAN:FILEPATH=/' "$build/CMakeCache.txt"; then
    [ -s "$tmp/prefix/share/man/man1/blksim.1" ] || fail "share/man/man1/blksim.1 not installed"
fi
if strings "$tmp/prefix/bin/blksim" | grep -F -e "$src" -e "$build"; then
    fail "bin/blksim holds the paths above"
fi

mv "$tmp/prefix" "$tmp/moved"
mkdir "$tmp/cwd"
cd "$tmp/cwd"
inst() { env -i PATH="$tmp/moved/bin:/usr/bin:/bin" HOME="$tmp/cwd" blksim "$@"; }

# (Whole outputs, then grep: grep -q stopping early would fail blksim's write under pipefail.)
inst list schedulers >list.txt || fail "blksim list schedulers"
grep -q mq-deadline list.txt || fail "blksim list schedulers: no mq-deadline"
inst list --format json | python3 -c 'import json, sys; j = json.load(sys.stdin); assert j["devices"]["profiles"]' \
    || fail "blksim list --format json"
scen=share/blksim/scenarios/teaching/plug-merge.json
inst run "$tmp/moved/$scen" -q >installed.txt 2>err.txt || fail "blksim run: $(cat err.txt)"
"$build/blksim" run "$src/scenarios/teaching/plug-merge.json" -q >built.txt
cmp -s installed.txt built.txt || fail "the installed blksim's report differs from the build tree's"
fio=(--name=r --rw=randread --bs=4k --runtime=50ms --time_based)
inst fio --device hdd-7200-sata -q -- "${fio[@]}" >installed-fio.txt 2>err.txt || fail "blksim fio: $(cat err.txt)"
"$build/blksim" fio --device hdd-7200-sata -q -- "${fio[@]}" >built-fio.txt
cmp -s installed-fio.txt built-fio.txt || fail "the installed blksim's fio report differs from the build tree's"
echo "install: self-contained ($(du -sh "$tmp/moved" | cut -f1) installed)"
