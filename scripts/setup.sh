#!/bin/bash
# Set up and build blksim on Debian 12: install the Debian packages building and running it
# need (only those missing), configure with CMake and build. Quick when everything is already
# there. What only the tests, fuzzing and the man page need, scripts/test.sh installs.
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

packages=(
  cmake g++ make pkg-config
  libboost-graph-dev nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libvalijson-dev
  catch2 libbenchmark-dev  # the default build compiles the tests and the microbenchmarks too
  python3 python3-matplotlib  # blksim report's plots
)
rc=0
bash scripts/install-packages.sh setup "${packages[@]}" || rc=$?
[ "$rc" -ne 2 ] || exit 2

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBLKSIM_WERROR=$werror >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
