# bash completion for blksim (installed as share/bash-completion/completions/blksim).
# Nothing here lists blksim's commands, options or names: they come from the blksim being
# completed, at completion time: commands and options from its --help, schedulers, device
# profiles and output formats from `blksim list --format json`, list's kinds from its message
# about an unknown kind. Scenario files and fio job files complete as files.

# The blksim on the command line (build/blksim, an installed one), else blksim from PATH.
_blksim_bin() {
    local b=${COMP_WORDS[0]}
    b=${b/#\~/$HOME}
    if [[ $b == */* && -x $b ]]; then printf '%s' "$b"; else printf 'blksim'; fi
}

# blksim's subcommands, from the "Subcommands:" part of its --help.
_blksim_commands() {
    "$1" --help 2>/dev/null | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1 }'
}

# The options of subcommand $2, from its --help ("  -q,--quiet  ..." gives -q and --quiet).
_blksim_options() {
    "$1" "$2" --help 2>/dev/null | awk '/^  -/ { n = split($1, a, ","); for (i = 1; i <= n; i++) print a[i] }'
}

# The values an option of subcommand $2 is checked against, when its --help names them
# ("--output-format TEXT:{normal,json}").
_blksim_choices() {
    "$1" "$2" --help 2>/dev/null | awk -v o="$3" '/^  -/ {
        n = split($1, a, ",")
        for (i = 1; i <= n; i++)
            if (a[i] == o && match($2, /\{[^}]*\}/)) print substr($2, RSTART + 1, RLENGTH - 2)
    }' | tr ',' '\n'
}

# Names from `blksim list --format json`: $2 is schedulers, profiles or formats.
_blksim_names() {
    "$1" list --format json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)
what = sys.argv[1]
items = j["devices"]["profiles"] if what == "profiles" else j.get(what, [])
print("\n".join(i["name"] for i in items))' "$2" 2>/dev/null
}

# The kinds `blksim list KIND` takes, as its message about an unknown kind names them.
_blksim_list_kinds() {
    "$1" list no-such-kind 2>&1 >/dev/null | sed -n 's/.*(allowed: \(.*\)).*/\1/p' | tr -d ',' | tr ' ' '\n'
}

# COMPREPLY from a newline-separated word list $1 that start with $2.
_blksim_reply() {
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "$1" -- "$2"))
}

_blksim() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local bin cmd="" i
    bin=$(_blksim_bin)
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            compopt -o default 2>/dev/null  # fio's arguments or a job file: files
            return 0
        fi
        [[ -z $cmd && ${COMP_WORDS[i]} != -* ]] && cmd=${COMP_WORDS[i]}
    done
    if [[ -z $cmd ]]; then
        _blksim_reply "$(_blksim_commands "$bin")"$'\n--help\n--version' "$cur"
        return 0
    fi
    if [[ $prev == -* ]]; then
        local choices
        choices=$(_blksim_choices "$bin" "$cmd" "$prev")
        if [[ -n $choices ]]; then
            _blksim_reply "$choices" "$cur"
            return 0
        fi
    fi
    case $prev in
        --scheduler|--a-scheduler|--b-scheduler)
            _blksim_reply "$(_blksim_names "$bin" schedulers)" "$cur"
            return 0 ;;
        --device|--b-device)
            _blksim_reply "$(_blksim_names "$bin" profiles)"$'\nnullb\nnvme' "$cur"
            local IFS=$'\n'
            COMPREPLY+=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
            return 0 ;;
        --output-format|--format)
            _blksim_reply "$(_blksim_names "$bin" formats)" "$cur"
            return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        _blksim_reply "$(_blksim_options "$bin" "$cmd")" "$cur"
        return 0
    fi
    if [[ $cmd == list && $prev == list ]]; then
        _blksim_reply "$(_blksim_list_kinds "$bin")" "$cur"
        return 0
    fi
    # A scenario (JSON) or any other file argument: files, directories to descend into.
    local IFS=$'\n'
    COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
    compopt -o filenames 2>/dev/null
    return 0
}

complete -F _blksim blksim
