#!/usr/bin/env bash
# The Go binding's tests, as a user builds them: the package finds libprofpack through
# pkg-config alone (#cgo pkg-config: profpack). It is built once against the build tree
# (meson's meson-uninstalled directory) and tested, under the race detector, against a copy
# installed with meson install into a temporary directory.
set -euo pipefail
src=${PROFPACK_SOURCE:?}; build=${PROFPACK_BUILD:?}
command -v go >/dev/null || { echo "go not installed (golang-go)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=${HOME:-$tmp} GOPATH=$tmp/gopath GOCACHE=$tmp/gocache GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
unset CGO_CFLAGS CGO_LDFLAGS
cd "$src/bindings/go"
PKG_CONFIG_PATH=$build/meson-uninstalled go vet ./...
. "$src/tests/stage.sh"
stage_install "$build" "$tmp/stage"
go test -race -count=1 -v ./... 2>&1 | tee "$tmp/out"
p=$(grep -c '^--- PASS' "$tmp/out" || true); f=$(grep -c '^--- FAIL' "$tmp/out" || true)
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
