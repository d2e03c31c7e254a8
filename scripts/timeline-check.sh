#!/usr/bin/env bash
# The `blksim report --timeline` page in a real browser: headless Chromium renders a
# teaching scenario's timeline to a screenshot, and its DOM (after the page's script ran)
# must hold the tracks and a request's hover text (docs/timeline.md).
#
# Usage: scripts/timeline-check.sh BLKSIM [OUTDIR]
#   OUTDIR keeps timeline.html, timeline.png and timeline.dom (default: a temporary
#   directory, removed). Exit status: 0 checked, 1 a check failed, 77 no Chromium (ctest
#   counts 77 as skipped).
set -euo pipefail

blksim=${1:?usage: $0 BLKSIM [OUTDIR]}
src=$(cd "$(dirname "$0")/.." && pwd)
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [[ -z "$chromium" ]]; then
    echo "timeline-check: skipped: no chromium (set CHROMIUM to its path)"
    exit 77
fi
keep=${2:-}
out=${keep:-$(mktemp -d)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
# A fresh browser profile each time.
profile=$(mktemp -d)
trap 'rm -rf "$profile"; [[ -n "$keep" ]] || rm -rf "$out"' EXIT

# The lesson: mq-deadline holding reads and writes, 2 ms of it.
"$blksim" report "$src/scenarios/teaching/mq-deadline-writes-starved.json" --timeline \
    --perfetto-window 100ms..102ms -o "$out/timeline.html"

# Nothing from the network: the page needs nothing.
browse() {
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
        --no-first-run --disable-extensions --host-resolver-rules="MAP * ~NOTFOUND" "$@" 2>/dev/null
}
url="file://$out/timeline.html#hover=first"
browse --window-size=1280,1400 --screenshot="$out/timeline.png" "$url" >/dev/null
browse --dump-dom "$url" >"$out/timeline.dom"
# The hover text spans lines: look at the DOM as one line.
tr '\n' ' ' <"$out/timeline.dom" >"$out/timeline.dom1"

fail=0
check() {  # check WHAT PATTERN
    if grep -q -- "$2" "$out/timeline.dom1"; then
        echo "timeline-check: ok: $1"
    else
        echo "timeline-check: FAILED: $1 (no '$2' in the page's DOM)"
        fail=1
    fi
}
check "a CPU track" 'class="track-label"[^>]*>CPU 0<'
check "a hardware queue track" 'class="track-label"[^>]*>hctx 0<'
check "the request track" 'class="track-label"[^>]*>requests<'
check "a counter track" 'class="track-label"[^>]*>sched tags'
check "a request's hover text with its stages" 'id="tl-tip"[^>]*display: block[^>]*>[RW] [0-9]*+[0-9]*'
check "the hover text's Q2G..D2C" 'Q2G_us: .*G2I_us: .*I2D_us: .*D2C_us: '
if [[ ! -s "$out/timeline.png" ]]; then
    echo "timeline-check: FAILED: no screenshot"
    fail=1
else
    echo "timeline-check: screenshot $out/timeline.png ($(stat -c %s "$out/timeline.png") bytes)"
fi
rm -f "$out/timeline.dom1"
exit $fail
