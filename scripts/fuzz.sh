#!/bin/bash
# Builds the libFuzzer targets (fuzz/*.cc) with clang in their own build directory and runs
# each for SECONDS, one after the other, then prints a table. Crashes, sanitizer reports,
# escaping exceptions, timeouts and OOMs are written to fuzz/findings/<target>/ and make the
# script fail. The normal g++ build (build/) is not touched. docs/fuzzing.md explains more.
# Usage: scripts/fuzz.sh [SECONDS]   (default 60 per target)
#   FUZZ_BUILD=DIR   build directory (default build-fuzz)
#   FUZZ_TARGETS="scenario_json fio_job"   a subset (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
targets=(${FUZZ_TARGETS:-scenario_json fio_job set_path trace_blktrace trace_iolog replay_sim disksim_params disksim_trace
  validate_disk})

if [ ! -f "$build/CMakeCache.txt" ]; then
  # -O1: fast to compile, what the sanitizers need. Tests and benchmarks are not built here.
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DBLKSIM_FUZZ=ON -DBLKSIM_TESTS=OFF -DBLKSIM_BENCH=OFF -DBLKSIM_WERROR=OFF >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target fuzz_targets

# Seeds: the repository's own inputs, read in place (libFuzzer reads every directory after
# the first recursively and only writes new inputs to the first, $build/corpus/<target>).
seeds() {
  case $1 in
    scenario_json) echo scenarios fuzz/seeds/scenario_json ;;
    set_path) echo fuzz/seeds/set_path ;;
    fio_job)
      echo scenarios/examples/fio test/fixtures/real-linux-6.18/fio fuzz/seeds/fio_job
      if [ -d /usr/share/doc/fio/examples ]; then echo /usr/share/doc/fio/examples; fi ;;  # fio-examples
    trace_blktrace) echo test/fixtures/real-linux-6.18/blktrace ;;
    trace_iolog) echo test/fixtures/fio-iolog ;;
    replay_sim) echo test/fixtures/fio-iolog test/fixtures/real-linux-6.18/blktrace ;;
    disksim_params | disksim_trace | validate_disk) echo test/fixtures/disksim ;;
  esac
}
# The real blktrace fixtures are 0.5-1.2 MB; their first 64 KiB hold ~1400 records, enough
# to start from, and keep each execution fast. The text readers get 256 KiB: the size and
# nesting limits and what lies past them need inputs of that order (a nesting crash needed
# just over 16 KiB). The DiskSim validation trace fixture (47 KB) must fit whole: a trace cut
# mid-line is refused before any replay. fio iologs stay at 16 KiB: hundreds of lines already.
max_len() {
  case $1 in
    trace_blktrace | replay_sim | disksim_trace | validate_disk) echo 65536 ;;
    scenario_json | fio_job | set_path | disksim_params) echo 262144 ;;
    *) echo 16384 ;;
  esac
}
# validate_disk reads the same traces as disksim_trace.
dict() { [ "$1" = validate_disk ] && echo fuzz/dict/disksim_trace.dict || echo "fuzz/dict/$1.dict"; }

status=0
results=()
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t
  findings=fuzz/findings/$t
  mkdir -p "$corpus" "$findings"
  log=$build/fuzz-$t.log
  existing=$(find "$findings" -type f | wc -l)
  echo "== fuzz_$t for ${seconds}s (log: $log)"
  set +e
  # shellcheck disable=SC2046  # $(seeds) is a list of directories without blanks
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -max_len="$(max_len "$t")" -dict="$(dict "$t")" -artifact_prefix="$findings/" \
    -print_final_stats=1 "$corpus" $(seeds "$t") >"$log" 2>&1
  rc=$?
  set -e
  # A log without these lines (a fuzzer that died early) must not end the script here.
  runs=$(grep -aoE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1 || true)
  [ -z "$runs" ] && runs=$(grep -aoE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  size=$(grep -aoE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1 | sed 's/corp: //' || true)
  new=$(( $(find "$findings" -type f | wc -l) - existing ))
  if [ "$rc" -ne 0 ] || [ "$new" -gt 0 ]; then
    status=1
    grep -aE '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|.*terminate called|.*uncaught)' "$log" | head -5 >&2 || true
  fi
  results+=("$(printf '%-16s %12s %18s %9s' "$t" "${runs:-?}" "${size:-?}" "$new")")
done

echo
printf '%-16s %12s %18s %9s\n' target runs "corpus (inputs/bytes)" findings
for r in "${results[@]}"; do echo "$r"; done
[ "$status" -eq 0 ] || echo "fuzz: findings in fuzz/findings/ (reproduce: $build/fuzz/fuzz_<target> FILE)" >&2
exit "$status"
