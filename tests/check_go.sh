#!/usr/bin/env bash
# The Go binding's tests, built against this build's header and libprofpack.so.
set -euo pipefail
src=${PROFPACK_SOURCE:?}; libdir=${PROFPACK_LIBDIR:?}
command -v go >/dev/null || { echo "go not installed (golang-go)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=${HOME:-$tmp} GOPATH=$tmp/gopath GOCACHE=$tmp/gocache GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
export CGO_CFLAGS="-I$src/include" CGO_LDFLAGS="-L$libdir" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cd "$src/bindings/go"
go vet ./...
go test -count=1 -v ./... 2>&1 | tee "$tmp/out"
p=$(grep -c '^--- PASS' "$tmp/out" || true); f=$(grep -c '^--- FAIL' "$tmp/out" || true)
echo "$p passed, $f failed"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
