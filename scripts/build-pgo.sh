#!/bin/bash
# A profile-guided build of blksim, for long sweeps: GCC builds it once instrumented
# (-fprofile-generate), the build runs the benchmark and example scenarios (every device model
# and scheduler), and GCC builds it again from that profile (-fprofile-use). It spends less CPU
# time per simulated I/O (docs/performance.md, "A profile-guided build") with the same outputs
# to the byte: the script ends by checking the golden set with it.
#
#   scripts/build-pgo.sh [DIR]    (DIR defaults to build-pgo; two builds, several minutes)
#
# Not the default build: it takes twice as long, and valgrind cannot run it (boost::math
# computes erfc_inv's long double constants as the program starts, and valgrind's 64-bit
# long double overflows there), so the instruction counts of docs/performance.md and the
# perf guard stay on the plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-pgo}"
jobs="$(nproc)"
prof="$(realpath -m "$dir")/profile"
rm -rf "$prof"

# The profile's file names are the object files' paths: both builds use the same directory.
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBLKSIM_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="-fprofile-generate=$prof -fprofile-update=single"
cmake --build "$dir" -j "$jobs" --target blksim

train() { "$dir/blksim" run "$@" -q > /dev/null; }
train scenarios/bench/nullblk-32x32.json --set jobs.0.runtime=300ms
train scenarios/bench/hdd-randread-qd32.json --set jobs.0.runtime=300s
for sched in none mq-deadline kyber bfq; do
  train scenarios/bench/nullblk-bfq-10jobs.json --set queues.0.scheduler=$sched --set jobs.0.runtime=100ms
done
for s in scenarios/examples/*.json; do
  train "$s"
done

cmake -S . -B "$dir" -DCMAKE_CXX_FLAGS="-fprofile-use=$prof -fprofile-partial-training -Wno-missing-profile"
cmake --build "$dir" -j "$jobs" --target blksim
scripts/golden.sh check "$dir/blksim"
echo "$0: $dir/blksim is built from the profile, and its outputs are the plain build's"

# With the plain build beside it (build/blksim), the two are timed on the benchmarks, runs
# alternating, and the table of docs/performance.md between its markers is rewritten.
plain=build/blksim
[ -x "$plain" ] || { echo "$0: $plain: not built, so nothing to compare with"; exit 0; }
page=docs/performance.md
begin='<!-- pgo begin: scripts/build-pgo.sh rewrites what follows -->'
end='<!-- pgo end -->'
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
{
  echo "$begin"
  echo
  python3 - "$plain" "$dir/blksim" <<'EOF'
import resource, subprocess, sys
plain, pgo = sys.argv[1:]
cases = [
    ("scenarios/bench/nullblk-32x32.json", []),
    ("scenarios/bench/hdd-randread-qd32.json", []),
    ("scenarios/bench/nullblk-bfq-10jobs.json", ["--set", "queues.0.scheduler=mq-deadline"]),
    ("scenarios/bench/nullblk-bfq-10jobs.json", ["--set", "queues.0.scheduler=bfq"]),
]
def cpu(binary, scenario, extra):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, "run", scenario, "-q", *extra], check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print("| benchmark | plain build, CPU s | profile-guided, CPU s | change |")
print("|---|---|---|---|")
for scenario, extra in cases:
    best = {plain: None, pgo: None}
    for _ in range(5):  # alternating, so that a change of the machine's load hits both
        for b in (plain, pgo):
            t = cpu(b, scenario, extra)
            best[b] = t if best[b] is None else min(best[b], t)
    name = f"`{scenario}`" + (f" `{' '.join(extra)}`" if extra else "")
    print(f"| {name} | {best[plain]:.3f} | {best[pgo]:.3f} | {100 * (best[pgo] / best[plain] - 1):+.1f} % |")
EOF
  echo
  echo "Measured by \`scripts/build-pgo.sh\` on $(date -u +%Y-%m-%d), $(scripts/host-cpu.sh); best of 5 runs each, alternating."
  echo
  echo "$end"
} > "$tmp/table"
scripts/replace-marked.sh "$page" "$begin" "$end" "$tmp/table"
sed -n "/^<!-- pgo begin/,/^<!-- pgo end/p" "$page"
