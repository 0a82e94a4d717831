#!/usr/bin/env bash
# Configures build-fuzz: clang-14 with AddressSanitizer + UndefinedBehaviorSanitizer and
# libFuzzer's coverage instrumentation. It is the one sanitizer tree of the project:
# scripts/test.sh builds everything in it and runs the test suites there, then fuzz/run-all.sh
# runs its harnesses (one library build for both, not two).
# -O1 as ASan's documentation suggests (the suites run faster than at -O0, and it compiles
# faster than -O2); line tables are all a sanitizer report or a crash's stack needs.
# Does nothing when build-fuzz is configured already. Exit status 1 with meson's log on failure.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build-fuzz/build.ninja ] && exit 0
log=$(mktemp)
if ! CC=clang-14 CXX=clang++-14 meson setup build-fuzz -Dfuzzing=true -Dbuildtype=plain \
  -Doptimization=1 -Db_sanitize=address,undefined -Db_lundef=false \
  "-Dcpp_args=-fsanitize=fuzzer-no-link -gline-tables-only" "-Dc_args=-gline-tables-only" \
  >"$log" 2>&1; then
  echo "FAIL: meson setup of build-fuzz failed:"; tail -20 "$log"
  rm -rf build-fuzz "$log"; exit 1
fi
rm -f "$log"
