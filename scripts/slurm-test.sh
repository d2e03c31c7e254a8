#!/bin/bash
# blksim sweep --slurm on a real Slurm cluster: a single-node one on localhost, started here
# from Debian's slurm-wlm and munge packages and stopped on exit.
#
#   scripts/slurm-test.sh BLKSIM
#
# munged with a generated key, slurmctld and slurmd with a generated slurm.conf (no
# accounting, no cgroups: proctrack/linuxproc, task/none), all under a temporary directory
# and on free ports, so that it needs no system configuration and disturbs none. A 16-point
# sweep goes in as a 16-task job array plus its merge (the files blksim sweep --slurm writes,
# queued by their submit.sh); the merged CSV and JSON must be byte-identical to the same sweep
# run on this machine with --jobs 2. Then a sweep with a failing point: its merge must be
# cancelled, leaving no merged file.
#
# Every wait is bounded; the daemons are stopped on exit (trap). Exit status: 0 passed,
# 1 failed, 2 usage, 77 skipped (Slurm or munge missing, or a daemon that cannot run here:
# the reason is printed). SLURM_TEST_KEEP=1 keeps the temporary directory (its logs).
set -u
export PATH="$PATH:/usr/sbin:/sbin"

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 BLKSIM (the blksim binary)" >&2
    exit 2
fi
blksim=$(realpath "$1")
src=$(cd "$(dirname "$0")/.." && pwd)

log() { echo "[$(date +%T)] $*"; }
skip() {
    log "SKIP: $*"
    exit 77
}

for t in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol sinfo squeue scancel; do
    command -v "$t" >/dev/null || skip "$t is not installed (Debian packages: slurm-wlm munge)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/blksim-slurm.XXXXXX") || exit 1
pids=()
jobs_queued=()

# What daemon `$1` wrote: its log file, or its stderr when it wrote no log.
daemon_log() {
    local f=$tmp/log/$1.log
    [ -s "$f" ] || f=$tmp/log/$1.stderr
    echo "$f"
}
# The last lines of each daemon's log, for a skip or a failure.
show_logs() {
    local f
    for f in "$tmp"/log/*.stderr; do
        f=$(daemon_log "$(basename "$f" .stderr)")
        [ -s "$f" ] || continue
        echo "--- last lines of $f"
        tail -n 15 "$f"
    done
}

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ ${#jobs_queued[@]} -gt 0 ] && [ -n "${SLURM_CONF:-}" ]; then
        timeout 10 scancel "${jobs_queued[@]}" 2>/dev/null
    fi
    local p
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
    done
    for p in "${pids[@]}"; do
        # A daemon that does not stop in 10 s is killed.
        timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null || kill -9 "$p" 2>/dev/null
    done
    if [ "${SLURM_TEST_KEEP:-0}" = 1 ]; then
        log "kept $tmp"
    else
        rm -rf "$tmp"
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
    log "FAIL: $*"
    show_logs
    exit 1
}

# Polls `cond` (a command) every half second for up to `secs` seconds; false on timeout.
wait_for() {
    local secs=$1
    shift
    local end=$((SECONDS + secs))
    until "$@"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.5
    done
}

# The last error daemon `$1` logged, else its last line.
last_error() {
    local f e
    f=$(daemon_log "$1")
    e=$(grep -h 'error' "$f" 2>/dev/null | tail -n 1 | sed 's/^\[[^]]*\] //')
    [ -n "$e" ] || e=$(tail -n 1 "$f" 2>/dev/null)
    echo "${e:-no message}"
}
# A daemon we started that has exited is a skip: it cannot run here.
check_alive() {
    local p
    for p in "${pids[@]}"; do
        if ! kill -0 "$p" 2>/dev/null; then
            local name
            name=$(cat "$tmp/pid-$p" 2>/dev/null)
            show_logs
            skip "$name exited at start-up: $(last_error "$name")"
        fi
    done
}
started() {
    pids+=("$2")
    echo "$1" >"$tmp/pid-$2"
}

mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log"
chmod 700 "$tmp/munge"
log "temporary directory $tmp"

# munge: a key of our own, a socket of our own.
mungekey --create --keyfile="$tmp/munge/munge.key" 2>"$tmp/log/mungekey.stderr" ||
    skip "mungekey cannot create a key: $(cat "$tmp/log/mungekey.stderr")"
sock=$tmp/munge/socket
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$sock" --pid-file="$tmp/munge/pid" \
    --seed-file="$tmp/munge/seed" --log-file="$tmp/log/munged.log" 2>"$tmp/log/munged.stderr" &
started munged $!
munge_ok() {
    check_alive
    munge --socket="$sock" --no-input 2>/dev/null | unmunge --socket="$sock" >/dev/null 2>&1
}
wait_for 10 munge_ok || {
    show_logs
    skip "munged does not answer on $sock within 10 s"
}
log "munged is up"

# Two free TCP ports for slurmctld and slurmd.
port_free() { ! ss -Htln "sport = :$1" 2>/dev/null | grep -q .; }
for _ in $(seq 1 50); do
    ctld_port=$((20000 + RANDOM % 30000))
    slurmd_port=$((ctld_port + 1))
    port_free $ctld_port && port_free $slurmd_port && break
done

user=$(id -un)
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=blksimtest
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
NodeName=localhost CPUs=2 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=10 State=UP
EOF

slurmctld -D -i 2>"$tmp/log/slurmctld.stderr" &
started slurmctld $!
slurmd -D -N localhost 2>"$tmp/log/slurmd.stderr" &
started slurmd $!
node_idle() {
    check_alive
    [ "$(timeout 5 sinfo -h -N -n localhost -o %T 2>/dev/null)" = idle ]
}
wait_for 30 node_idle || {
    show_logs
    skip "slurmctld and slurmd run, but node localhost is not idle within 30 s (state: $(timeout 5 sinfo -h -N -o %T 2>&1))"
}
log "slurmctld (port $ctld_port) and slurmd (port $slurmd_port) are up: $(sinfo -h -o '%P %D node(s) %c CPUs %T')"

# The state of job `$1` (for an array: of every task, one per line).
job_states() { timeout 5 scontrol -o show job "$1" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p'; }
# "16 COMPLETED" or "1 COMPLETED, 1 FAILED": the states of job `$1`'s tasks, counted.
state_counts() { job_states "$1" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }'; }
# Waits up to `secs` for job `$1` to end; prints its final state.
wait_job() {
    local job=$1 secs=$2 end=$((SECONDS + $2)) state
    while :; do
        state=$(job_states "$job")
        case $state in
        COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
            echo "$state"
            return 0
            ;;
        esac
        [ $SECONDS -lt $end ] || {
            echo "still ${state:-unknown} after $secs s"
            return 1
        }
        sleep 1
    done
}

# Writes the Slurm jobs of a sweep to $1 and queues them; sets array and merge.
submit() {
    local dir=$1
    shift
    (cd "$src" && "$blksim" "$@" --slurm "$dir") || fail "blksim sweep --slurm exited $?"
    local out
    out=$(timeout 30 "$dir/submit.sh") || fail "$dir/submit.sh exited $?: $out"
    log "$out"
    array=$(echo "$out" | sed -n 's/.*job array \([0-9]*\) .*/\1/p')
    merge=$(echo "$out" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')
    [ -n "$array" ] && [ -n "$merge" ] || fail "no job ids in submit.sh's output"
    jobs_queued+=("$array" "$merge")
}

# 1. 16 points, one array task each, on 2 CPUs.
sweep=(sweep scenarios/examples/nullblk-mq-deadline-10jobs.json --set jobs.0.runtime=50ms
    --param jobs.0.numjobs=1,2,4,6,8,10,12,16 --param queues.0.scheduler=none,mq-deadline)
run=$tmp/run
submit "$run" "${sweep[@]}"
log "sweep.sbatch:"
sed 's/^/    /' "$run/sweep.sbatch"
state=$(wait_job "$merge" 180) || fail "merge job $merge: $state; queue: $(squeue -h 2>&1)"
tasks=$(state_counts "$array")
log "job array $array: tasks ${tasks}; merge job $merge: $state"
[ "$state" = COMPLETED ] || fail "merge job $merge ended $state: $(cat "$run/merge.log" 2>/dev/null)"
[ "$(job_states "$array" | grep -c '^COMPLETED$')" = 16 ] || fail "not 16 completed array tasks: $tasks"
for i in $(seq 0 15); do
    grep -q "1 point (shard $i/16 of 16)" "$run/shard-$i.log" ||
        fail "array task $i did not run shard $i/16: $(cat "$run/shard-$i.log" 2>&1)"
done
log "shard-3.log: $(cat "$run/shard-3.log")"

(cd "$src" && "$blksim" "${sweep[@]}" --jobs 2 --csv "$tmp/local.csv" --json "$tmp/local.json") ||
    fail "the local sweep exited $?"
cmp "$run/sweep.csv" "$tmp/local.csv" || fail "the merged CSV differs from the local --jobs 2 run's"
cmp "$run/sweep.json" "$tmp/local.json" || fail "the merged JSON differs from the local --jobs 2 run's"
log "merged sweep.csv ($(wc -l <"$run/sweep.csv") lines) and sweep.json ($(wc -c <"$run/sweep.json") bytes)" \
    "are byte-identical to blksim sweep --jobs 2 on this machine"
head -n 3 "$run/sweep.csv" | cut -c 1-100 | sed 's/^/    /'

# 2. A sweep with a point that fails (bs=8k with size=4k: a file smaller than a block), in 2
# tasks: the task that runs it exits 2, so the merge's afterok dependency can never be met and
# the merge is cancelled.
bad=$tmp/bad
submit "$bad" sweep scenarios/examples/nullblk-mq-deadline-10jobs.json --set jobs.0.runtime=50ms \
    --set jobs.0.numjobs=1 --param jobs.0.bs=4k,8k --param jobs.0.size=4k,1m --slurm-shards 2
state=$(wait_job "$merge" 120) || fail "merge job $merge of the failing sweep: $state"
log "failing sweep: array tasks $(state_counts "$array"); merge job $merge: $state"
log "shard-0.log: $(grep -m 1 'point 2' "$bad/shard-0.log" | cut -c 1-150)"
[ "$state" = CANCELLED ] || fail "the merge of a sweep with a failed task ended $state, not CANCELLED"
[ ! -e "$bad/sweep.csv" ] && [ ! -e "$bad/sweep.json" ] || fail "a cancelled merge left a merged file"
log "PASS"
