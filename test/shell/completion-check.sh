#!/bin/bash
# Drives completion/blksim.bash as bash would (COMP_WORDS, COMP_CWORD, then _blksim) and
# checks what a few command lines complete to. Run from the source tree (scenario files).
# Usage: test/shell/completion-check.sh BLKSIM
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=$1
source completion/blksim.bash

fails=0
# complete WORD...: the completions of the last word, one a line.
complete() {
    COMP_WORDS=("$bin" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _blksim 2>/dev/null
    printf '%s\n' "${COMPREPLY[@]}"
}
# expect "WORDS" has|lacks|is VALUE...
expect() {
    local words=$1 how=$2
    shift 2
    local got
    read -ra w <<<"$words"
    [[ -z $words || $words == *" " ]] && w+=("")
    got=$(complete "${w[@]}")
    for v in "$@"; do
        local found=0
        grep -qxF -- "$v" <<<"$got" && found=1
        if { [[ $how == has ]] && ((!found)); } || { [[ $how == lacks ]] && ((found)); }; then
            echo "FAIL: '$words' $how '$v'; got: $(tr '\n' ' ' <<<"$got")"
            fails=$((fails + 1))
        fi
    done
    if [[ $how == is && $(sort <<<"$got" | tr '\n' ' ') != "$(printf '%s\n' "$@" | sort | tr '\n' ' ')" ]]; then
        echo "FAIL: '$words' is '$*'; got: $(tr '\n' ' ' <<<"$got")"
        fails=$((fails + 1))
    fi
}

expect "" has run fio validate list compare sweep sweep-merge import-disksim --version
expect "r" is run report reproduce regress
expect "run --sch" is --scheduler
expect "run -" has -q --quiet --trace --set --seed
expect "run -" lacks --device --a-scheduler
expect "compare --a-" has --a-scheduler --a-name
expect "fio --scheduler " has none mq-deadline kyber bfq
expect "fio --device " has nvme nullb hdd-7200-sata
expect "run --scheduler mq" is mq-deadline
expect "list " has devices schedulers cpu scenarios schema
expect "list --format " is normal json
expect "run --output-format " has normal json json+ terse
expect "run scenarios/teach" is scenarios/teaching
expect "run scenarios/teaching/plug-m" is scenarios/teaching/plug-merge.json
expect "fio --device nvme -- --na" is

if ((fails)); then
    echo "completion: $fails check(s) failed"
    exit 1
fi
echo "completion: all checks passed"
