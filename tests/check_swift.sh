#!/usr/bin/env bash
# The Swift binding's tests (swift test), built against this build's header and libprofpack.so.
set -euo pipefail
src=${PROFPACK_SOURCE:?}; libdir=${PROFPACK_LIBDIR:?}
export PATH="$PATH:/opt/swift/usr/bin"
command -v swift >/dev/null || { echo "swift not installed"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# No pkg-config file is installed for this build: give the paths directly.
export PKG_CONFIG_PATH="$tmp/none"
cd "$src/bindings/swift"
swift test --scratch-path "$tmp/build" -Xcc "-I$src/include" -Xlinker "-L$libdir" 2>&1 | tee "$tmp/out"
p=$(grep -cE "Test Case .* passed" "$tmp/out" || true); f=$(grep -cE "Test Case .* failed" "$tmp/out" || true)
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
