#!/usr/bin/env bash
# Installs what profpack needs to build and test on Debian 12, when run as root and only the
# packages that are missing; then the test-only Python tools of tests/requirements.txt
# (gprof2dot) into a virtual environment, .venv at the repository root, unless they are there
# already. The tests find it as $PROFPACK_VENV and never install anything themselves.
# Run by scripts/demo.sh and scripts/test.sh.
set -euo pipefail

PROFPACK_PACKAGES=(
  meson ninja-build pkg-config g++ python3 python3-venv python3-dev
  capnproto libcapnp-dev libzstd-dev zstd libelf-dev libdw-dev zlib1g-dev libdeflate-dev
  valgrind abigail-tools golang-go google-perftools
  clang-14 libclang-rt-14-dev llvm-14
)

missing=()
for p in "${PROFPACK_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

# Test-only Python tools, pinned, in .venv (git-ignored).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=$root/.venv
reqs=$root/tests/requirements.txt
want=$(grep -v '^ *\(#\|$\)' "$reqs" | sort)
have=$([ -x "$venv/bin/pip" ] && "$venv/bin/pip" freeze --disable-pip-version-check 2>/dev/null | sort || true)
if [ -n "$(comm -23 <(echo "$want") <(echo "$have"))" ]; then
  echo "setup: installing $(echo $want) into $venv"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$reqs"
fi
