# Sourced by the loop scripts (loop-kernel-events.sh, loop-cpu-split.sh, loop-fio-functions.sh,
# loop-wake-delays.sh, loop-fio-matrix.sh): checks what they need and makes the calibration
# set's device, a loop device over a 1 GiB tmpfs file with direct I/O (losetup
# --direct-io=on), detached and removed when the script exits. Expects $backing (the file's path), and $job (a job of
# docs/validation/loop-6.18/jobs/ or a job file's path) unless $jobfile is set already;
# $tools lists the commands the script needs besides fio, losetup and python3 (default:
# perf). Sets $jobfile, $tmp (a scratch directory), $dev and $sysq (its queue's sysfs
# directory).
if [ -z "${jobfile:-}" ] && [ -f "${job:-}" ]; then
  jobfile="$job"
elif [ -z "${jobfile:-}" ]; then
  jobfile="docs/validation/loop-6.18/jobs/$job.fio"
  [ -f "$jobfile" ] || { echo "$0: $jobfile: no such job (see docs/validation/loop-6.18/jobs/)" >&2; exit 2; }
fi
[ "$(id -u)" = 0 ] || { echo "$0: needs root (losetup)" >&2; exit 2; }
for tool in fio losetup python3 ${tools-perf}; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is not installed" >&2; exit 2; }
done

tmp="$(mktemp -d)"
dev=""
cleanup() {
  [ -z "$dev" ] || losetup -d "$dev" || true
  rm -f "$backing"
  rm -rf "$tmp"
}
trap cleanup EXIT
dd if=/dev/urandom of="$backing" bs=1M count=1024 status=none
dev="$(losetup --direct-io=on -f --show "$backing")"
sysq="/sys/block/$(basename "$dev")/queue"

# with_runtime FILE RUNTIME: the job file FILE with its runtime set to RUNTIME, as a copy in
# $tmp (its path printed). fio applies a command line's --runtime before the job file, whose
# own runtime= then wins, so the option alone would not shorten a run.
with_runtime() {
  local copy
  copy="$tmp/$(basename "$1" .fio)-$2.fio"
  sed "s/^runtime=.*/runtime=$2/" "$1" >"$copy"
  echo "$copy"
}
