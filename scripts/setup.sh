#!/bin/bash
# Set up and build blksim on Debian 12: install the Debian packages it needs (only those
# missing), configure with CMake and build. Quick when everything is already there.
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

packages=(
  cmake g++ make pkg-config
  libboost-graph-dev nlohmann-json3-dev catch2 libspdlog-dev libfmt-dev libcli11-dev
  libvalijson-dev libbenchmark-dev
  fio fio-examples blktrace python3 python3-six python3-matplotlib
  chromium  # the test of blksim report's HTML page takes a headless screenshot
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer + ASan/UBSan runtimes
  linux-source-6.1  # kernel:<name> schedulers: the reference kernel tree (docs/kernel-schedulers.md)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBLKSIM_WERROR=$werror >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
