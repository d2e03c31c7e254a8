#!/bin/bash
# Installs the Debian packages named on the command line that are not installed yet (one
# apt-get run for all of them); does nothing, quickly, when every one is there.
# Usage: scripts/install-packages.sh WHO PACKAGE...   (WHO names the caller in its message)
# Exit status: 0 when something was installed, 1 when nothing had to be, 2 when apt-get failed.
set -uo pipefail
who=$1
shift
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 1
echo "$who: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || exit 2
exit 0
