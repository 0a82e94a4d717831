#!/usr/bin/env bash
# The Swift binding's tests (swift test), as a user builds them: SwiftPM finds libprofpack
# through the package's pkgConfig alone, from a copy installed with meson install into a
# temporary directory (SwiftPM does not read meson's -uninstalled .pc files).
set -euo pipefail
src=${PROFPACK_SOURCE:?}; build=${PROFPACK_BUILD:?}
export PATH="$PATH:/opt/swift/usr/bin"
command -v swift >/dev/null || { echo "swift not installed"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$src/tests/stage.sh"
stage_install "$build" "$tmp/stage"
cd "$src/bindings/swift"
# Strict concurrency checking, its findings errors: Profile is Sendable, Merger is not.
swift test --scratch-path "$tmp/build" -Xswiftc -strict-concurrency=complete \
  -Xswiftc -warnings-as-errors 2>&1 | tee "$tmp/out"
p=$(grep -cE "Test Case .* passed" "$tmp/out" || true); f=$(grep -cE "Test Case .* failed" "$tmp/out" || true)
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
