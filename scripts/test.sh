#!/bin/bash
# The whole test suite: the Catch2 tests on the normal build, then again on a build with
# AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer), where the CLI tests run the
# sanitized blksim too. Run scripts/setup.sh first (it installs what the build needs and
# builds); this installs, when missing, what only the tests need.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  fio fio-examples blktrace python3-six  # real fio and blkparse/btt, to compare blksim with
  chromium  # the test of blksim report's HTML page takes a headless screenshot
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer + ASan/UBSan runtimes
  linux-source-6.1  # kernel:<name> schedulers: the reference kernel tree (docs/kernel-schedulers.md)
  help2man  # the man page (built with `all` when found), which the install test checks
  slurm-wlm munge  # scripts/slurm-test.sh: a sweep as a job array on a one-node Slurm cluster
)
rc=0
bash scripts/install-packages.sh test "${packages[@]}" || rc=$?
[ "$rc" -ne 2 ] || exit 2
if [ "$rc" -eq 0 ]; then
  # CMake looks again for what was missing (help2man, the kernel tarball) and builds with it.
  cmake -S . -B build >/dev/null
fi
cmake --build build -j "$(nproc)"
ctest --test-dir build --output-on-failure -j2

# In CI, the randomized invariant search runs on past the suite's 150 seeds
# (docs/invariant-search.md): a fixed range of seeds, so that CI's verdict does not depend on
# the machine's speed (2-4 minutes here); test/invariants/known_failures.txt lists the open ones.
if [ "${CI:-}" = "true" ]; then
  echo "== invariant search, seeds 151..$((150 + ${BLKSIM_INVSEARCH_COUNT:-10000})) (build)"
  BLKSIM_INVSEARCH_COUNT="${BLKSIM_INVSEARCH_COUNT:-10000}" BLKSIM_INVSEARCH_FIRST_SEED=151 \
    build/blksim_tests "[search]"
fi

if [ ! -f build-san/CMakeCache.txt ]; then
  # -O1: a sanitizer build at -O1 compiles much faster than at -O3 and catches the same.
  # Never -Werror here: the warning gate is the normal build (setup.sh, -Werror under CI).
  # GCC documents that -fsanitize instrumentation produces false positives of its flow-based
  # warnings; at -O1 g++ 12 flags boost::optional inside Boost.Graph's named_graph.hpp as
  # -Wuninitialized, which is not ours and not a bug.
  cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 \
    -DBLKSIM_SANITIZE=ON -DBLKSIM_BENCH=OFF -DBLKSIM_WERROR=OFF >/dev/null
fi
cmake --build build-san -j "$(nproc)"
echo "== the tests again under ASan + UBSan + LSan (build-san)"
# The golden outputs, the README's commands and the instruction-count guard are checked on the
# normal build only: they test figures and commands, not memory safety, and take ten times as
# long under the sanitizers (whose instrumentation the instruction counts would also measure).
# The Slurm test runs the same sweep code as the CLI tests, inside daemons: nothing more to
# learn about memory safety there. A sanitizer build is not one to install: its instrumentation
# keeps the source paths the install test rightly refuses in an installed binary.
ctest --test-dir build-san --output-on-failure -LE 'golden|readme|perf|slurm|install'

# Short libFuzzer runs (20 s per parser, plus a clang build of the targets: a few minutes) in
# CI or on request; longer runs by hand (docs/fuzzing.md).
if [ "${CI:-}" = "true" ] || [ "${FUZZ:-}" = "1" ]; then
  echo "== short fuzz runs (build-fuzz)"
  bash scripts/fuzz.sh 20
fi
