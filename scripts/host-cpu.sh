#!/bin/bash
# The host's CPU as the performance tables of docs/performance.md record it, one line:
#   2 CPUs (AMD EPYC, family 26 model 2; L2 2 MiB (2 instances), L3 32 MiB (1 instance))
# A virtual machine's model name often hides the generation ("AMD EPYC"), and CPU times
# measured on two generations differ by integer factors for the same instructions, so the
# family and model numbers and the cache sizes go beside every CPU-time figure.
set -euo pipefail
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -1; }
cache() { lscpu 2>/dev/null | sed -n "s/^$1 cache:[[:space:]]*//p" | head -1; }
echo "$(nproc) CPUs ($(field 'model name'), family $(field 'cpu family') model $(field model);" \
     "L2 $(cache L2), L3 $(cache L3))"
