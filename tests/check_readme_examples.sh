#!/usr/bin/env bash
# The README's C, Go and Swift examples, as a user would build them: cut out of README.md,
# built outside this repository (a C program, a Go module, a SwiftPM package) against a copy
# of this build installed with meson install, found through PKG_CONFIG_PATH alone, and run on
# a profile of every format. Their output is checked against the CLI's --json figures, and
# the pprof file the Go and Swift examples write against `go tool pprof`.
set -euo pipefail
src=${PROFPACK_SOURCE:?}; build=${PROFPACK_BUILD:?}; data=${PROFPACK_TEST_DATA:?}
cli=$build/tools/profpack
export PATH="$PATH:/opt/swift/usr/bin"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp GOPATH=$tmp/gopath GOCACHE=$tmp/gocache GOFLAGS=-mod=mod GOPROXY=off \
  GOTOOLCHAIN=local PPROF_TMPDIR=$tmp/pprof
pass=0 fail=0
check() {  # check STATUS WHAT
  if [ "$1" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $2"; else fail=$((fail + 1)); echo "FAIL $2"; fi
}
# The one fenced block of language $1.
example() {
  awk -v lang="$1" '$0 == "```" lang {on = 1; n++; next} on && $0 == "```" {on = 0; next}
                    on {print} END {if (n != 1) exit 1}' "$src/README.md"
}

. "$src/tests/stage.sh"
stage_install "$build" "$tmp/stage"

# The installed CLI runs from its prefix, finding the library through its RUNPATH.
r=0
"$STAGED_CLI" info "$data/dcpi/medium.dcpi" >/dev/null || r=1
check $r "the installed profpack runs with no LD_LIBRARY_PATH"

samples=(callgrind/callgrind.workload.out cachegrind/cachegrind.workload.out
  gperftools/workload.64le.prof xray/fdr-v5-st.xray dcpi/medium.dcpi)

# What the CLI says: "total<TAB>name" per event, and "self<TAB>name" of the top 5. The examples
# read without PROFPACK_READ_SYMBOLIZE: the CLI leaves the addresses unnamed as they do.
events_of() {
  "$cli" info "$1" --json | python3 -c '
import json, sys
for e in json.load(sys.stdin)["events"]: print(e["name"], e["total"])'
}
top_of() {
  "$cli" top "$1" -n 5 --json --no-symbolize | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]: print("%d\t%s" % (f["self"], f["name"]))'
}

# C: the events of each profile, and the .ppk it writes reads back as the same profile.
mkdir -p "$tmp/c"
example c >"$tmp/c/main.c"
r=0
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/c/example" "$tmp/c/main.c" \
  $(pkg-config --cflags --libs profpack) || r=1
check $r "C example compiles with pkg-config --cflags --libs profpack"
for s in "${samples[@]}"; do
  r=0
  (cd "$tmp/c" && rm -f out.ppk && ./example "$data/$s" >out.txt) || r=1
  diff <(events_of "$data/$s") "$tmp/c/out.txt" >/dev/null || r=1
  "$cli" equal "$data/$s" "$tmp/c/out.ppk" >/dev/null || r=1
  check $r "C example on $s: events and totals as profpack info, its out.ppk the same IR"
done

# Go: a module of its own that names the binding by a replace directive.
mkdir -p "$tmp/go"
example go >"$tmp/go/main.go"
cat >"$tmp/go/go.mod" <<EOF
module example.com/top

go 1.19

require profpack/bindings/go v0.0.0

replace profpack/bindings/go => $src/bindings/go
EOF
r=0
(cd "$tmp/go" && go vet . && go build -o /dev/null .) || r=1
check $r "Go example builds with PKG_CONFIG_PATH only"
# Swift: a package of its own that depends on the binding by path (its directory not named
# "swift": SwiftPM names a package by its directory, and the binding's is "swift").
sw=$tmp/swift-example
mkdir -p "$sw/Sources/example"
example swift >"$sw/Sources/example/main.swift"
cat >"$sw/Package.swift" <<EOF
// swift-tools-version:5.9
import PackageDescription

let package = Package(
  name: "example",
  dependencies: [.package(path: "$src/bindings/swift")],
  targets: [
    .executableTarget(name: "example", dependencies: [.product(name: "Profpack", package: "swift")]),
  ]
)
EOF
r=0
(cd "$sw" && swift build --scratch-path "$sw/.build" >"$sw/build.log" 2>&1) ||
  { r=1; tail -20 "$sw/build.log"; }
check $r "Swift example builds with PKG_CONFIG_PATH only"

for lang in go swift; do
  dir=$tmp/go run=(go run .)  # as a user would try it
  [ "$lang" = swift ] && dir=$sw run=("$sw/.build/debug/example")
  [ "$lang" = swift ] && [ ! -x "${run[0]}" ] && continue
  for s in "${samples[@]}"; do
    ok=0
    (cd "$dir" && rm -f out.pb.gz && "${run[@]}" "$data/$s" >out.txt) || ok=1
    diff <(top_of "$data/$s") "$dir/out.txt" >/dev/null || ok=1
    # The pprof output: go tool pprof reads it, and its sample total is the profile's total.
    first=$("$cli" info "$data/$s" --json | python3 -c '
import json, sys; print(json.load(sys.stdin)["events"][0]["total"])')
    raw=$(go tool pprof -raw "$dir/out.pb.gz" 2>/dev/null | awk '
      /^Samples:/ {on = 1; getline; next} /^Locations/ {on = 0} on && /:/ {sum += $1} END {printf "%.0f\n", sum}')
    [ "$raw" = "$first" ] || ok=1
    check $ok "$lang example on $s: top 5 as profpack top, pprof total $raw = $first"
  done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
